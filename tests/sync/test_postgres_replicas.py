"""Three cloud replicas on one PostgreSQL database: devices of one user syncing through
different replicas in random order converge; compaction while syncs run loses nothing;
a replica SIGKILLed mid-sync loses nothing it acknowledged."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sync import MemoryStore
from sync.client import sync_with
from sync.pgmemory import PostgresMemory

DEVICES = ("d0", "d1", "d2")
IDS = ("r0", "r1", "r2", "r3")
WHEN = "2026-01-01T00:00:00Z"
_users = itertools.count()

op = st.one_of(
    st.tuples(
        st.just("write"), st.sampled_from(DEVICES), st.sampled_from(IDS), st.text(max_size=8)
    ),
    st.tuples(st.just("delete"), st.sampled_from(DEVICES), st.sampled_from(IDS), st.none()),
    st.tuples(st.just("sync"), st.sampled_from(DEVICES), st.integers(0, 2), st.none()),
    st.tuples(st.just("compact"), st.just(""), st.integers(0, 2), st.none()),
    st.tuples(st.just("tick"), st.sampled_from(DEVICES), st.integers(-50, 50), st.none()),
)


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000

    def __call__(self) -> int:
        return self.ms


def _sync(replica: Any, store: MemoryStore, user: str, *, retries: int = 0) -> None:
    """Sync a device through a replica; ``retries``: start again after ABORTED (the
    server's state moved every round -- other devices of the user writing through other
    replicas -- for the exchange's 8 rounds; each round's merge is kept), as a client does."""
    with grpc.insecure_channel(replica.target) as channel:
        for attempt in range(retries + 1):
            try:
                sync_with(channel, store, f"{user}:{store.node_id}", timeout=30)
                return
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.ABORTED or attempt == retries:
                    raise


@pytest.fixture
def three(make_replicas: Any) -> list[Any]:
    # A short log before compaction, so that syncs also compact on their own.
    return list(make_replicas(3, compact_every=4))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,  # the replicas serve every example; users differ
    ],
)
@given(ops=st.lists(op, min_size=6, max_size=30), order=st.permutations(range(3)))
def test_devices_syncing_through_different_replicas_converge(
    three: list[Any], ops: list[tuple[str, str, Any, Any]], order: list[int]
) -> None:
    user = f"user{next(_users)}"
    clocks = {d: Clock() for d in DEVICES}
    devices = {d: MemoryStore(":memory:", node_id=d, now_ms=clocks[d]) for d in DEVICES}
    acked: dict[str, list[tuple[str, str, str | None]]] = {i: [] for i in IDS}
    try:
        for kind, device, arg, text in ops:
            if kind == "compact":
                three[arg].memory.compact(user)
                continue
            store = devices[device]
            if kind == "write":
                store.put_record("notes", arg, {"text": f"{device}:{text}", "created_at": WHEN})
            elif kind == "delete":
                if store.get_record("notes", arg) is None:
                    continue
                store.forget("notes", arg)
            elif kind == "sync":
                _sync(three[arg], store, user)
                continue
            else:
                clocks[device].ms = max(0, clocks[device].ms + arg)
                continue
            entry = store.doc.winner("notes", arg)
            assert entry is not None and entry.node == device
            acked[arg].append(
                (entry.hlc, device, None if entry.data is None else entry.data["text"])
            )
        # Each device through another replica, twice round: everyone then has everything.
        for round_no in range(2):
            for device, replica in zip(DEVICES, order, strict=True):
                _sync(three[(replica + round_no) % 3], devices[device], user)
        docs = [s.document_json() for s in devices.values()]
        assert docs[0] == docs[1] == docs[2]
        for replica in three:
            assert replica.memory.memory(user).document_json() == docs[0]
        for record_id, writes in acked.items():
            expected = max(writes)[2] if writes else None
            got = devices["d0"].get_record("notes", record_id)
            assert (None if got is None else got["text"]) == expected
    finally:
        for store in devices.values():
            store.close()


def test_compaction_during_syncs_loses_nothing(make_replicas: Any) -> None:
    replicas = make_replicas(3, compact_every=3)
    compactor = replicas[0].memory
    devices = [MemoryStore(":memory:", node_id=f"dev{i}") for i in range(3)]
    written: list[set[str]] = [set() for _ in devices]
    stop = threading.Event()
    compactions = 0
    errors: list[BaseException] = []

    def compact_forever() -> None:
        nonlocal compactions
        try:
            while not stop.is_set():
                compactions += compactor.compact("alice")
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    def device_loop(i: int) -> None:
        rng = random.Random(i)
        try:
            for batch in range(12):
                with devices[i].batch():
                    for n in range(5):
                        written[i].add(devices[i].add_note(f"dev{i} batch {batch} note {n}"))
                _sync(replicas[rng.randrange(3)], devices[i], "alice", retries=5)
        except BaseException as exc:
            errors.append(exc)

    background = threading.Thread(target=compact_forever)
    background.start()
    threads = [threading.Thread(target=device_loop, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    stop.set()
    background.join(30)
    assert not errors, errors
    assert compactions > 0
    everything = set().union(*written)
    for replica in replicas:
        assert set(replica.memory.memory("alice").document_json()["notes"]) >= {
            f"{note_id}|dev{i}" for i, ids in enumerate(written) for note_id in ids
        }
    # A replica that never held this user loads snapshot + log from scratch.
    with PostgresMemory(compactor.url) as fresh:
        assert {k.partition("|")[0] for k in fresh.memory("alice").document_json()["notes"]} == (
            everything
        )
    for device in devices:
        _sync(replicas[0], device, "alice")
        assert set(device.records("notes")) == everything
        device.close()


def _spawn_replica(url: str, tokens: Path) -> tuple[subprocess.Popen[str], int]:
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from cloud_agent.cli import main; main()",
            "serve",
            "--port",
            "0",
            "--tokens",
            str(tokens),
            "--memory-url",
            url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "serving on" in line:
            return proc, int(line.split("serving on ")[1].split(" ")[0].rsplit(":", 1)[1])
    raise AssertionError(f"the replica did not start (exit {proc.wait(10)})")


@pytest.mark.parametrize("delay", [0.0, 0.05])
def test_replica_sigkilled_mid_sync_loses_nothing_acknowledged(
    make_replicas: Any, pg_url: str, tmp_path: Path, delay: float
) -> None:
    survivor = make_replicas(1)[0]
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": {"tok-a": {"device_id": "dev-a", "user_id": "alice"}}}))
    proc, port = _spawn_replica(pg_url, tokens)
    device_a = MemoryStore(tmp_path / "a.db", node_id="dev-a", synchronous="NORMAL")
    device_b = MemoryStore(tmp_path / "b.db", node_id="dev-b", synchronous="NORMAL")
    acked: set[str] = set()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            for batch in range(3):  # acknowledged syncs through the doomed replica
                with device_a.batch():
                    ids = {device_a.add_note(f"a {batch} {i} " + "x" * 50) for i in range(300)}
                sync_with(channel, device_a, "tok-a", timeout=30)
                acked |= ids
            with device_a.batch():  # a big one, killed in flight
                for i in range(5000):
                    device_a.add_note(f"a late {i} " + "y" * 100)
            errors: list[BaseException] = []

            def run() -> None:
                try:
                    sync_with(channel, device_a, "tok-a", chunk_bytes=32 * 1024, timeout=30)
                except BaseException as exc:
                    errors.append(exc)

            # Meanwhile another device of the same user syncs through the other replica.
            with device_b.batch():
                b_ids = {device_b.add_note(f"b {i}") for i in range(50)}
            threads = [
                threading.Thread(target=run),
                threading.Thread(target=_sync, args=(survivor, device_b, "alice")),
            ]
            for thread in threads:
                thread.start()
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            for thread in threads:
                thread.join(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()
    seen = {k.partition("|")[0] for k in survivor.memory.memory("alice").document_json()["notes"]}
    assert acked <= seen
    assert b_ids <= seen
    # Both devices sync through the surviving replica: everything converges.
    for _ in range(2):
        _sync(survivor, device_a, "alice")
        _sync(survivor, device_b, "alice")
    assert device_a.document_json() == device_b.document_json()
    assert device_a.document_json() == survivor.memory.memory("alice").document_json()
    assert len(device_a.records("notes")) == 900 + 5000 + 50
    device_a.close()
    device_b.close()
