"""`edge-agent ask` cold against the same ask through a running device runtime.

Cold: a new ``edge-agent ask`` process each time (imports, model load, the answer), on a
fresh memory. Through the runtime: ``edge-agent run`` is started once on one memory, and
``edge-agent ask`` on that memory finds its runtime file and asks through the runtime's
quick door (a Unix socket; no typer, grpc or model in the asking process). Both are the
median wall time of ``--runs`` asks (10 by default) after an untimed first run that
writes the byte-code caches, beside the median start of ``python -c pass`` in the same
run (what a loaded machine adds shows there too). Quiet machine target: through the
runtime <= 0.25 s. The console script runs this checkout's code (``PYTHONPATH``), even
when the environment has another checkout installed.

Usage: ``python bench/runtime_ask.py [--runs 10] [--query "what's 15% of 80"]``.
The last line is one JSON object: ``{"cold_ask_s", "runtime_ask_s", "python_start_s",
"runtime_vs_python_start", "runs", "query", "target_met"}``.
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
ROOT = Path(__file__).resolve().parents[1]


def python_start(env: dict[str, str]) -> float:
    """Wall seconds of one ``python -c pass`` (what the machine's load adds shows here)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
    return time.perf_counter() - start


def timed_asks(
    query: str, memory_for: list[Path], env: dict[str, str], starts: list[float] | None = None
) -> list[float]:
    """Wall seconds of one ``edge-agent ask`` per memory path, the first untimed; with
    ``starts``, a ``python -c pass`` is timed before each timed ask (under the same load)."""
    walls = []
    for run, memory in enumerate(memory_for):
        if run and starts is not None:
            starts.append(python_start(env))
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
        # Ctrl-C stops it even when this bench runs as a background job (which ignores it).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
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
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        env["EDGELOOP_HOME"] = str(root)
        cold = timed_asks(args.query, [root / f"cold{i}.db" for i in range(args.runs + 1)], env)
        memory = root / "edge.db"
        runtime = start_runtime(memory, env)
        try:
            start: list[float] = []
            warm = timed_asks(args.query, [memory] * (args.runs + 1), env, start)
        finally:
            runtime.send_signal(signal.SIGINT)
            try:
                runtime.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                runtime.kill()
                runtime.communicate()
    cold_s, warm_s = round(statistics.median(cold), 3), round(statistics.median(warm), 3)
    start_s = round(statistics.median(start), 3)
    print(f"{'edge-agent ask':<28} {'median s':>9} {'min s':>7} {'max s':>7}")
    print(f"{'cold (new process)':<28} {cold_s:>9} {min(cold):>7.3f} {max(cold):>7.3f}")
    print(f"{'through edge-agent run':<28} {warm_s:>9} {min(warm):>7.3f} {max(warm):>7.3f}")
    print(f"{'(python -c pass)':<28} {start_s:>9} {min(start):>7.3f} {max(start):>7.3f}")
    ratio = round(warm_s / start_s, 1) if start_s else None
    met = warm_s <= args.target_s
    verdict = "met" if met else "MISSED"
    print(
        f"query {args.query!r}, median of {args.runs}; "
        f"target through the runtime <= {args.target_s:g} s: {verdict}"
    )
    figures = {
        "cold_ask_s": cold_s,
        "runtime_ask_s": warm_s,
        "python_start_s": start_s,
        "runtime_vs_python_start": ratio,
        "runs": args.runs,
    }
    print(json.dumps({**figures, "query": args.query, "target_met": met}))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
