"""Sync benchmark: N records written offline on each of two replicas, then merged.

For N in 1k, 10k, 100k (``--sizes`` to change): each replica writes N notes offline (in
batches, as a device does when it imports), then they sync both ways with the real
exchange (state vectors, then state-vector diffs, rounds until equal; in-process, no
network, so the figures are the protocol's and the store's, not the loopback's).

Printed per size: diff bytes per record, time to produce and to apply the diffs, total
sync time, RSS, and the naive alternative (each side ships its whole state as JSON and the
other upserts every record into the same tables) side by side as ratios.

Then the same exchange over real gRPC on 127.0.0.1 between two processes (a server
holding one replica, this process the other), where both sides merge at the same time.

Last line: {"1000": {"sync_s", "wire_bytes", "raw_json_bytes", "naive_sync_s", "rss_mb",
"sync_cpu_s", "naive_cpu_s", "grpc_sync_s"}, ...}: ``sync_s`` and ``naive_sync_s`` are
the in-process figures (both sides merged one after the other, like for like),
``grpc_sync_s`` the two-process one;
``sync_cpu_s`` and ``naive_cpu_s`` the CPU seconds of the in-process runs (what an idle
machine would take; on a busy one the wall clock can be several times longer).

    python bench/sync_bench.py [--sizes 1000,10000,100000] [--no-grpc]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cloud_agent.server import CLIENT_OPTIONS
from sync import MemoryStore
from sync.exchange import same_state
from sync.views import build_row, materialise

WORDS = [
    "call",
    "mum",
    "about",
    "the",
    "weekend",
    "remember",
    "dentist",
    "friday",
    "buy",
    "oat",
    "milk",
    "bread",
    "eggs",
    "pay",
    "rent",
    "book",
    "train",
    "to",
    "oslo",
    "check",
    "boiler",
    "pressure",
    "water",
    "the",
    "plants",
    "renew",
    "passport",
    "meeting",
    "notes",
    "project",
    "alpha",
    "deadline",
    "next",
    "tuesday",
    "birthday",
    "gift",
    "ideas",
    "for",
    "sam",
    "pick",
    "up",
    "dry",
    "cleaning",
]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fill(store: MemoryStore, n: int, seed: int) -> None:
    rng = random.Random(seed)
    for start in range(0, n, 10_000):
        with store.batch():
            for _ in range(start, min(n, start + 10_000)):
                store.add_note(" ".join(rng.choices(WORDS, k=rng.randint(8, 16))))
    # The writes were made offline, before the sync: so was their WAL checkpoint (which
    # otherwise runs in the background and would overlap the timed merge).
    store.checkpoint()


def raw_json(store: MemoryStore) -> bytes:
    records = [{"id": i, **d} for i, d in store.records("notes").items()]
    return json.dumps(records, ensure_ascii=False, separators=(",", ":")).encode()


def naive_merge(store: MemoryStore, payload: bytes) -> None:
    """What a naive sync does on receipt: parse the peer's whole state, upsert it all."""
    from sync.document import Entry

    records = json.loads(payload)
    with store.db.atomic():
        changes = [
            (r["id"], build_row("notes", r["id"], Entry("0" * 16, "peer", r))) for r in records
        ]
        materialise(store.db.conn, "notes", changes, None)


def run(n: int, root: Path, use_grpc: bool) -> dict[str, Any]:
    a = MemoryStore(root / f"a{n}.db", node_id="a", synchronous="NORMAL")
    b = MemoryStore(root / f"b{n}.db", node_id="b", synchronous="NORMAL")
    fill(a, n, 1)
    fill(b, n, 2)
    raw_a, raw_b = raw_json(a), raw_json(b)
    raw_bytes = len(raw_a) + len(raw_b)
    gc.collect()

    produce = apply = 0.0
    wire = rounds = 0
    cpu = time.process_time()
    start = time.perf_counter()
    while True:
        sv_a, sv_b = a.state_vector(), b.state_vector()
        wire += len(sv_a) + len(sv_b)
        if same_state(sv_a, sv_b):
            break
        t0 = time.perf_counter()
        to_b, to_a = a.diff(sv_b), b.diff(sv_a)
        t1 = time.perf_counter()
        b.apply_update(to_b)
        a.apply_update(to_a)
        t2 = time.perf_counter()
        produce += t1 - t0
        apply += t2 - t1
        wire += len(to_a) + len(to_b)
        rounds += 1
    sync_s = time.perf_counter() - start
    sync_cpu = time.process_time() - cpu
    rss = rss_mb()
    assert a.document_json() == b.document_json()
    assert len(a.records("notes")) == 2 * n

    # naive: ship the whole JSON state both ways and upsert everything on each side
    a2 = MemoryStore(root / f"na{n}.db", node_id="a", synchronous="NORMAL")
    b2 = MemoryStore(root / f"nb{n}.db", node_id="b", synchronous="NORMAL")
    naive_merge(a2, raw_a)
    naive_merge(b2, raw_b)
    a2.checkpoint()
    b2.checkpoint()
    cpu = time.process_time()
    start = time.perf_counter()
    naive_merge(b2, raw_a)
    naive_merge(a2, raw_b)
    naive_s = time.perf_counter() - start
    naive_cpu = time.process_time() - cpu
    for s in (a, b, a2, b2):
        s.close()
    grpc_s, grpc_wire, server_rss = run_grpc(n, root) if use_grpc else (None, None, None)
    return {
        "n": n,
        "rounds": rounds,
        "sync_s": round(sync_s, 4),
        "produce_s": round(produce, 4),
        "apply_s": round(apply, 4),
        "wire_bytes": wire,
        "raw_json_bytes": raw_bytes,
        "diff_bytes_per_record": round(wire / (2 * n), 1),
        "naive_sync_s": round(naive_s, 4),
        "sync_cpu_s": round(sync_cpu, 4),
        "naive_cpu_s": round(naive_cpu, 4),
        "rss_mb": round(rss, 1),
        "grpc_sync_s": grpc_s,
        "grpc_wire_bytes": grpc_wire,
        "grpc_server_rss_mb": server_rss,
    }


