"""Scale bench: 1 and 3 cloud replicas on one PostgreSQL behind client-side round robin.

Each replica is a real cloud process (``CloudServer``: reasoner + memory sync on
``--memory-url``, the default cache budget). Clients reach them through ONE gRPC target
listing every replica (``ipv4:127.0.0.1:p1,127.0.0.1:p2,...``) with the ``round_robin``
load-balancing policy, so consecutive calls land on different replicas. For each setup:

- **syncs**: ``--users`` distinct users (10,000) each sync one new device holding
  ``--notes`` notes and a past session (the real exchange: state vectors, diffs, rounds),
  ``--clients`` at a time; devices synced per second and per-sync latency p50/p99;
- **RSS**: every replica's resident memory after each quarter of the users (the cache
  budget must hold it flat), the largest replica's at the end;
- **database size per user**: the memory tables' bytes (indexes and TOAST included)
  divided by the users;
- **Converse sessions**: ``--sessions`` cloud-only compound queries over ``Converse``,
  ``--clients`` at a time; sessions per second;
- **the SQLite backend too**: one replica on ``--memory-dir`` takes the same syncs; its RSS
  after every quarter (``sqlite_rss_mb_after_10k_users`` in "1").

Everything runs on one machine (the clients, every replica and PostgreSQL share its
cores), so the figures are a floor for each part, and 3 replicas can only show what the
shared cores allow. The replicas authenticate a bench token ``<user>:<device>`` without a
token table (the table's scan per call is measured apart: docs/scaling.md).

    python bench/scale_bench.py [--users 10000] [--replicas 1,3] [--url postgresql://...]

Without ``--url`` it starts a throw-away PostgreSQL (scripts/pg_cluster.py; fsync on).
The last line is one JSON object mapping "1" and "3" (replicas) to ``syncs_per_s``,
``sessions_per_s``, ``p50_ms``, ``p99_ms`` (per sync), ``rss_mb_after_10k_users`` (the
largest replica's) and ``db_bytes_per_user``; also ``replica_cpu_ms_per_sync`` and
``db_cpu_ms_per_sync`` (CPU time the replicas and PostgreSQL spent per sync: the
capacity figures that do not depend on how busy the shared machine was) and the SQLite
replica's figures.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parents[1]
QUERIES = [
    "is Tokyo warmer than Seoul today?",
    "weather in Paris and Berlin tomorrow",
    "which is later, London or Dubai?",
    "convert 5 km to miles and add 3 to the result",
    "what time is it in Sydney and in Chicago",
]


# ---- the replica process ------------------------------------------------------------


def serve(url: str | None, memory_dir: str | None = None) -> None:
    """Run one cloud replica on ``url`` (or SQLite files in ``memory_dir``); print its
    port; run until killed."""
    from cloud_agent.config import CloudConfig
    from cloud_agent.service import CloudServer
    from edgeloop.transport.auth import Principal, TokenAuth

    class BenchAuth(TokenAuth):
        """The token ``<user>:<device>`` names the caller (no 10k-entry token table)."""

        def __init__(self) -> None:
            super().__init__({"-": Principal("-", "-")})

        def principal_for(self, token: str) -> Principal | None:
            user, _, device = token.partition(":")
            return Principal(device, user) if user and device else None

    async def main() -> None:
        cloud = CloudServer(CloudConfig(port=0, memory_url=url, memory_dir=memory_dir))
        cloud.auth = BenchAuth()
        port = await cloud.start()
        print(port, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


# ---- the client side ----------------------------------------------------------------


class Device:
    """A new device of one user: a CRDT document with a few notes and a past session
    (what ``sync_with`` needs of a store, without SQLite: the clients' CPU is shared)."""

    def __init__(self, user: str, notes: int) -> None:
        from sync.document import MemoryDocument
        from sync.hlc import HybridLogicalClock

        self.node_id = "phone"
        self.doc = MemoryDocument(self.node_id)
        clock = HybridLogicalClock()
        created = "2026-12-01T12:00:00.000Z"
        with self.doc.doc.transaction():
            for i in range(notes):
                text = f"note {i} of {user}: call the plumber about the kitchen tap on Friday"
                data = {"text": text, "source_act_id": None, "created_at": created}
                self.doc.put("notes", f"{uuid.uuid4().hex}", clock.now(), data)
            session = {
                "device_id": "phone",
                "created_at": created,
                "query": "weather in Paris tomorrow",
                "final_answer": "Paris tomorrow: 14 °C, light rain",
                "success": True,
                "state": "DONE",
                "data": None,
            }
            self.doc.put("sessions", uuid.uuid4().hex, clock.now(), session)

    def state_vector(self) -> bytes:
        return self.doc.state_vector()

    def diff(self, state_vector: bytes) -> bytes:
        return self.doc.diff(state_vector)

    def apply_update(self, update: bytes, *, writer: str | None = None) -> bool:
        self.doc.apply_remote(update)
        return True


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_s(pid: int, *, children: bool = False) -> float:
    """CPU seconds (user + system) a process has used; with ``children``, also those of
    its exited, reaped children (PostgreSQL's backends, for the postmaster)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def postmaster_pid(cluster: Any) -> int | None:
    """The PostgreSQL server's pid (a cluster this bench started), else None."""
    if cluster is None:
        return None
    return int((cluster.data / "postmaster.pid").read_text().split()[0])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def sync_users(
    target: str, users: list[str], notes: int, clients: int, on_quarter: Any
) -> tuple[float, list[float]]:
    """Sync one new device per user through the round-robin channel; (wall s, ms each)."""
    from sync.client import sync_with_async

    options = [("grpc.lb_policy_name", "round_robin")]
    latencies: list[float] = []
    queue = iter(enumerate(users))
    quarter = max(len(users) // 4, 1)
    async with grpc.aio.insecure_channel(target, options=options) as channel:

        async def worker() -> None:
            for number, user in queue:
                device = Device(user, notes)
                started = time.perf_counter()
                await sync_with_async(channel, device, f"{user}:phone", timeout=120)  # type: ignore[arg-type]
                latencies.append((time.perf_counter() - started) * 1000)
                if (number + 1) % quarter == 0:
                    on_quarter(number + 1)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return time.perf_counter() - started, latencies


async def converse_sessions(
    target: str, sessions: int, clients: int, replicas: int
) -> tuple[float, int]:
    """Run Converse sessions of cloud-only queries; (wall s, sessions completed)."""
    from edgeloop.v1 import agent_pb2 as pb
    from edgeloop.v1 import agent_pb2_grpc as pb_grpc

    options = [("grpc.lb_policy_name", "round_robin")]
    done = 0
    queue = iter(range(sessions))
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)

        async def one(number: int) -> None:
            start = pb.ReasonRequest(
                session_id=uuid.uuid4().hex, query=QUERIES[number % len(QUERIES)]
            )
            call = stub.Converse(
                metadata=[("authorization", f"Bearer conv{number % 100}:phone")], timeout=60
            )
            await call.write(pb.ConverseRequest(start=start))
            async for response in call:
                if response.WhichOneof("event") == "device_action":
                    await call.write(pb.ConverseRequest(cancel=pb.CancelSession()))
                    break
            await call.done_writing()

        async def worker() -> None:
            nonlocal done
            for number in queue:
                await one(number)
                done += 1

        # Warm-up: every query on every replica (plans cached, models loaded, channels up).
        for number in range(len(QUERIES) * replicas * 2):
            await one(number)
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return time.perf_counter() - started, done


def start_replicas(
    url: str, count: int, flag: str = "--serve"
) -> list[tuple[subprocess.Popen[str], int]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    replicas = []
    for _ in range(count):
        proc = subprocess.Popen(
            [sys.executable, __file__, flag, url],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        replicas.append((proc, int(proc.stdout.readline())))
    return replicas


def stop_replicas(replicas: list[tuple[subprocess.Popen[str], int]]) -> None:
    for proc, _ in replicas:
        proc.terminate()
    for proc, _ in replicas:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()


def run_setup(cluster: Any, url: str, count: int, args: argparse.Namespace) -> dict[str, Any]:
    from sync.pgmemory import PostgresMemory

    replicas = start_replicas(url, count)
    pids = [proc.pid for proc, _ in replicas]
    target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for _, port in replicas)
    rss_rows: list[tuple[int, list[float]]] = [(0, [rss_mb(pid) for pid in pids])]
    postmaster = postmaster_pid(cluster)
    db_cpu_before = cpu_s(postmaster, children=True) if postmaster else 0.0
    replica_cpu_before = sum(cpu_s(pid) for pid in pids)
    try:
        run = f"r{count}x{uuid.uuid4().hex[:6]}"
        users = [f"{run}-user{i}" for i in range(args.users)]
        wall, latencies = asyncio.run(
            sync_users(
                target,
                users,
                args.notes,
                args.clients,
                lambda n: rss_rows.append((n, [rss_mb(pid) for pid in pids])),
            )
        )
        replica_cpu = sum(cpu_s(pid) for pid in pids) - replica_cpu_before
        session_wall, sessions = asyncio.run(
            converse_sessions(target, args.sessions, args.clients, count)
        )
        with PostgresMemory(url) as memory:
            db_bytes = memory.database_bytes()
            stored_users = memory.user_count()
    finally:
        stop_replicas(replicas)
    # The replicas' database sessions have ended: their CPU is now the postmaster's
    # children's (the Converse sessions touch no database).
    time.sleep(0.5)
    db_cpu = cpu_s(postmaster, children=True) - db_cpu_before if postmaster else float("nan")
    print(f"\n{count} replica(s): RSS (MB) of each replica after N users synced")
    for synced, values in rss_rows:
        print(f"  {synced:>6}  " + "  ".join(f"{v:7.1f}" for v in values))
    return {
        "syncs_per_s": round(len(latencies) / wall, 1),
        "sessions_per_s": round(sessions / session_wall, 1),
        "p50_ms": round(percentile(latencies, 0.5), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "rss_mb_after_10k_users": round(max(rss_rows[-1][1]), 1),
        "db_bytes_per_user": round(db_bytes / max(stored_users, 1)),
        "users": stored_users,
        "rss_mb_at_start": round(max(rss_rows[0][1]), 1),
        "replica_cpu_ms_per_sync": round(replica_cpu * 1000 / len(latencies), 2),
        "db_cpu_ms_per_sync": round(db_cpu * 1000 / len(latencies), 2),
    }


def run_sqlite(args: argparse.Namespace) -> dict[str, float]:
    """One replica on per-user SQLite files (``--memory-dir``): the same syncs, RSS only
    (the cache budget must hold the SQLite backend flat too)."""
    folder = tempfile.mkdtemp(prefix="edgeloop-scale-sqlite-")
    replicas = start_replicas(folder, 1, "--serve-dir")
    pid = replicas[0][0].pid
    rss_rows: list[tuple[int, list[float]]] = [(0, [rss_mb(pid)])]
    try:
        users = [f"sqlite-user{i}" for i in range(args.users)]
        wall, latencies = asyncio.run(
            sync_users(
                f"ipv4:127.0.0.1:{replicas[0][1]}",
                users,
                args.notes,
                args.clients,
                lambda n: rss_rows.append((n, [rss_mb(pid)])),
            )
        )
    finally:
        stop_replicas(replicas)
        shutil.rmtree(folder, ignore_errors=True)
    print("\n1 replica on SQLite files (--memory-dir): RSS (MB) after N users synced")
    for synced, values in rss_rows:
        print(f"  {synced:>6}  {values[0]:7.1f}")
    return {
        "sqlite_syncs_per_s": round(len(latencies) / wall, 1),
        "sqlite_rss_mb_after_10k_users": round(rss_rows[-1][1][0], 1),
    }


def load_cluster_module() -> Any:
    spec = importlib.util.spec_from_file_location("pg_cluster", ROOT / "scripts" / "pg_cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--notes", type=int, default=5, help="notes per device")
    parser.add_argument("--sessions", type=int, default=300, help="Converse sessions")
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients")
    parser.add_argument("--replicas", default="1,3")
    parser.add_argument("--url", help="an existing PostgreSQL database (emptied tables)")
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite replica")
    parser.add_argument(
        "--sqlite-only", action="store_true", help="only the SQLite replica (no PostgreSQL)"
    )
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--serve-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve or args.serve_dir:
        serve(args.serve, args.serve_dir)
        return
    if args.sqlite_only:
        sqlite = run_sqlite(args)
        print(f"\nSQLite replica: {sqlite}")
        print(json.dumps({"sqlite": sqlite}))
        return
    cluster = None
    if args.url is None:
        cluster = load_cluster_module().TempCluster(durable=True).start()
    results: dict[str, dict[str, Any]] = {}
    try:
        for count in (int(c) for c in args.replicas.split(",")):
            url = args.url or cluster.create_database(f"scale_{count}")
            results[str(count)] = run_setup(cluster, url, count, args)
        if not args.no_sqlite and "1" in results:
            results["1"].update(run_sqlite(args))
    finally:
        if cluster is not None:
            cluster.stop()
    print(
        f"\n{'replicas':>8} {'syncs/s':>8} {'sessions/s':>10} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'RSS MB':>8} {'db B/user':>10} {'replica CPU ms/sync':>20} {'db CPU ms/sync':>15}"
    )
    for count, r in results.items():
        print(
            f"{count:>8} {r['syncs_per_s']:>8} {r['sessions_per_s']:>10} {r['p50_ms']:>8}"
            f" {r['p99_ms']:>8} {r['rss_mb_after_10k_users']:>8} {r['db_bytes_per_user']:>10}"
            f" {r['replica_cpu_ms_per_sync']:>20} {r['db_cpu_ms_per_sync']:>15}"
        )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
