"""Memory at scale: what a device pays as its memory grows from nothing to a million records.

For memories of 0, 10k, 100k and 1M records (notes and sessions with their steps and
receipts, about one note in ten, written over three years), prints:

- a cold ``edge-agent ask`` (a new process, as a user runs it) of a calculator query and
  of a note search: wall time, CPU time and peak RSS (median of ``--repeat`` runs each);
- the store's open time (``MemoryStore(path)``, in process, median of 5);
- a cold edit (a new process that opens the store and edits the newest note, as an
  ``ask`` that updates a record does): wall time, peak RSS, and whether it had to load
  the CRDT document (it does not when the note's own Yjs item is known: schema v7);
- an incremental sync of 100 new records per side (device and cloud replicas that share
  the memory, each then writing 100 records): time and bytes both ways, against the JSON
  of the 200 records. Measured twice: ``cold``, the first exchange of stores just opened
  (``edge-agent sync`` right after a device starts: the case that matters; median of
  ``--repeat`` rounds, each on fresh copies flushed to disk first, with its CPU time and
  slowest round), and ``warm``, 100 more records a side on the same open stores (a
  long-running server, or the same sync a moment later: how the issue measured 12 ms
  at 100k; median of 3);
- the same cold sync after the device's retention pass (history older than 90 days out
  of the document, as a device keeps it: ``MemoryStore.device``), and
- the database's size on disk.

Memories are built with the store's bulk path (``put_records`` in large transactions)
and cached between runs in ``$TMPDIR/edgeloop-memory-scale`` (1M records take a few
minutes to build on 2 cores; ``--rebuild`` forces it). Every measurement runs on a copy.

Last line: ``{"0": {...}, "10000": {...}, "100000": {...}, "1000000": {...}}`` with the keys
``cold_ask_s``, ``cold_ask_rss_mb``, ``search_s``, ``open_s``, ``incremental_sync_s``
and ``incremental_sync_bytes`` (both ways; of the cold sync, stores just opened) and
``db_mb``.

    python bench/memory_scale.py [--sizes 0,10000,100000,1000000] [--repeat 3] [--rebuild]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sync import MemoryStore, sync_stores
from sync.retention import DEVICE_HISTORY_DAYS
from sync.views import iso

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(tempfile.gettempdir()) / "edgeloop-memory-scale" / "v3"  # v3: own_items
CALCULATOR = "what's 15% of 80"
SEARCH = "what did i note about the blue bicycle"
YEARS = 3
CHUNK = 50_000  # records per transaction (and per store opening) while building

WORDS = (  # noqa: SIM905
    "call mum about the weekend remember dentist friday buy oat milk bread eggs pay rent "
    "book train to oslo kitchen light boiler pressure passport renew garden seeds tomatoes "
    "water plants meeting notes project deadline birthday present sister gym shoes return "
    "parcel library books recipe lasagne insurance car service tyres bicycle lock code "
    "blue red green wifi password guest router school pickup thursday swimming lesson"
).split()
TOOLS = ("calculator", "get_weather", "world_clock", "unit_convert", "set_timer")


def _ms_id(ms: int, rng: random.Random) -> str:
    return f"{ms:012x}{rng.getrandbits(79):020x}"


def _iso_ms(ms: int) -> str:
    moment = datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)
    return iso(moment)


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(low, high)))


def records_for(n: int, seed: int, start_ms: int, end_ms: int) -> list[tuple[str, str, Any]]:
    """``n`` records ``(kind, id, data)`` in time order between two instants: about one
    note in ten, the rest sessions of 4 steps and a receipt (6 records each)."""
    rng = random.Random(seed)
    out: list[tuple[str, str, Any]] = []
    span = max(end_ms - start_ms, 1)
    count = 0
    while count < n:
        ms = start_ms + span * count // max(n, 1)
        if rng.random() < 0.1 or n - count < 6:
            text = _text(rng, 6, 14)
            if rng.random() < 0.02:  # something the note search will look for
                text = f"the blue bicycle {text}"
            note = {"text": text, "source_act_id": None, "created_at": _iso_ms(ms)}
            out.append(("notes", _ms_id(ms, rng), note))
            count += 1
            continue
        sid = uuid.UUID(int=rng.getrandbits(128)).hex
        when = _iso_ms(ms)
        tool = rng.choice(TOOLS)
        contents = [f"Use {tool}", f"{tool} {_text(rng, 2, 5)}", _text(rng, 3, 8),
                    _text(rng, 4, 10)]  # fmt: skip
        for index, content in enumerate(contents):
            step = {"sessionId": sid, "stepIndex": index, "stepType": ("STEP_TYPE_THOUGHT",
                    "STEP_TYPE_ACTION", "STEP_TYPE_OBSERVATION", "STEP_TYPE_FINAL_ANSWER")[index],
                    "content": content, "tool": tool, "actId": "a1"}  # fmt: skip
            step_id = f"{sid}:0000:{index:05d}:{index + 1}:a1"
            out.append(("steps", step_id, {"step": step, "created_at": when}))
        out.append(("receipts", f"r{sid}",
                    {"receipt": {"receiptId": f"r{sid}", "sessionId": sid,
                                 "query": contents[2], "answer": contents[3]},
                     "created_at": when}))  # fmt: skip
        out.append(("sessions", sid,
                    {"device_id": "device", "created_at": when, "query": contents[2],
                     "final_answer": contents[3], "success": True, "state": "completed",
                     "data": None}))  # fmt: skip
        count += 6
    return out


def write(path: Path, records: list[tuple[str, str, Any]]) -> None:
    """Write records with the bulk path: one transaction per chunk, each in a new opening
    of the store (as many devices' days would), grouped by kind."""
    for start in range(0, len(records), CHUNK):
        with MemoryStore(path, node_id="device", synchronous="OFF") as store:
            by_kind: dict[str, dict[str, Any]] = {}
            for kind, record_id, data in records[start : start + CHUNK]:
                by_kind.setdefault(kind, {})[record_id] = data
            with store.batch():
                for kind, batch in by_kind.items():
                    store.put_records(kind, batch)
            store.checkpoint()


def build(n: int, rebuild: bool) -> Path:
    """The cached memory of ``n`` records (built once; ``device.db``)."""
    folder = CACHE / str(n)
    done = folder / "complete"
    if done.exists() and not rebuild:
        optimise(folder / "device.db")
        return folder / "device.db"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    now_ms = int(time.time() * 1000) - 3_600_000
    started = time.perf_counter()
    records = records_for(n, seed=n, start_ms=now_ms - YEARS * 365 * 86_400_000, end_ms=now_ms)
    write(folder / "device.db", records)
    if n == 0:
        MemoryStore(folder / "device.db", node_id="device").close()
    optimise(folder / "device.db")
    done.write_text(f"{time.perf_counter() - started:.1f} s\n")
    print(f"  built {n:,} records in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return folder / "device.db"


def optimise(path: Path) -> None:
    """Merge the full-text index into one segment, as the store's compaction does on a
    device (the bulk build leaves one segment per chunk, which later merges would pay)."""
    marker = path.with_name("optimised")
    if marker.exists():
        return
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO recall_fts (recall_fts) VALUES ('optimize')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    marker.write_text("")


def retained(n: int, source: Path) -> Path:
    """The same memory after a device's retention pass (history older than
    DEVICE_HISTORY_DAYS out of the document, rows kept) and a snapshot: its steady state."""
    target = source.with_name("retained.db")
    done = source.with_name("retained-complete")
    if done.exists() and done.stat().st_mtime >= source.stat().st_mtime:
        return target
    copy_store(source, target)
    started = time.perf_counter()
    with MemoryStore(target, synchronous="OFF", history_days=DEVICE_HISTORY_DAYS) as store:
        store.retire()
        store.compact()
        store.checkpoint()
    done.write_text(f"{time.perf_counter() - started:.1f} s\n")
    return target


def copy_store(source: Path, target: Path, node_id: str | None = None) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, target)
    if node_id is not None:
        conn = sqlite3.connect(target)
        with conn:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'node_id'", [node_id])
        conn.close()


# Runs `edge-agent` in the child and writes its peak RSS (VmHWM, kB) to the file named by
# $HWM_FILE at exit. The child's rusage cannot be used: after a fork, ru_maxrss starts
# from the parent's resident size, and this process holds large memories.
_WRAPPER = """
import atexit, os, runpy, sys
def hwm():
    cpu = sum(os.times()[:2])
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            open(os.environ['HWM_FILE'], 'w').write(f"{line.split()[1]} {cpu}")
atexit.register(hwm)
sys.argv = ['edge-agent', *sys.argv[1:]]
runpy.run_module('edge_agent', run_name='__main__')
"""


def run_measured(arguments: list[str]) -> tuple[float, float, str, float]:
    """Wall seconds, peak RSS (MB), stdout's last line and CPU seconds (user + system:
    what a busy machine's other jobs do not inflate) of one ``edge-agent`` run."""
    with tempfile.TemporaryDirectory() as folder:
        hwm = Path(folder) / "hwm"
        env = {**os.environ, "HWM_FILE": str(hwm)}
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _WRAPPER, *arguments], capture_output=True, env=env
        )
        wall = time.perf_counter() - started
        if done.returncode:
            raise RuntimeError(f"edge-agent {arguments[0]} failed: {done.stderr.decode()[-400:]}")
        kb, cpu = hwm.read_text().split()
    lines = done.stdout.decode().strip().splitlines()
    return wall, int(kb) / 1024, lines[-1] if lines else "", float(cpu)


