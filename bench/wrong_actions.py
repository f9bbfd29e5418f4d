"""Wrong actions per 1,000 utterances: how often the device would act on a misunderstanding.

For each eval file, the edge decision of a router (``--model``, the shipped one by
default) is measured as ``edge-agent eval FILE --json`` measures it: ``wrong_actions``
counts the lines where a tool with a side effect (a device command, a timer, a note
written or removed, a timer cancelled, a list cleared) would run although the line is
labelled cloud or ask, or names another tool, or other arguments; ``asked_back`` the
lines the device asks back about. The files: the visible dev set, the hand-written
held-out sets (``examples/understanding_heldout.jsonl``: state questions, qualifiers,
items, indirect and underspecified requests; ``examples/understanding_own_24c.jsonl``,
the same kinds in new words; ``tests/edge/data/heldout*.jsonl``) and
SLURP's two halves, as a device in London. The shipped router trains on both SLURP halves,
so with it their rows are training figures (a fold's model, ``scripts/build_router.py
--joint --slurp HALF``, measures the other half unseen).

Prints a table, then, as its last line, one JSON object: per file ``n``,
``wrong_actions``, ``wrong_per_1000``, ``asked_back``, ``route_accuracy``,
``cloud_recall``, ``edge_precision``.

Usage: ``python bench/wrong_actions.py [--model DIR]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from edge_agent.evaluation import load_cases, run_eval  # noqa: E402
from understanding.router import Router  # noqa: E402
from understanding.settings import Settings  # noqa: E402

FILES = {
    "edge_dev": (ROOT / "examples" / "edge_dev.jsonl", None),
    "understanding_heldout": (ROOT / "examples" / "understanding_heldout.jsonl", "london"),
    "understanding_own_24c": (ROOT / "examples" / "understanding_own_24c.jsonl", "london"),
    "understanding_own_24d": (ROOT / "examples" / "understanding_own_24d.jsonl", "london"),
    "understanding_own_24e": (ROOT / "examples" / "understanding_own_24e.jsonl", "london"),
    "understanding_own_24f": (ROOT / "examples" / "understanding_own_24f.jsonl", "london"),
    "understanding_own_24g": (ROOT / "examples" / "understanding_own_24g.jsonl", "london"),
    "understanding_own_24h": (ROOT / "examples" / "understanding_own_24h.jsonl", "london"),
    "understanding_own_24i": (ROOT / "examples" / "understanding_own_24i.jsonl", "london"),
    "understanding_own_24j": (ROOT / "examples" / "understanding_own_24j.jsonl", "london"),
    "understanding_own_24k": (ROOT / "examples" / "understanding_own_24k.jsonl", "london"),
    "heldout": (ROOT / "tests" / "edge" / "data" / "heldout.jsonl", None),
    "heldout2": (ROOT / "tests" / "edge" / "data" / "heldout2.jsonl", None),
    "slurp_train_eval": (ROOT / "understanding" / "data" / "slurp_train_eval.jsonl", "london"),
    "slurp_measure": (ROOT / "understanding" / "data" / "slurp_measure.jsonl", "london"),
}
KEYS = ("route_accuracy", "cloud_recall", "edge_precision", "asked_back")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a router folder (default: shipped)")
    parser.add_argument(
        "--max-wrong",
        type=int,
        default=0,
        help="wrong actions a set may have (exit 1 when any set has more; the bar is 0)",
    )
    args = parser.parse_args()
    router = Router.load(args.model)
    figures: dict[str, dict[str, float | int]] = {}
    print(f"{'file':24} {'n':>5} {'wrong':>6} {'per 1000':>9} {'asked':>6} {'route':>7} "
          f"{'cloud rec':>9} {'edge prec':>9}")  # fmt: skip
    for name, (path, home) in FILES.items():
        if not path.is_file():
            continue
        settings = Settings(home_city=home) if home else None
        metrics = run_eval(router, load_cases(path), settings).metrics
        n, wrong = int(metrics["n"]), int(metrics["wrong_actions"])
        row = {
            "n": n,
            "wrong_actions": wrong,
            "wrong_per_1000": round(1000 * wrong / n, 1),
            **{key: metrics[key] for key in KEYS},
        }
        figures[name] = row
        print(f"{name:24} {n:5d} {wrong:6d} {row['wrong_per_1000']:9.1f} "
              f"{row['asked_back']:6} {row['route_accuracy']:7.4f} {row['cloud_recall']:9.4f} "
              f"{row['edge_precision']:9.4f}")  # fmt: skip
    over = sorted(name for name, row in figures.items() if row["wrong_actions"] > args.max_wrong)
    if over:
        print(f"more than {args.max_wrong} wrong actions in: {', '.join(over)}")
    print(json.dumps(figures))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
