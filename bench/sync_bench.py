"""Sync benchmark: N records written offline on each of two replicas, then merged.

For N in 1k, 10k, 100k (``--sizes`` to change), each replica writes N notes offline (in
batches, as a device does when it imports), then they merge both ways. Two setups:

- **a real sync** (the headline): two processes, a device and a sync server, each holding
  its replica, speak the real exchange over gRPC on 127.0.0.1 (state vectors, then
  state-vector diffs, rounds until equal); both merge at the same time, as two machines
  do. Timed in the device process from the first message to ``complete``, which the
  server sends only after its own merge has finished. The naive alternative runs the same
  way: two processes over a TCP socket on 127.0.0.1, each sends its whole state as JSON,
  then each parses the other's and upserts every record into the same tables.
- **in process**, one side after the other: the same exchange and the same naive merge
  without a network, so the time is the protocol's and the store's, split into producing
  and applying the diffs, with CPU time (what the sync costs the machine in all: both
  sides' state vectors, diffs or JSON serialisation, merges, and the checkpoints that
  copy their writes into the database files).

Fair both ways: the naive side writes the same rows, recall rows and FTS5 entries as
the CRDT's merge, in one transaction each, through the store's own write path (it looks
each record's recall row up: it cannot know which records are new), and serialises its
whole state at sync time as the CRDT cuts its diffs then; it writes no update log, the
CRDT's own cost. The replicas do not hold their documents in memory (a store opens
without loading it, and a first sync does not load it); ``--loaded`` loads them first,
untimed, as stores did from opening before the lazy document.

The offline writes are checkpointed and flushed to disk (``os.sync``) before the timed
exchange, as they would be long before a real sync, and each run's files are removed
before the next: the kernel writing back one run's pages must not slow the next.

Printed per size: diff bytes per record, wire bytes against the raw JSON of the
records, both setups' times with the CRDT/naive ratios, and RSS.

Last line: {"1000": {"sync_s", "wire_bytes", "raw_json_bytes", "naive_sync_s", "rss_mb",
...}, ...}: ``sync_s`` and ``naive_sync_s`` are the real (two-process) syncs' wall
clock (median of ``--repeat`` alternating runs), ``rss_mb`` the larger of the two
processes' peak RSS; ``inprocess_sync_s``, ``inprocess_naive_s``, ``sync_cpu_s`` and
``naive_cpu_s`` the in-process figures (both sides merged one after the other; medians
of ``--repeat`` runs), ``cpu_ratio`` their ratio; ``real_cpu_s`` and
``real_naive_cpu_s`` the CPU time of both processes of the real syncs (the device's
around its exchange, the server's from the moment the device starts it, each up to its
writes checkpointed into its file; medians). With
``--in-process`` only the in-process setup runs and ``sync_s``/``naive_sync_s``/``rss_mb``
are its figures.

    python bench/sync_bench.py [--sizes 1000,10000,100000] [--repeat 3] [--in-process] [--loaded]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from edgeloop.transport.options import CLIENT_OPTIONS
from sync import MemoryStore
from sync.exchange import same_state
from sync.materialise import materialise
from sync.merge import gc_paused
from sync.views import build_row

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


def status_mb(field: str) -> float:
    """A memory figure of this process from /proc (``VmRSS``: now, ``VmHWM``: peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def rss_mb() -> float:
    return status_mb("VmRSS")


LOADED = os.environ.get("SYNC_BENCH_LOADED") == "1"
"""``--loaded``: replicas hold their whole document in memory before the sync."""


def fill(store: MemoryStore, n: int, seed: int) -> None:
    rng = random.Random(seed)
    for start in range(0, n, 10_000):
        with store.batch():
            for _ in range(start, min(n, start + 10_000)):
                store.add_note(" ".join(rng.choices(WORDS, k=rng.randint(8, 16))))
    # A replica opens without loading its document, and neither a device's
    # `edge-agent sync` nor the sync server's store loads it for a first sync (the
    # update is read, the diff cut from the log). With --loaded both hold it, as the
    # stores did from opening before the lazy document (its load is not timed).
    if LOADED:
        assert store.doc is not None
    # The writes were made offline, long before the sync: so were their WAL checkpoint
    # (which otherwise runs in the background) and the kernel's writeback of the pages,
    # neither of which may overlap the timed merge.
    store.checkpoint()
    os.sync()


def raw_json(store: MemoryStore) -> bytes:
    """The replica's whole state as a JSON array of its notes, serialised by SQLite (in
    C: a third of the time of reading the records into Python and ``json.dumps``)."""
    sql = (
        "SELECT json_group_array(json_object('id', id, 'text', text, 'source_act_id',"
        " source_act_id, 'created_at', created_at)) FROM (SELECT * FROM notes ORDER BY id)"
    )
    return str(store.db.execute(sql).fetchone()[0]).encode()


NAIVE_MODES = ("upsert", "lookup")
"""How the naive side merges: ``upsert`` every record through the store's write path for
records that may be held (it looks each one's recall row up), or ``lookup`` which of
them are held first (one statement, as the CRDT's merge does) and write the others
through the store's insert path for new records, the CRDT's own."""


def naive_merge(store: MemoryStore, payload: bytes, mode: str = "upsert") -> None:
    """What a naive sync does on receipt: parse the peer's whole state, write it all.

    The same table writes as the CRDT's merge (the notes, their recall rows and FTS5
    entries, one transaction, the garbage collector paused as the CRDT's merge pauses
    it). It writes no update log, which is the CRDT's own cost."""
    from sync.document import Entry

    with store.db.atomic(), gc_paused():
        records = json.loads(payload)
        changes = [
            (r["id"], build_row("notes", r["id"], Entry("0" * 16, "peer", r))) for r in records
        ]
        new: set[str] | None = None
        if mode == "lookup":
            ids = json.dumps([record_id for record_id, _ in changes])
            sql = "SELECT n.id FROM json_each(?) j JOIN notes n ON n.id = j.value"
            held = {row[0] for row in store.db.conn.execute(sql, [ids])}
            new = {record_id for record_id, _ in changes if record_id not in held}
        materialise(store.db.conn, "notes", changes, None, new=new)


def peak_rss_mb() -> float:
    return status_mb("VmHWM")


def run_in_process(n: int, top: Path) -> dict[str, Any]:
    """Both replicas in this process, merged one after the other (CRDT, then naive)."""
    root = top / f"inprocess{n}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    a = MemoryStore(root / f"a{n}.db", node_id="a", synchronous="NORMAL")
    b = MemoryStore(root / f"b{n}.db", node_id="b", synchronous="NORMAL")
    fill(a, n, 1)
    fill(b, n, 2)
    own_a, own_b = raw_json(a), raw_json(b)  # each side's records, before the sync
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
    # Both sides' writes into the database file, in the window (for the naive side too):
    # otherwise a background checkpoint lands in it or not, by timing.
    a.checkpoint()
    b.checkpoint()
    sync_s = time.perf_counter() - start
    sync_cpu = time.process_time() - cpu
    rss = rss_mb()
    assert a.document_json() == b.document_json()
    assert len(a.records("notes")) == 2 * n
    a.close()  # and their documents: the naive side runs in a process as clean
    b.close()

    raw_bytes = len(own_a) + len(own_b)
    naive = {mode: run_naive_in_process(root, n, own_a, own_b, mode) for mode in NAIVE_MODES}
    shutil.rmtree(root)  # no writeback of this run's files during the next one
    return {
        "rounds": rounds,
        "inprocess_sync_s": round(sync_s, 4),
        "produce_s": round(produce, 4),
        "apply_s": round(apply, 4),
        "wire_bytes": wire,
        "raw_json_bytes": raw_bytes,
        "diff_bytes_per_record": round(wire / (2 * n), 1),
        "inprocess_naive_s": round(naive["upsert"][0], 4),
        "sync_cpu_s": round(sync_cpu, 4),
        "naive_cpu_s": round(naive["upsert"][1], 4),
        "naive_lookup_cpu_s": round(naive["lookup"][1], 4),
        "inprocess_rss_mb": round(rss, 1),
    }


def run_naive_in_process(
    root: Path, n: int, own_a: bytes, own_b: bytes, mode: str
) -> tuple[float, float]:
    """The naive exchange in process: (wall s, CPU s) of serialising both sides' states,
    merging each into the other, and checkpointing both files."""
    a2 = MemoryStore(root / f"na{n}{mode}.db", node_id="a", synchronous="NORMAL")
    b2 = MemoryStore(root / f"nb{n}{mode}.db", node_id="b", synchronous="NORMAL")
    naive_merge(a2, own_a)  # the tables as the CRDT replicas had them: their own records
    naive_merge(b2, own_b)
    a2.checkpoint()
    b2.checkpoint()
    os.sync()
    gc.collect()
    cpu = time.process_time()
    start = time.perf_counter()
    # Each side's whole state, serialised at sync time (as the CRDT's diffs are cut).
    raw_a, raw_b = raw_json(a2), raw_json(b2)
    naive_merge(b2, raw_a, mode)
    naive_merge(a2, raw_b, mode)
    a2.checkpoint()
    b2.checkpoint()
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    assert len(a2.table_rows("notes")) == len(b2.table_rows("notes")) == 2 * n
    assert a2.search_index_matches() and b2.search_index_matches()
    a2.close()
    b2.close()
    return wall, used


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, __file__, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def serve(n: int, root: str) -> None:
    """Subprocess: the sync server, holding the user's replica (n records)."""
    from edgeloop.transport.auth import Principal
    from sync.server import SyncServerThread
    from sync.userstores import UserStores

    stores = UserStores(root, node_id="b", synchronous="NORMAL")
    fill(stores("bench"), n, 2)  # the store stays open, as on a running server
    gc.collect()
    with SyncServerThread(stores, tokens={"t": Principal("a", "bench")}) as server:
        print(server.port, flush=True)
        sys.stdin.readline()  # the device has filled its store and is about to sync
        cpu = time.process_time()  # (not while the server idled: gRPC polls)
        print("armed", flush=True)
        sys.stdin.readline()  # the device has synced
        stores("bench").checkpoint()  # its writes into the file, as the device's close does
        cpu = time.process_time() - cpu
        print(json.dumps({"rss": peak_rss_mb(), "cpu": cpu}), flush=True)
        sys.stdin.read()  # until the parent closes the pipe


def device(n: int, root: str, port: int) -> None:
    """Subprocess: the device, holding its replica (n records), syncing with the server."""
    import grpc

    from sync.client import sync_with

    store = MemoryStore(Path(root) / "device.db", node_id="a", synchronous="NORMAL")
    fill(store, n, 1)
    gc.collect()
    print("ready", flush=True)
    sys.stdin.readline()  # the server is measuring
    with grpc.insecure_channel(f"127.0.0.1:{port}", options=CLIENT_OPTIONS) as channel:
        cpu = time.process_time()
        start = time.perf_counter()
        result = sync_with(channel, store, "t", timeout=600)
        elapsed = time.perf_counter() - start
        store.checkpoint()  # its writes into the file (a device's close does it)
        cpu = time.process_time() - cpu
        again = sync_with(channel, store, "t")
    assert again.rounds == 0 and len(store.records("notes")) == 2 * n
    store.close()
    report = {"s": elapsed, "cpu": cpu, "rss": peak_rss_mb()}
    print(json.dumps({**report, "wire": result.bytes_sent + result.bytes_received}), flush=True)


def run_grpc(n: int, root: Path, attempt: int = 0) -> dict[str, Any]:
    """The real exchange over gRPC on 127.0.0.1 between two processes."""
    folder = root / f"grpc{n}-{attempt}"
    folder.mkdir()
    server = _spawn("--serve", str(n), str(folder / "server"))
    assert server.stdout is not None and server.stdin is not None
    port = int(server.stdout.readline())
    client = _spawn("--device", str(n), str(folder), str(port))
    assert client.stdout is not None and client.stdin is not None
    assert client.stdout.readline().strip() == "ready"
    server.stdin.write("go\n")
    server.stdin.flush()
    assert server.stdout.readline().strip() == "armed"
    client.stdin.write("go\n")
    client.stdin.flush()
    report = json.loads(client.stdout.readline())
    client.wait(60)
    server.stdin.write("synced\n")
    server.stdin.flush()
    served = json.loads(server.stdout.readline())
    server.stdin.close()
    server.wait(60)
    shutil.rmtree(folder)
    return {
        "sync_s": round(report["s"], 4),
        "grpc_cpu_s": round(report["cpu"] + served["cpu"], 4),
        "grpc_wire_bytes": report["wire"],
        "rss_mb": round(max(report["rss"], served["rss"]), 1),
    }


def _send_all(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(len(payload).to_bytes(8, "big") + payload)


def _receive_all(sock: socket.socket) -> bytes:
    size = int.from_bytes(_read_exactly(sock, 8), "big")
    return _read_exactly(sock, size)


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = sock.recv(min(left, 1 << 20))
        if not part:
            raise ConnectionError("peer closed the socket")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def naive_exchange(store: MemoryStore, sock: socket.socket, payload: bytes, mode: str) -> None:
    """Send our whole state while receiving the peer's, then write all of the peer's."""
    sender = threading.Thread(target=_send_all, args=(sock, payload))
    sender.start()
    peer = _receive_all(sock)
    sender.join()
    naive_merge(store, peer, mode)


def naive_peer(n: int, root: str, role: str, port: int, mode: str) -> None:
    """Subprocess: one replica of the naive sync (``listen`` or ``connect``)."""
    seed, node = (2, "b") if role == "listen" else (1, "a")
    store = MemoryStore(Path(root) / f"naive-{node}.db", node_id=node, synchronous="NORMAL")
    fill(store, n, seed)
    naive_merge(store, raw_json(store))  # the table as the CRDT replica has it: its own
    store.checkpoint()
    os.sync()
    gc.collect()
    if role == "listen":
        with socket.create_server(("127.0.0.1", 0)) as server:
            cpu = time.process_time()
            print(server.getsockname()[1], flush=True)
            conn, _ = server.accept()
            with conn:
                naive_exchange(store, conn, raw_json(store), mode)  # serialised now
                conn.sendall(b"k")  # merged
            store.checkpoint()
            cpu = time.process_time() - cpu
        print(json.dumps({"rss": peak_rss_mb(), "cpu": cpu}), flush=True)
    else:
        with socket.create_connection(("127.0.0.1", port)) as conn:
            cpu = time.process_time()
            start = time.perf_counter()
            naive_exchange(store, conn, raw_json(store), mode)
            _read_exactly(conn, 1)  # the peer has merged too
            elapsed = time.perf_counter() - start
            store.checkpoint()
            cpu = time.process_time() - cpu
        print(json.dumps({"s": elapsed, "cpu": cpu, "rss": peak_rss_mb()}), flush=True)
    assert len(store.table_rows("notes")) == 2 * n
    store.close()


def run_naive(n: int, root: Path, attempt: int = 0, mode: str = "upsert") -> dict[str, Any]:
    """The naive sync between two processes over TCP on 127.0.0.1."""
    folder = root / f"naive{n}-{attempt}-{mode}"
    folder.mkdir()
    listener = _spawn("--naive", "listen", str(n), str(folder), "0", mode)
    assert listener.stdout is not None
    port = int(listener.stdout.readline())
    connector = _spawn("--naive", "connect", str(n), str(folder), str(port), mode)
    assert connector.stdout is not None
    report = json.loads(connector.stdout.readline())
    connector.wait(60)
    listened = json.loads(listener.stdout.readline())
    listener.wait(60)
    shutil.rmtree(folder)
    prefix = "naive" if mode == "upsert" else f"naive_{mode}"
    return {
        f"{prefix}_sync_s": round(report["s"], 4),
        f"{prefix}_grpc_cpu_s": round(report["cpu"] + listened["cpu"], 4),
        f"{prefix}_rss_mb": round(max(report["rss"], listened["rss"]), 1),
    }


def ratio(a: float, b: float) -> str:
    return f"{a / max(b, 1e-9):.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--in-process", action="store_true", help="skip the two-process runs")
    parser.add_argument(
        "--loaded", action="store_true", help="replicas hold their whole document before syncing"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="two-process runs per size (medians reported)"
    )
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--device", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--naive", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.loaded:
        global LOADED
        LOADED = True
        os.environ["SYNC_BENCH_LOADED"] = "1"  # for the two-process runs' children
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    if args.device:
        device(int(args.device[0]), args.device[1], int(args.device[2]))
        return
    if args.naive:
        naive_peer(
            int(args.naive[1]), args.naive[2], args.naive[0], int(args.naive[3]), args.naive[4]
        )
        return
    summary: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            # In process too: several runs (each CRDT, then naive), medians.
            local = [run_in_process(n, Path(tmp)) for _ in range(args.repeat)]
            r = {k: statistics.median(run[k] for run in local) for k in local[0]}
            r["rounds"] = local[0]["rounds"]
            for key in ("wire_bytes", "raw_json_bytes", "diff_bytes_per_record"):
                r[key] = local[0][key]
            if args.repeat > 1:
                cpu = ", ".join(
                    f"{run['sync_cpu_s']:.3f}/{run['naive_cpu_s']:.3f}"
                    f"/{run['naive_lookup_cpu_s']:.3f}"
                    f" ({ratio(run['sync_cpu_s'], run['naive_cpu_s'])},"
                    f" {ratio(run['sync_cpu_s'], run['naive_lookup_cpu_s'])})"
                    for run in local
                )
                print(
                    f"{n:>7} records/side, in-process runs, CPU s CRDT/naive/naive with"
                    f" look-up: {cpu}"
                )
            if args.in_process:
                r.update(
                    sync_s=r["inprocess_sync_s"],
                    naive_sync_s=r["inprocess_naive_s"],
                    rss_mb=r["inprocess_rss_mb"],
                )
            else:
                # Alternating runs, medians: the machine is shared and noisy.
                runs = [
                    {
                        **run_grpc(n, Path(tmp), i),
                        **run_naive(n, Path(tmp), i),
                        **run_naive(n, Path(tmp), i, "lookup"),
                    }
                    for i in range(args.repeat)
                ]
                for key in (
                    "sync_s",
                    "naive_sync_s",
                    "rss_mb",
                    "naive_rss_mb",
                    "grpc_cpu_s",
                    "naive_grpc_cpu_s",
                    "naive_lookup_sync_s",
                    "naive_lookup_grpc_cpu_s",
                ):
                    r[key] = statistics.median(run[key] for run in runs)
                r["grpc_wire_bytes"] = runs[0]["grpc_wire_bytes"]
                if args.repeat > 1:
                    crdt = ", ".join(f"{run['sync_s']:.3f}" for run in runs)
                    naive = ", ".join(f"{run['naive_sync_s']:.3f}" for run in runs)
                    print(f"{n:>7} records/side, real sync runs: CRDT {crdt} s; naive {naive} s")
                    cpu = ", ".join(
                        f"{run['grpc_cpu_s']:.3f}/{run['naive_grpc_cpu_s']:.3f}"
                        f"/{run['naive_lookup_grpc_cpu_s']:.3f}"
                        for run in runs
                    )
                    print(
                        f"{n:>7} records/side, real sync runs, CPU s of both processes"
                        f" (CRDT/naive/naive with look-up): {cpu}"
                    )
                print(
                    f"{n:>7} records/side, real sync (two processes on 127.0.0.1, both"
                    f" merging at once): CRDT over gRPC {r['sync_s']:.3f}s, naive JSON over"
                    f" TCP {r['naive_sync_s']:.3f}s"
                    f" (CRDT/naive {ratio(r['sync_s'], r['naive_sync_s'])}); CPU of both"
                    f" processes {r['grpc_cpu_s']:.3f}s vs {r['naive_grpc_cpu_s']:.3f}s"
                    f" ({ratio(r['grpc_cpu_s'], r['naive_grpc_cpu_s'])}; naive with look-up"
                    f" {r['naive_lookup_sync_s']:.3f}s, CPU {r['naive_lookup_grpc_cpu_s']:.3f}s:"
                    f" {ratio(r['grpc_cpu_s'], r['naive_lookup_grpc_cpu_s'])});"
                    f" peak RSS {r['rss_mb']} MB (naive {r['naive_rss_mb']} MB)",
                    flush=True,
                )
            print(
                f"{n:>7} records/side, in process (one side after the other): sync"
                f" {r['inprocess_sync_s']:.3f}s (produce {r['produce_s']:.3f}s, apply"
                f" {r['apply_s']:.3f}s, {r['rounds']} rounds), naive"
                f" {r['inprocess_naive_s']:.3f}s"
                f" ({ratio(r['inprocess_sync_s'], r['inprocess_naive_s'])});"
                f" CPU {r['sync_cpu_s']:.3f}s vs {r['naive_cpu_s']:.3f}s"
                f" ({ratio(r['sync_cpu_s'], r['naive_cpu_s'])}, ratio of medians; naive with"
                f" look-up {r['naive_lookup_cpu_s']:.3f}s:"
                f" {ratio(r['sync_cpu_s'], r['naive_lookup_cpu_s'])});"
                f" wire {r['wire_bytes']} B ="
                f" {r['diff_bytes_per_record']} B/record ="
                f" {ratio(r['wire_bytes'], r['raw_json_bytes'])} raw JSON",
                flush=True,
            )
            keys = (
                "sync_s",
                "wire_bytes",
                "raw_json_bytes",
                "naive_sync_s",
                "rss_mb",
                "inprocess_sync_s",
                "inprocess_naive_s",
                "sync_cpu_s",
                "naive_cpu_s",
            )
            summary[str(n)] = {k: r[k] for k in keys}
            out = summary[str(n)]
            out["naive_lookup_cpu_s"] = r["naive_lookup_cpu_s"]
            out["cpu_ratio"] = round(r["sync_cpu_s"] / r["naive_cpu_s"], 3)
            out["cpu_ratio_lookup"] = round(r["sync_cpu_s"] / r["naive_lookup_cpu_s"], 3)
            if not args.in_process:
                out["real_cpu_s"] = r["grpc_cpu_s"]
                out["real_naive_cpu_s"] = r["naive_grpc_cpu_s"]
                out["real_naive_lookup_cpu_s"] = r["naive_lookup_grpc_cpu_s"]
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