# A cold edit: open the store, edit the newest note, report (wall s, peak RSS kB, loaded).
_EDIT = """
import sys, time
started = time.perf_counter()
from sync import MemoryStore
store = MemoryStore(sys.argv[1])
row = store.db.execute("SELECT id FROM notes ORDER BY id DESC LIMIT 1").fetchone()
if row is not None:
    store.update_note(row[0], "the blue bicycle lock code changed")
loaded = store.document_loaded
store.close()
wall = time.perf_counter() - started
hwm = next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:'))
print(wall, hwm, int(loaded))
"""


def cold_edits(memory: Path, repeat: int) -> tuple[float, float, bool]:
    """Median wall seconds, peak RSS (MB) and whether the document was loaded, of
    ``repeat`` cold processes that each edit the newest note."""
    runs = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", _EDIT, str(memory)], capture_output=True, check=True
        )
        wall, kb, loaded = done.stdout.decode().split()
        runs.append((float(wall), int(kb) / 1024, loaded == "1"))
    return (
        statistics.median(r[0] for r in runs),
        max(r[1] for r in runs),
        any(r[2] for r in runs),
    )


def asks(memory: Path, query: str, repeat: int) -> tuple[float, float, str, float]:
    runs = [run_measured(["ask", query, "--memory", str(memory)]) for _ in range(repeat)]
    return (
        statistics.median(r[0] for r in runs),
        max(r[1] for r in runs),
        runs[-1][2],
        statistics.median(r[3] for r in runs),
    )


