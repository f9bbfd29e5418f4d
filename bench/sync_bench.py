"""Sync benchmark: N records written offline on each of two replicas, then merged.

For N in 1k, 10k, 100k (``--sizes`` to change): each replica writes N notes offline (in
batches, as a device does when it imports), then they sync both ways with the real
exchange (state vectors, then state-vector diffs, rounds until equal; in-process, no
network, so the figures are the protocol's and the store's, not the loopback's).

Printed per size: diff bytes per record, time to produce and to apply the diffs, total
sync time, RSS, and the naive alternative (each side ships its whole state as JSON and the
other upserts every record into the same tables) side by side as ratios.

Last line: {"1000": {"sync_s", "wire_bytes", "raw_json_bytes", "naive_sync_s", "rss_mb"}, ...}

    python bench/sync_bench.py [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

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


def run(n: int, root: Path) -> dict[str, Any]:
    a = MemoryStore(root / f"a{n}.db", node_id="a", synchronous="NORMAL")
    b = MemoryStore(root / f"b{n}.db", node_id="b", synchronous="NORMAL")
    fill(a, n, 1)
    fill(b, n, 2)
    raw_a, raw_b = raw_json(a), raw_json(b)
    raw_bytes = len(raw_a) + len(raw_b)
    gc.collect()

    produce = apply = 0.0
    wire = rounds = 0
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
    rss = rss_mb()
    assert a.document_json() == b.document_json()
    assert len(a.records("notes")) == 2 * n

    # naive: ship the whole JSON state both ways and upsert everything on each side
    a2 = MemoryStore(root / f"na{n}.db", node_id="a", synchronous="NORMAL")
    b2 = MemoryStore(root / f"nb{n}.db", node_id="b", synchronous="NORMAL")
    naive_merge(a2, raw_a)
    naive_merge(b2, raw_b)
    start = time.perf_counter()
    to_b_json = a2_payload = raw_a
    naive_merge(b2, to_b_json)
    naive_merge(a2, raw_b)
    naive_s = time.perf_counter() - start
    del a2_payload
    for s in (a, b, a2, b2):
        s.close()
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
        "rss_mb": round(rss, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    summary: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            r = run(n, Path(tmp))
            print(
                f"{n:>7} records/side: sync {r['sync_s']:.3f}s (produce {r['produce_s']:.3f}s,"
                f" apply {r['apply_s']:.3f}s, {r['rounds']} rounds), wire {r['wire_bytes']} B"
                f" = {r['diff_bytes_per_record']} B/record,"
                f" {r['wire_bytes'] / r['raw_json_bytes']:.2f}x"
                f" raw JSON; naive JSON both ways {r['naive_sync_s']:.3f}s"
                f" (CRDT/naive time {r['sync_s'] / max(r['naive_sync_s'], 1e-9):.2f}x);"
                f" RSS {r['rss_mb']} MB",
                flush=True,
            )
            summary[str(n)] = {
                k: r[k]
                for k in ("sync_s", "wire_bytes", "raw_json_bytes", "naive_sync_s", "rss_mb")
            }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
