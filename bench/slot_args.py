"""Built-in tools' arguments from a joint model's slots: which word-reader fallback to keep.

For a joint intent + slot router (``--model``), evaluates the edge decision on eval files
under three policies for an argument the model gives no slot for:

- ``slots_only``: no reader over the request's words at all;
- ``shipped``: ``understanding.arguments.builtin_slots.WORD_READERS`` (lookups, and the
  device vocabulary for device_control);
- ``plus_timer_note``: the shipped policy plus the timer and note readers over the words
  (a duration or alarm time, a note's text or list item).

For each it prints route / tool / args accuracy, edge precision and ``wrong_actions``: lines
where the device would run a side-effecting tool (timer, device command, note) that is not
the expected call. For a SLURP measure file (``--home london``), ``filled`` is the share of
device-answerable lines kept on the device with the right tool (their arguments are not
annotated there: check them by eye with ``--show``). Last line: one JSON object.

``slurp_measure.jsonl`` is SLURP's half B: it measures unseen speech only for a model built
on half A (``scripts/build_router.py --slurp understanding/data/slurp_train.jsonl``); the
shipped router trains on both halves, so with it that row is a training figure.

Usage: ``python bench/slot_args.py --model DIR [--show]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from edge_agent.evaluation import load_cases, run_eval  # noqa: E402
from understanding.arguments import builtin_slots  # noqa: E402
from understanding.router import Router  # noqa: E402
from understanding.settings import Settings  # noqa: E402
from understanding.tools import SIDE_EFFECT_TOOLS  # noqa: E402

FILES = {
    "edge_dev": (ROOT / "examples" / "edge_dev.jsonl", None),
    "heldout": (ROOT / "tests" / "edge" / "data" / "heldout.jsonl", None),
    "slurp_measure": (ROOT / "understanding" / "data" / "slurp_measure.jsonl", "london"),
}
POLICIES = {
    "slots_only": frozenset(),
    "shipped": builtin_slots.WORD_READERS,
    "plus_timer_note": builtin_slots.WORD_READERS
    | {("set_timer", "seconds"), ("add_note", "text"), ("remove_note", "text")},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a joint intent + slot router folder")
    parser.add_argument("--show", action="store_true", help="print slurp_measure's device calls")
    args = parser.parse_args()
    router = Router.load(args.model)
    figures: dict[str, dict[str, float | int]] = {}
    print(f"{'file':14} {'policy':16} {'route':>6} {'tool':>6} {'args':>6} {'prec':>6} "
          f"{'wrong':>5} {'filled':>7}")  # fmt: skip
    for name, (path, home) in FILES.items():
        cases = load_cases(path)
        for policy, readers in POLICIES.items():
            builtin_slots.WORD_READERS = readers
            report = run_eval(router, cases, Settings(home_city=home) if home else None)
            wrong = sum(1 for m in report.misses if m["got"] in SIDE_EFFECT_TOOLS)
            device = [c for c in cases if c.route == "edge"]
            missed = {m["line"] for m in report.misses}
            filled = sum(1 for c in device if c.line not in missed)
            m = report.metrics
            row = {
                "route_accuracy": m["route_accuracy"],
                "tool_accuracy": m["tool_accuracy"],
                "args_accuracy": m["args_accuracy"],
                "edge_precision": m["edge_precision"],
                "wrong_actions": wrong,
                "filled": filled,
                "device_lines": len(device),
            }
            figures[f"{name}/{policy}"] = row
            print(f"{name:14} {policy:16} {m['route_accuracy']:6.4f} {m['tool_accuracy']:6.4f} "
                  f"{m['args_accuracy']:6.4f} {m['edge_precision']:6.4f} {wrong:5d} "
                  f"{filled:3d}/{len(device)}")  # fmt: skip
            if args.show and name == "slurp_measure" and policy == "shipped":
                london = Settings(home_city="london")
                for case in device:
                    decision = router.decide(case.query, london)
                    if decision.route == "edge":
                        print(f"    {case.query!r} -> {decision.tool} {decision.arguments}")
    builtin_slots.WORD_READERS = POLICIES["shipped"]
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