def open_time(path: Path) -> float:
    times = []
    for _ in range(5):
        started = time.perf_counter()
        store = MemoryStore(path)
        times.append(time.perf_counter() - started)
        store.close()
    return statistics.median(times)


def new_records(seed: int) -> list[tuple[str, str, Any]]:
    now_ms = int(time.time() * 1000)
    return records_for(100, seed=seed, start_ms=now_ms - 60_000, end_ms=now_ms)


def records_json(records: list[tuple[str, str, Any]]) -> int:
    payload = [{"kind": k, "id": i, **d} for k, i, d in records]
    return len(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode())


def put_all(store: MemoryStore, records: list[tuple[str, str, Any]]) -> None:
    with store.batch():
        for kind, record_id, data in records:
            store.put_record(kind, record_id, data)


def incremental_sync(source: Path, work: Path, seed: int, rounds: int) -> dict[str, float]:
    """Device and cloud share ``source``; each writes 100 records; then they sync.

    ``cold``: the first exchange of stores just opened (as ``edge-agent sync`` and a
    cloud that had closed the store run it), median of ``rounds`` rounds, each on fresh
    copies; ``warm``: 100 more records a side with the stores still open (median of 3).
    Before each cold exchange the copies and the offline writes are flushed to disk
    (``os.sync``): a device that starts has no gigabytes of its own file waiting for
    writeback, which the copies just made would otherwise put in the timed window."""
    device, cloud = work / "sync-device.db", work / "sync-cloud.db"
    cold_runs: list[tuple[float, float, int, int]] = []
    warm_s, warm_bytes, json_bytes = 0.0, 0, 0
    for round_no in range(rounds):
        copy_store(source, device)
        copy_store(source, cloud, node_id="cloud")
        base = seed + 10 * round_no
        mine, theirs = new_records(base), new_records(base + 1)
        with MemoryStore(device) as a, MemoryStore(cloud) as b:
            put_all(a, mine)
            put_all(b, theirs)
        os.sync()
        with MemoryStore(device) as a, MemoryStore(cloud) as b:
            cpu = time.process_time()
            started = time.perf_counter()
            cold = sync_stores(a, b)
            cold_s = time.perf_counter() - started
            cold_runs.append(
                (
                    cold_s,
                    time.process_time() - cpu,
                    cold.bytes_sent + cold.bytes_received,
                    records_json(mine) + records_json(theirs),
                )
            )
            if round_no == 0:  # warm: documents as they are, 100 more records per side
                times = []
                for warm_no in range(3):
                    mine2 = new_records(base + 2 + 2 * warm_no)
                    theirs2 = new_records(base + 3 + 2 * warm_no)
                    put_all(a, mine2)
                    put_all(b, theirs2)
                    started = time.perf_counter()
                    warm = sync_stores(a, b)
                    times.append(time.perf_counter() - started)
                warm_s = statistics.median(times)
                warm_bytes = warm.bytes_sent + warm.bytes_received
                json_bytes = records_json(mine2) + records_json(theirs2)
            assert a.state_vector() == b.state_vector() or a.document_json() == b.document_json()
        for path in (device, cloud):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
    return {
        "cold_s": statistics.median(r[0] for r in cold_runs),
        "cold_max_s": max(r[0] for r in cold_runs),
        "cold_cpu_s": statistics.median(r[1] for r in cold_runs),
        "cold_bytes": cold_runs[-1][2],
        "warm_s": warm_s,
        "warm_bytes": warm_bytes,
        "json_bytes": json_bytes,
        "cold_json_bytes": cold_runs[-1][3],
    }


