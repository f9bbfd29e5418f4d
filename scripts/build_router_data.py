"""Write the router's training and validation sets, ``understanding/data/router_{train,val}.jsonl``.

Each line is ``{"text", "intent"}`` with intent one of the nine device tools,
``smalltalk`` (answered on the device with no tool), ``oos`` (the cloud's: comparisons,
reasoning, open knowledge, writing, work the tools cannot do, a tool request with a
follow-up only the cloud does) or two tools joined by ``#`` (two requests in one line:
the cloud plans them). The text marks each argument inline as a slot of the shared
vocabulary, ``[type : words]`` (``"wake me at [time : five thirty am]"``), so the joint
intent + slot model learns every built-in tool's arguments; the frozen-heads trainer
reads the words without the marks and ``#`` lines as ``oos``
(``scripts/build_router.py``). The phrasings come from templates filled with varied
values and then varied the way people write: casual openers and closers, typos, numbers
as words, long sentences with context around the request; a quarter of each tool's lines
are the short, plain requests people say most. Near misses (queries that mention a tool
but need more than it does) are labelled ``oos`` on purpose, so the model learns where a
tool's scope ends.

The generator is seeded: rebuilding gives the same files. It never reads the evaluation
sets (``examples/edge_dev.jsonl`` is for evaluation only).

Usage: ``python scripts/build_router_data.py [--seed 7] [--per-tool 420]``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

# The builders live beside this script, in ``router_data/`` (one module per kind of line).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from router_data.build import build
from router_data.variation import DATA

__all__ = ["build", "main"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--per-tool", type=int, default=420)
    args = parser.parse_args()
    train, val = build(args.seed, args.per_tool)
    for name, rows in (("router_train.jsonl", train), ("router_val.jsonl", val)):
        path = DATA / name
        with path.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        kinds = Counter("compound" if "#" in r["intent"] else r["intent"] for r in rows)
        print(f"wrote {path}: {len(rows)} rows {dict(kinds)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
