"""Cloud reasoner throughput and per-step latency against the bare transport's floor.

For 1, 16 and 64 concurrent edge clients, runs ``Reason`` sessions of compound queries on
the real cloud reasoner (planner backend, kernel loop, cloud tools) and, for comparison, a
bare ``grpc.aio`` server that streams the same number of same-sized ReactSteps with no
reasoning at all (the transport's floor). Each server runs in its own process, so the
clients' work does not slow the server down. Per-step latency is the time between
consecutive steps as the client receives them (the first from the call's start).

The two servers are measured in alternating rounds (cloud, floor, floor, cloud, ...) and
each one's gaps pooled over its rounds, so a burst of load from elsewhere on a shared
machine falls on both sides instead of on whichever happened to run at that moment.

    python bench/cloud_bench.py [--sessions 40] [--levels 1,16,64] [--rounds 3]

The last line is one JSON object mapping "1", "16" and "64" to ``sessions_per_s``,
``step_p50_ms``, ``step_p99_ms`` and ``floor_step_p50_ms`` (plus the floor's own figures,
the ratio, and both sides' mean gap per step).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import time
import uuid
from typing import Any

import grpc

QUERIES = [
    "is Tokyo warmer than Seoul today?",
    "weather in Paris and Berlin tomorrow",
    "which is later, London or Dubai?",
    "convert 5 km to miles and add 3 to the result",
    "what time is it in Sydney and in Chicago",
    "weather in London, Paris and Rome",
]
REASON = "/edgeloop.v1.CloudReasonerService/Reason"


def _serve_cloud(ready: Any) -> None:
    from cloud_agent.config import CloudConfig
    from cloud_agent.service import CloudServer

    async def main() -> None:
        cloud = CloudServer(CloudConfig(port=0, rate_per_s=0))
        ready.put(await cloud.start())
        await cloud.wait()

    asyncio.run(main())


def _serve_floor(ready: Any, steps_per_query: dict[str, list[bytes]]) -> None:
    from edgeloop.transport.options import SERVER_OPTIONS
    from edgeloop.v1 import agent_pb2 as pb

    async def stream(request: pb.ReasonRequest, context: Any) -> Any:
        for payload in steps_per_query.get(request.query, []):
            yield payload

    async def main() -> None:
        server = grpc.aio.server(options=SERVER_OPTIONS)
        handler = grpc.unary_stream_rpc_method_handler(
            stream,
            request_deserializer=pb.ReasonRequest.FromString,
            response_serializer=lambda payload: payload,
        )
        service = grpc.method_handlers_generic_handler(
            "edgeloop.v1.CloudReasonerService", {"Reason": handler}
        )
        server.add_generic_rpc_handlers((service,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        ready.put(port)
        await server.wait_for_termination()

    asyncio.run(main())


def _start(target: Any, *args: Any) -> tuple[mp.Process, int]:
    ctx = mp.get_context("spawn")
    ready = ctx.Queue()
    process = ctx.Process(target=target, args=(ready, *args), daemon=True)
    process.start()
    return process, int(ready.get(timeout=60))


async def _client_run(port: int, clients: int, sessions: int) -> tuple[float, list[float], int]:
    """Run ``sessions`` sessions over ``clients`` concurrent clients; (wall s, gaps ms, n)."""
    from edgeloop.v1 import agent_pb2 as pb
    from edgeloop.v1 import agent_pb2_grpc as pb_grpc

    gaps: list[float] = []
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _ in range(min(clients, 8))]
    stubs = [pb_grpc.CloudReasonerServiceStub(ch) for ch in channels]
    counter = iter(range(sessions))
    done = 0

    async def worker(index: int) -> None:
        nonlocal done
        stub = stubs[index % len(stubs)]
        for number in counter:
            query = QUERIES[number % len(QUERIES)]
            request = pb.ReasonRequest(session_id=uuid.uuid4().hex, query=query)
            last = time.perf_counter()
            async for _ in stub.Reason(request, timeout=60):
                now = time.perf_counter()
                gaps.append((now - last) * 1000)
                last = now
            done += 1

    try:
        # Warm-up: plans cached, channels connected, both as a steady service would be.
        for query in QUERIES:
            async for _ in stubs[0].Reason(
                pb.ReasonRequest(session_id=uuid.uuid4().hex, query=query), timeout=60
            ):
                pass
        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        wall = time.perf_counter() - started
    finally:
        for channel in channels:
            await channel.close()
    return wall, gaps, done


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _pooled(runs: list[tuple[float, list[float], int]]) -> tuple[float, list[float], int]:
    """Several rounds as one: total wall time, every gap, total sessions."""
    return (
        sum(wall for wall, _, _ in runs),
        [gap for _, gaps, _ in runs for gap in gaps],
        sum(done for _, _, done in runs),
    )


def _recorded_steps(port: int) -> dict[str, list[bytes]]:
    """The real reasoner's responses for each query, replayed byte for byte by the floor."""
    from edgeloop.v1 import agent_pb2 as pb
    from edgeloop.v1 import agent_pb2_grpc as pb_grpc

    out: dict[str, list[bytes]] = {}
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        for query in QUERIES:
            request = pb.ReasonRequest(session_id=uuid.uuid4().hex, query=query)
            out[query] = [r.SerializeToString() for r in stub.Reason(request, timeout=60)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=0, help="sessions per level (0: auto)")
    parser.add_argument("--levels", default="1,16,64")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per level")
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]

    cloud, cloud_port = _start(_serve_cloud)
    try:
        recorded = _recorded_steps(cloud_port)
        floor, floor_port = _start(_serve_floor, recorded)
        try:
            results: dict[str, dict[str, float]] = {}
            steps = statistics.mean(len(v) for v in recorded.values())
            print(f"{len(QUERIES)} compound queries, {steps:.1f} steps per session on average")
            print(
                f"{'clients':>7} {'sessions/s':>11} {'p50 ms':>8} {'p99 ms':>8} "
                f"{'floor p50':>10} {'floor p99':>10} {'floor s/s':>10} {'p50 ratio':>10} "
                f"{'mean ms':>8} {'floor mean':>10}"
            )
            for level in levels:
                sessions = args.sessions or max(60, level * 6)
                rounds = max(1, args.rounds)
                per_round = max(level, -(-sessions // rounds))
                runs: dict[int, list[tuple[float, list[float], int]]] = {
                    cloud_port: [],
                    floor_port: [],
                }
                for number in range(rounds):
                    order = [cloud_port, floor_port]
                    for port in order if number % 2 == 0 else reversed(order):
                        runs[port].append(asyncio.run(_client_run(port, level, per_round)))
                wall, gaps, done = _pooled(runs[cloud_port])
                f_wall, f_gaps, f_done = _pooled(runs[floor_port])
                row = {
                    "sessions_per_s": round(done / wall, 1),
                    "step_p50_ms": round(statistics.median(gaps), 3),
                    "step_p99_ms": round(_percentile(gaps, 0.99), 3),
                    "floor_step_p50_ms": round(statistics.median(f_gaps), 3),
                    "floor_step_p99_ms": round(_percentile(f_gaps, 0.99), 3),
                    "floor_sessions_per_s": round(f_done / f_wall, 1),
                }
                row["step_p50_ratio"] = round(
                    row["step_p50_ms"] / max(row["floor_step_p50_ms"], 1e-9), 2
                )
                # The mean gap is a session's duration per step: where the median hides
                # the few long gaps (the call's start, the final answer), the mean does not.
                row["step_mean_ms"] = round(statistics.mean(gaps), 3)
                row["floor_step_mean_ms"] = round(statistics.mean(f_gaps), 3)
                results[str(level)] = row
                print(
                    f"{level:>7} {row['sessions_per_s']:>11} {row['step_p50_ms']:>8} "
                    f"{row['step_p99_ms']:>8} {row['floor_step_p50_ms']:>10} "
                    f"{row['floor_step_p99_ms']:>10} {row['floor_sessions_per_s']:>10} "
                    f"{row['step_p50_ratio']:>9}x {row['step_mean_ms']:>8} "
                    f"{row['floor_step_mean_ms']:>10}"
                )
        finally:
            floor.terminate()
            floor.join(10)
    finally:
        cloud.terminate()
        cloud.join(10)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