def db_mb(path: Path) -> float:
    return sum(
        Path(f"{path}{s}").stat().st_size for s in ("", "-wal") if Path(f"{path}{s}").exists()
    ) / (1 << 20)


def measure(n: int, repeat: int, rebuild: bool, work: Path) -> dict[str, Any]:
    source = build(n, rebuild)
    memory = work / "edge.db"
    copy_store(source, memory)
    ask_s, ask_rss, ask_line, ask_cpu = asks(memory, CALCULATOR, repeat)
    search_s, search_rss, search_line, search_cpu = asks(memory, SEARCH, repeat)
    edit_s, edit_rss, edit_loaded = cold_edits(memory, repeat)
    sync = incremental_sync(source, work, seed=7 + n, rounds=repeat)
    kept = incremental_sync(retained(n, source), work, seed=11 + n, rounds=repeat)
    result = {
        "cold_ask_s": round(ask_s, 3),
        "cold_ask_rss_mb": round(ask_rss, 1),
        "search_s": round(search_s, 3),
        "search_rss_mb": round(search_rss, 1),
        "cold_ask_cpu_s": round(ask_cpu, 3),
        "search_cpu_s": round(search_cpu, 3),
        "open_s": round(open_time(memory), 4),
        "cold_edit_s": round(edit_s, 3),
        "cold_edit_rss_mb": round(edit_rss, 1),
        "cold_edit_loads_document": edit_loaded,
        "incremental_sync_s": round(sync["cold_s"], 4),  # stores just opened
        "incremental_sync_bytes": int(sync["cold_bytes"]),
        "incremental_sync_json_bytes": int(sync["cold_json_bytes"]),
        "incremental_sync_max_s": round(sync["cold_max_s"], 4),
        "incremental_sync_cpu_s": round(sync["cold_cpu_s"], 4),
        "warm_incremental_sync_s": round(sync["warm_s"], 4),
        "warm_incremental_sync_bytes": int(sync["warm_bytes"]),
        "warm_incremental_sync_json_bytes": int(sync["json_bytes"]),
        "retained_cold_sync_s": round(kept["cold_s"], 4),
        "retained_warm_sync_s": round(kept["warm_s"], 4),
        "db_mb": round(db_mb(source), 1),
        "answers": [ask_line, search_line],
    }
    for suffix in ("", "-wal", "-shm"):
        Path(f"{memory}{suffix}").unlink(missing_ok=True)
    return result


