"""`edge-agent ask` cold against the same ask through a running device runtime.

Cold: a new ``edge-agent ask`` process each time (imports, model load, the answer), on a
fresh memory. Through the runtime: ``edge-agent run`` is started once on one memory, and
``edge-agent ask`` on that memory finds its runtime file and asks over gRPC (the model
stays loaded). Both are the median wall time of ``--runs`` asks (10 by default) after an
untimed first run that writes the byte-code caches. Quiet machine target: through the
runtime <= 0.25 s.

Usage: ``python bench/runtime_ask.py [--runs 10] [--query "what's 15% of 80"]``.
The last line is one JSON object: ``{"cold_ask_s", "runtime_ask_s", "runs", "query"}``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EDGE_AGENT = str(Path(sys.executable).with_name("edge-agent"))


def timed_asks(query: str, memory_for: list[Path], env: dict[str, str]) -> list[float]:
    """Wall seconds of one ``edge-agent ask`` per memory path, the first untimed."""
    walls = []
    for run, memory in enumerate(memory_for):
        start = time.perf_counter()
        done = subprocess.run(
            [EDGE_AGENT, "ask", query, "--memory", str(memory)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        if run:
            walls.append(time.perf_counter() - start)
        assert done.stdout.strip(), done.stderr
    return walls


def start_runtime(memory: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """``edge-agent run`` on ``memory``, once it serves."""
    process = subprocess.Popen(
        [EDGE_AGENT, "run", "--memory", str(memory), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if "serving on" in line:
            return process
    raise SystemExit(f"edge-agent run did not start (exit {process.wait()})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed asks of each kind (median)")
    parser.add_argument(
        "--target-s",
        type=float,
        default=0.25,
        help="the median through the runtime must be at most this (exit 1 otherwise)",
    )
    parser.add_argument("--query", default="what's 15% of 80")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        env["EDGELOOP_HOME"] = str(root)
        cold = timed_asks(args.query, [root / f"cold{i}.db" for i in range(args.runs + 1)], env)
        memory = root / "edge.db"
        runtime = start_runtime(memory, env)
        try:
            warm = timed_asks(args.query, [memory] * (args.runs + 1), env)
        finally:
            runtime.send_signal(signal.SIGINT)
            runtime.communicate(timeout=30)
    cold_s, warm_s = round(statistics.median(cold), 3), round(statistics.median(warm), 3)
    print(f"{'edge-agent ask':<28} {'median s':>9} {'min s':>7} {'max s':>7}")
    print(f"{'cold (new process)':<28} {cold_s:>9} {min(cold):>7.3f} {max(cold):>7.3f}")
    print(f"{'through edge-agent run':<28} {warm_s:>9} {min(warm):>7.3f} {max(warm):>7.3f}")
    met = warm_s <= args.target_s
    verdict = "met" if met else "MISSED"
    print(
        f"query {args.query!r}, median of {args.runs}; "
        f"target through the runtime <= {args.target_s:g} s: {verdict}"
    )
    figures = {"cold_ask_s": cold_s, "runtime_ask_s": warm_s, "runs": args.runs}
    print(json.dumps({**figures, "query": args.query, "target_met": met}))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