def serve(n: int, root: str) -> None:
    """Subprocess: fill the user's store on the server with n records, then serve."""
    from sync.auth import Principal
    from sync.server import SyncServerThread
    from sync.userstores import UserStores

    stores = UserStores(root, node_id="b", synchronous="NORMAL")
    fill(stores("bench"), n, 2)  # the store stays open, as on a running server
    with SyncServerThread(stores, tokens={"t": Principal("a", "bench")}) as server:
        print(server.port, flush=True)
        sys.stdin.read()  # until the parent closes the pipe
        print(round(rss_mb(), 1), flush=True)


def run_grpc(n: int, root: Path) -> tuple[float, int, float]:
    """The real exchange over gRPC on 127.0.0.1 between two processes (both merge at once)."""
    import grpc

    from sync.client import sync_with

    folder = root / f"server{n}"
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(n), str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    a = MemoryStore(root / f"ga{n}.db", node_id="a", synchronous="NORMAL")
    fill(a, n, 1)
    port = int(proc.stdout.readline())
    gc.collect()
    with grpc.insecure_channel(f"127.0.0.1:{port}", options=CLIENT_OPTIONS) as channel:
        start = time.perf_counter()
        result = sync_with(channel, a, "t", timeout=600)
        elapsed = time.perf_counter() - start
        again = sync_with(channel, a, "t")
    assert again.rounds == 0 and len(a.records("notes")) == 2 * n
    proc.stdin.close()
    server_rss = float(proc.stdout.readline())
    proc.wait(60)
    a.close()
    return round(elapsed, 4), result.bytes_sent + result.bytes_received, server_rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-grpc", action="store_true", help="skip the two-process run")
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    summary: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            r = run(n, Path(tmp), not args.no_grpc)
            print(
                f"{n:>7} records/side: in-process sync {r['sync_s']:.3f}s (produce"
                f" {r['produce_s']:.3f}s, apply {r['apply_s']:.3f}s, {r['rounds']} rounds),"
                f" wire {r['wire_bytes']} B = {r['diff_bytes_per_record']} B/record ="
                f" {r['wire_bytes'] / r['raw_json_bytes']:.2f}x raw JSON;"
                f" naive JSON both ways {r['naive_sync_s']:.3f}s"
                f" (CRDT/naive time {r['sync_s'] / max(r['naive_sync_s'], 1e-9):.2f}x);"
                f" CPU time: CRDT {r['sync_cpu_s']:.3f}s, naive {r['naive_cpu_s']:.3f}s"
                f" ({r['sync_cpu_s'] / max(r['naive_cpu_s'], 1e-9):.2f}x); RSS {r['rss_mb']} MB",
                flush=True,
            )
            if r["grpc_sync_s"] is not None:
                print(
                    f"{n:>7} records/side over gRPC, two processes merging at once:"
                    f" {r['grpc_sync_s']:.3f}s, {r['grpc_wire_bytes']} B of updates"
                    f" ({r['grpc_wire_bytes'] / r['raw_json_bytes']:.2f}x raw JSON),"
                    f" server RSS {r['grpc_server_rss_mb']} MB",
                    flush=True,
                )
            keys = ("sync_s", "wire_bytes", "raw_json_bytes", "naive_sync_s", "rss_mb")
            summary[str(n)] = {k: r[k] for k in keys}
            summary[str(n)]["sync_cpu_s"] = r["sync_cpu_s"]
            summary[str(n)]["naive_cpu_s"] = r["naive_cpu_s"]
            if r["grpc_sync_s"] is not None:
                summary[str(n)]["grpc_sync_s"] = r["grpc_sync_s"]
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
