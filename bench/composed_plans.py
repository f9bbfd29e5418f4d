"""Compound requests composed from single requests: does the planner keep both parts?

Every line of the project's own edge held-out sets that one planner tool serves as said
(``examples/understanding_heldout.jsonl``, ``examples/understanding_own_24c.jsonl``,
``tests/edge/data/heldout*.jsonl``; lists, removals and a home city's weather left out)
is a request with its expected call. Pairs of them, drawn with a fixed seed, are joined
as people join two requests ("A and B", "A, then B", "A and also B", "A. B"), and the
planner backend (the shipped router's parse, as ``cloud-agent eval`` runs it) plans each
one. A pair is right when the plan's calls are the two expected calls (the eval's rules:
``cloud_agent.evaluation.calls_match``); a wrong action is a side-effect call that
matches neither (``wrong_actions``). The single lines were written as device requests,
never as parts of a compound, and none of them was composed for a rule: the figure says
how far the planner's reading of one request survives another beside it.

Prints a table per joiner, then, as its last line, one JSON object: ``n``,
``plan_accuracy``, ``wrong_actions``, ``wrong_per_1000``, ``refused``, ``seed``. Exits 1
when ``wrong_actions`` is above ``--max-wrong`` (0: a wrong action is a defect).

Usage: ``python bench/composed_plans.py [--pairs 400] [--seed 7] [--show]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cloud_agent.evaluation import (  # noqa: E402
    calls_match,
    run_query,
    scratch_memory,
    wrong_actions,
)
from cloud_agent.planner.reasoner import PlannerReasoner, load_edge_router  # noqa: E402
from cloud_agent.tools import local_registry  # noqa: E402

FILES = [
    ROOT / "examples" / "understanding_heldout.jsonl",
    ROOT / "examples" / "understanding_own_24c.jsonl",
    ROOT / "tests" / "edge" / "data" / "heldout.jsonl",
    ROOT / "tests" / "edge" / "data" / "heldout2.jsonl",
]
PLANNED = frozenset(
    {
        "get_weather",
        "world_clock",
        "unit_convert",
        "calculator",
        "device_control",
        "set_timer",
        "add_note",
        "search_notes",
        "device_status",
        "list_timers",
    }
)
JOINERS = (" and ", ", then ", " and also ", ". ")

Single = tuple[str, dict[str, Any]]


def singles(paths: list[Path]) -> list[Single]:
    """(query, expected call) of each line one planner tool serves as said."""
    found: list[Single] = []
    for path in paths:
        if not path.is_file():
            continue
        for raw in path.read_text("utf-8").splitlines():
            line = json.loads(raw)
            tool, args = line.get("tool"), dict(line.get("args") or {})
            if line.get("route") != "edge" or tool not in PLANNED or line.get("calls"):
                continue
            if "list" in args:
                continue  # the planner plans no named lists
            if tool == "get_weather" and str(args.get("city", "")) not in line["query"].lower():
                continue  # the home city's weather: a device setting, not the words
            args.pop("label", None) if tool == "set_timer" else None
            call = {"tool": tool, "args": None if tool == "calculator" else args}
            found.append((line["query"].rstrip("?.! "), call))
    return found


def compose(first: Single, second: Single, joiner: str) -> tuple[str, list[dict[str, Any]]]:
    """The two requests said as one, and the calls expected of it."""
    tail = second[0][:1].upper() + second[0][1:] if joiner == ". " else second[0]
    return f"{first[0]}{joiner}{tail}", [first[1], second[1]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=400, help="how many pairs to compose")
    parser.add_argument("--seed", type=int, default=7, help="the draw's seed")
    parser.add_argument("--max-wrong", type=int, default=0, help="wrong actions allowed")
    parser.add_argument("--show", action="store_true", help="print each pair planned wrong")
    args = parser.parse_args()
    pool = singles(FILES)
    if len(pool) < 2:
        print("composed_plans: no single requests to compose", file=sys.stderr)
        return 2
    draw = random.Random(args.seed)
    planner = PlannerReasoner(router=load_edge_router())
    per_joiner: Counter[str] = Counter()
    right_per_joiner: Counter[str] = Counter()
    right = wrong = refused = 0
    with scratch_memory() as memory:
        tools = local_registry(memory)
        for number in range(args.pairs):
            first, second = draw.sample(pool, 2)
            joiner = draw.choice(JOINERS)
            query, expected = compose(first, second, joiner)
            outcome = run_query(planner, tools, query, f"composed-{number}")
            ok = calls_match(expected, outcome.calls) and not outcome.refused
            bad = wrong_actions(expected, outcome.calls)
            per_joiner[joiner] += 1
            right_per_joiner[joiner] += ok
            right += ok
            wrong += bad
            refused += outcome.refused
            if args.show and (bad or not ok):
                label = "WRONG" if bad else "miss"
                print(f"{label}: {query!r} -> {outcome.calls}")
    print(f"{'joiner':14} {'n':>5} {'right':>7}")
    for joiner in JOINERS:
        n = per_joiner[joiner]
        share = right_per_joiner[joiner] / n if n else 0.0
        print(f"{joiner!r:14} {n:5d} {share:7.4f}")
    figures = {
        "n": args.pairs,
        "plan_accuracy": round(right / args.pairs, 4),
        "wrong_actions": wrong,
        "wrong_per_1000": round(1000 * wrong / args.pairs, 1),
        "refused": refused,
        "seed": args.seed,
    }
    if wrong > args.max_wrong:
        print(f"{wrong} wrong actions (allowed: {args.max_wrong})", file=sys.stderr)
    print(json.dumps(figures))
    return 1 if wrong > args.max_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
