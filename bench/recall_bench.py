"""Recall benchmark: queries per second over 100k and 1M stored steps.

Fills a store through its public API (``save_steps`` in batches: CRDT document, update
log, SQLite view, FTS5 and a 384-float embedding per step, like the edge encoder's),
then runs the same queries two ways:

- FTS5 alone: FTS5 candidates scored by BM25 and term coverage, decay, no embeddings;
- combined: the same candidates re-ranked with the stored embeddings (cosine against the
  query's embedding, which is computed per query) — never a scan over every vector.

Both use the store's search (``sync.recall.search``) with warm caches (document
frequencies, as a running store keeps them); each is timed over three passes of the
queries and the median pass is reported.

The embedder is a deterministic hashing embedder (the real ONNX encoder costs ~ms per
text, which would measure the encoder, not the store). Queries are two or three words
of a stored step, single-threaded. Printed: qps, p50/p95 latency, hits per query, size.

Last line: {"100000": {"fts_qps", "combined_qps", "p50_ms", "db_mb"}, "1000000": {...}}
(``p50_ms`` is the combined search's median; ``combined_cpu_qps``, extra, counts queries
per CPU second, which is what one idle core would serve on a busy machine).

    python bench/recall_bench.py [--sizes 100000,1000000] [--queries 2000] [--dim 384]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf.timestamp_pb2 import Timestamp

from edgeloop.v1 import agent_pb2 as pb
from sync import MemoryStore
from sync.recall import NoteVectors, TermStats, search

CITIES = [
    "oslo",
    "rome",
    "paris",
    "tokyo",
    "lima",
    "cairo",
    "delhi",
    "sydney",
    "boston",
    "madrid",
    "berlin",
    "dublin",
]
CONDITIONS = ["sunny", "cloudy", "rainy", "snowy", "windy", "foggy"]
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "ta",
    "vo",
    "shi",
    "den",
    "gar",
    "pel",
    "quin",
    "sor",
    "tam",
    "uv",
    "bex",
]


def make_vocab(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choices(SYLLABLES, k=rng.randint(2, 4))))
    return sorted(words)


def make_embedder(dim: int) -> Callable[[str], np.ndarray]:
    cache: dict[str, np.ndarray] = {}

    def word_vec(word: str) -> np.ndarray:
        vec = cache.get(word)
        if vec is None:
            seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            vec = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
            cache[word] = vec
        return vec

    def embed(text: str) -> np.ndarray:
        words = text.lower().split()
        if not words:
            return np.zeros(dim, dtype=np.float32)
        return np.sum([word_vec(w) for w in words], axis=0)

    return embed


def make_step(rng: random.Random, vocab: list[str], session: str, index: int) -> pb.ReactStep:
    kind = rng.random()
    if kind < 0.25:
        a, b = rng.randint(1, 999), rng.randint(1, 999)
        tool, content = "calculator", f"{a} times {b} is {a * b}"
    elif kind < 0.5:
        city, cond = rng.choice(CITIES), rng.choice(CONDITIONS)
        tool, content = "get_weather", f"weather in {city}: {cond}, {rng.randint(-10, 35)} degrees"
    elif kind < 0.75:
        tool, content = "search", " ".join(rng.choices(vocab, k=rng.randint(8, 14)))
    else:
        tool, content = "", "the user asked about " + " ".join(rng.choices(vocab, k=5))
    created = Timestamp()
    created.FromSeconds(int(time.time()) - rng.randint(0, 90 * 86_400))
    return pb.ReactStep(
        session_id=session,
        step_index=index,
        step_type=pb.STEP_TYPE_OBSERVATION,
        tool=tool,
        act_id=f"{index:08x}",
        content=content,
        created_at=created,
    )


def fill(store: MemoryStore, n: int, rng: random.Random, vocab: list[str]) -> list[str]:
    contents: list[str] = []
    batch = 5_000
    started = time.perf_counter()
    for start in range(0, n, batch):
        session = f"s{start // batch}"
        steps = [make_step(rng, vocab, session, i) for i in range(start, min(n, start + batch))]
        store.save_steps(session, steps)
        contents.extend(s.content for s in steps[:: max(1, batch // 200)])
        if (start // batch) % 20 == 19:
            rate = (start + batch) / (time.perf_counter() - started)
            print(f"  filled {start + batch} steps ({rate:.0f}/s)", flush=True)
    store.compact()
    store.checkpoint()  # a store at rest: no background checkpoint during the queries
    return contents


def make_queries(rng: random.Random, contents: list[str], count: int) -> list[str]:
    queries = []
    for _ in range(count):
        words = [w.strip(":,") for w in rng.choice(contents).split()]
        words = [w for w in words if w.isalnum() and w not in {"the", "user", "asked", "about"}]
        queries.append(" ".join(rng.sample(words, k=min(len(words), rng.choice((2, 3))))))
    return queries


def timed(
    queries: list[str], run: Callable[[str], list[Any]], passes: int = 3
) -> tuple[float, list[float], float, float]:
    """(queries per second by the wall clock, latencies in ms, hits per query,
    queries per second of CPU time — what an idle core would do), from the median of
    ``passes`` timed passes over the queries (the machine is shared and noisy: a fresh
    store's pages are still being written back while the first pass runs)."""
    for q in queries:
        run(q)  # warm the page cache and the document-frequency cache
    results = []
    for _ in range(passes):
        latencies = []
        hits = 0
        cpu = time.process_time()
        start = time.perf_counter()
        for q in queries:
            t0 = time.perf_counter()
            hits += len(run(q))
            latencies.append((time.perf_counter() - t0) * 1000)
        total = time.perf_counter() - start
        cpu = time.process_time() - cpu
        results.append(
            (len(queries) / total, latencies, hits / len(queries), len(queries) / max(cpu, 1e-9))
        )
    results.sort(key=lambda r: r[0])
    return results[len(results) // 2]


def db_mb(path: Path) -> float:
    files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
    return sum(f.stat().st_size for f in files if f.exists()) / 1e6


def bench(n: int, root: Path, queries_n: int, dim: int) -> dict[str, Any]:
    rng = random.Random(n)
    vocab = make_vocab(rng, 20_000)
    embedder = make_embedder(dim)
    path = root / f"recall{n}.db"
    store = MemoryStore(path, embedder=embedder, synchronous="NORMAL")
    t0 = time.perf_counter()
    contents = fill(store, n, rng, vocab)
    fill_s = time.perf_counter() - t0
    queries = make_queries(rng, contents, queries_n)
    conn = store.db.conn
    vectors, stats = NoteVectors(), TermStats()
    fts_qps, fts_lat, fts_hits, fts_cpu_qps = timed(
        queries, lambda q: search(conn, q, term_stats=stats)
    )
    comb_qps, comb_lat, comb_hits, comb_cpu_qps = timed(
        queries,
        lambda q: search(conn, q, embedder=embedder, note_vectors=vectors, term_stats=stats),
    )
    size = db_mb(path)
    store.close()
    size = max(size, db_mb(path))
    result = {
        "fts_qps": round(fts_qps, 1),
        "combined_qps": round(comb_qps, 1),
        "p50_ms": round(statistics.median(comb_lat), 3),
        "db_mb": round(size, 1),
        "combined_cpu_qps": round(comb_cpu_qps, 1),
    }
    print(
        f"{n:>8} steps (filled in {fill_s:.0f}s): FTS5 {fts_qps:.0f} q/s"
        f" (p50 {statistics.median(fts_lat):.2f} ms, {fts_hits:.1f} hits/q);"
        f" combined {comb_qps:.0f} q/s (p50 {result['p50_ms']:.2f} ms,"
        f" p95 {statistics.quantiles(comb_lat, n=20)[-1]:.2f} ms, {comb_hits:.1f} hits/q);"
        f" per CPU second: FTS5 {fts_cpu_qps:.0f} q, combined {comb_cpu_qps:.0f} q;"
        f" db {result['db_mb']} MB",
        flush=True,
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--dir", default=None, help="where to put the databases (default: tmp)")
    args = parser.parse_args()
    summary = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            summary[str(n)] = bench(n, Path(tmp), args.queries, args.dim)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
