"""MCP servers as tools: what a server costs to start, to call and to stop, and what it
adds to a cold ``edge-agent ask``.

Runs the garden server written for the tests (``tests/mcp/garden_server.py``, Python,
the official SDK) over stdio: ``start_s`` (spawn, ``initialize``, ``tools/list``: the
median of ``--starts`` starts), the p50/p95 of ``--calls`` calls of its read-only
``plant_info`` through the kernel's executor (schema checks included) and ``close_s``;
then the median wall time of a cold ``edge-agent ask "what's 2 + 2"`` with and without
``--mcp`` (``--cold-runs`` each, a new process each time). The last line is one JSON
object: ``{"start_s", "call_p50_ms", "call_p95_ms", "close_s", "cold_ask_s",
"cold_ask_mcp_s"}``.

Usage: ``python bench/mcp_tools.py [--starts 3] [--calls 200] [--cold-runs 3]``
(needs the mcp extra).
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SERVER = ROOT / "tests" / "mcp" / "garden_server.py"
COMMAND = f"garden={shlex.join([sys.executable, str(SERVER)])}"


def _cold_ask(extra: list[str], memory: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "edge_agent", "ask", "what's 2 + 2", "--memory", memory, *extra],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=3)
    args = parser.parse_args()

    from react_kernel import ToolExecutor, ToolRegistry
    from understanding.tools.mcp_servers import McpTools

    starts, closes, calls = [], [], []
    for run in range(args.starts):
        began = time.perf_counter()
        tools = McpTools.start([COMMAND])
        starts.append(time.perf_counter() - began)
        if run == 0:
            registry = ToolRegistry(tools.specs)
            executor = ToolExecutor(registry)
            spec = registry.get("mcp_garden_plant_info")
            assert spec is not None
            for _ in range(args.calls):
                began = time.perf_counter()
                outcome = executor.call(spec, {"plant": "fern"}, session_id="bench")
                calls.append((time.perf_counter() - began) * 1000)
                assert outcome.output == {"plant": "fern", "ml_per_week": 200}, outcome.error
        began = time.perf_counter()
        tools.close()
        closes.append(time.perf_counter() - began)
    with tempfile.TemporaryDirectory() as folder:
        memory = str(Path(folder) / "edge.db")
        _cold_ask([], memory)  # creates the memory: not timed
        plain = [_cold_ask([], memory) for _ in range(args.cold_runs)]
        with_mcp = [_cold_ask(["--mcp", COMMAND], memory) for _ in range(args.cold_runs)]
    calls.sort()
    figures = {
        "start_s": round(statistics.median(starts), 2),
        "call_p50_ms": round(statistics.median(calls), 2),
        "call_p95_ms": round(calls[int(0.95 * (len(calls) - 1))], 2),
        "close_s": round(statistics.median(closes), 2),
        "cold_ask_s": round(statistics.median(plain), 2),
        "cold_ask_mcp_s": round(statistics.median(with_mcp), 2),
    }
    print(
        f"MCP garden server: start {figures['start_s']} s, plant_info p50 "
        f"{figures['call_p50_ms']} ms, close {figures['close_s']} s; cold ask "
        f"{figures['cold_ask_s']} s, with --mcp {figures['cold_ask_mcp_s']} s"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