KEYS = (
    "cold_ask_s",
    "cold_ask_rss_mb",
    "search_s",
    "open_s",
    "incremental_sync_s",
    "incremental_sync_bytes",
    "db_mb",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached memories")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="memory-scale-") as folder:
        for n in sizes:
            results[str(n)] = measure(n, args.repeat, args.rebuild, Path(folder))
            print(f"  {n:,}: {results[str(n)]}", file=sys.stderr)
    base = results.get("0")
    print(
        f"{'records':>9} | {'ask s':>6} | {'ask MB':>6} | {'search s':>8} | {'open ms':>7} |"
        f" {'sync ms (max; CPU)':>19} | {'bytes / JSON':>12} | {'warm ms':>7} |"
        f" {'90 days ms':>10} | {'edit s (MB)':>12} | {'db MB':>7}"
    )
    for n, r in results.items():
        ratio = r["incremental_sync_bytes"] / r["incremental_sync_json_bytes"]
        print(
            f"{int(n):>9,} | {r['cold_ask_s']:>6.2f} | {r['cold_ask_rss_mb']:>6.0f} |"
            f" {r['search_s']:>8.2f} | {r['open_s'] * 1000:>7.1f} |"
            f" {r['incremental_sync_s'] * 1000:>5.1f} ({r['incremental_sync_max_s'] * 1000:>4.1f};"
            f" {r['incremental_sync_cpu_s'] * 1000:>4.1f}) | {ratio:>11.2f}x |"
            f" {r['warm_incremental_sync_s'] * 1000:>7.1f} |"
            f" {r['retained_cold_sync_s'] * 1000:>10.1f} |"
            f" {r['cold_edit_s']:>5.2f} ({r['cold_edit_rss_mb']:>4.0f}) | {r['db_mb']:>7.1f}"
        )
    if base:
        for n, r in results.items():
            print(
                f"{int(n):>9,}: ask {r['cold_ask_s'] / base['cold_ask_s']:.2f}x empty"
                f" (CPU {r['cold_ask_cpu_s'] / base['cold_ask_cpu_s']:.2f}x),"
                f" search {r['search_s'] / base['cold_ask_s']:.2f}x the empty ask"
                f" (CPU {r['search_cpu_s'] / base['cold_ask_cpu_s']:.2f}x)"
            )
    print(json.dumps({n: {k: r[k] for k in KEYS} for n, r in results.items()}))


if __name__ == "__main__":
    main()
