"""Abuse: a real cloud (with its page) attacked on 127.0.0.1, bounded by bytes (issue 26).

    python bench/abuse.py [--budget-mb 512] [--settle-s 60] [--quick]

``cloud-agent serve`` runs in a process of its own with ``--memory-dir`` and its page
(``--ui-port``, ``--ui-token``). After a warm-up its idle RSS is read; then, one after
another:

- ``sync_large``: 4 Sync streams at once, each announcing 256 chunks of 1 MiB;
- ``sync_many``: 10 staggered streams, each sending a 30 MiB update that does not decode;
- ``sync_valid``: 2 streams at once, each resending a real update of about 20 MB (notes)
  that the warm-up already synced;
- ``session_long``: 100 calls with 3 MB session ids;
- ``session_hostile``: session ids with a newline and a forged ERROR line, a NUL, a space;
- ``negative_counts``: ``max_steps`` and ``turn_id`` below 0;
- ``device_ids``: with an event stream of the page open, 400 calls with 4 KB device ids
  and 1,000 answered sessions from 1,000 different devices;
- ``event_streams``: 24 event streams at once;
- ``large_body``: a POST announcing 1 GB, and one streamed past 64 KiB;
- ``redirects``: login links to ``//evil.example/`` and ``/\\evil.example``.

Each abuse must be refused with its code (or, for the valid ones, served). Meanwhile the
cloud's RSS is sampled every 100 ms; afterwards the bench waits up to ``--settle-s``
seconds for it to come back within 20% of idle. It fails (exit 1) when the peak passes
idle + ``--budget-mb``, the RSS does not come back, the log grew by more than 1 MB, or an
abuse got the wrong answer. Loopback only; about three minutes on 2 cores. The last line
is one JSON object (``peak_rss_mb``, ``rss_after_mb``, ``log_bytes``, ``abuses``...).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from edgeloop.v1 import agent_pb2 as pb  # noqa: E402
from edgeloop.v1 import agent_pb2_grpc as pb_grpc  # noqa: E402

MIB = 1024 * 1024
SYNC = "/edgeloop.v1.MemorySyncService/Sync"
UI_TOKEN = "abuse-page-token"
LOG_BUDGET_BYTES = 1024 * 1024
SETTLE_RATIO = 1.2
MEMORY_IDLE_S = 20
OK = "OK"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cloud:
    """``cloud-agent serve`` in a process of its own, its RSS sampled in a thread."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port, self.ui_port = free_port(), free_port()
        self.log_path = folder / "cloud.log"
        config = folder / "cloud.toml"
        # A user's memory stays loaded while it is used (up to memory_cache_mb); idle for
        # MEMORY_IDLE_S it is unloaded, so the RSS can come back after the abuse.
        config.write_text(f"memory_idle_s = {MEMORY_IDLE_S}\n")
        command = [
            sys.executable, "-c", "from cloud_agent.cli import main; main()", "serve",
            "--config", str(config),
            "--port", str(self.port), "--memory-dir", str(folder / "memory"),
            "--ui-port", str(self.ui_port), "--ui-token", UI_TOKEN,
        ]  # fmt: skip
        log = open(self.log_path, "ab")  # noqa: SIM115 - the process keeps it
        self.process = subprocess.Popen(command, stdout=log, stderr=log, cwd=ROOT)
        self.peak_kb = 0
        self._sampling = False
        self._thread: threading.Thread | None = None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.ui_port), 0.2).close()
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the cloud exited: see {self.log_path}")
            time.sleep(0.2)
        raise RuntimeError("the cloud did not start within 90 s")

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def page(self) -> str:
        return f"http://127.0.0.1:{self.ui_port}"

    def rss_kb(self) -> int:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def log_bytes(self) -> int:
        return self.log_path.stat().st_size

    def start_sampling(self) -> None:
        self._sampling = True

        def sample() -> None:
            while self._sampling:
                self.peak_kb = max(self.peak_kb, self.rss_kb())
                time.sleep(0.1)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()

    def stop_sampling(self) -> None:
        self._sampling = False
        if self._thread is not None:
            self._thread.join()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# -- gRPC helpers -----------------------------------------------------------------------


def code_of(call: Callable[[], Any]) -> str:
    """The status code name a call ended with (OK when it succeeded)."""
    try:
        call()
    except grpc.RpcError as error:
        return str(error.code().name)
    return OK


def reason(
    target: str, request: pb.ReasonRequest, device: str | None = None, timeout: float = 30
) -> str:
    metadata = [("x-device-id", device)] if device else None
    with grpc.insecure_channel(target, options=[("grpc.max_send_message_length", 8 * MIB)]) as ch:
        stub = pb_grpc.CloudReasonerServiceStub(ch)
        return code_of(lambda: list(stub.Reason(request, timeout=timeout, metadata=metadata)))


def _client_state() -> bytes:
    """The state vector of a device with one note the cloud lacks (so the cloud waits for
    its update instead of ending the exchange at once)."""
    from sync.store import MemoryStore

    with MemoryStore(":memory:", node_id="abuser-device") as store:
        store.add_note("a note the cloud lacks")
        return store.state_vector()


CLIENT_STATE = _client_state()


def sync_messages(
    chunks: Iterator[tuple[int, int, bytes]], update_id: str, digest: str
) -> Iterator[bytes]:
    """hello, a state vector, the chunks (made as they are sent), done."""
    yield pb.SyncRequest(hello=pb.SyncHello(device_id="abuser")).SerializeToString()
    yield pb.SyncRequest(state_vector=pb.StateVector(vector=CLIENT_STATE)).SerializeToString()
    for index, total, data in chunks:
        chunk = pb.UpdateChunk(
            update_id=update_id, index=index, total=total, data=data, sha256=digest
        )
        yield pb.SyncRequest(update=chunk).SerializeToString()
    yield pb.SyncRequest(done=pb.SyncDone(round=0)).SerializeToString()


def sync_stream(target: str, messages: Iterator[bytes], timeout: float = 90) -> str:
    with grpc.insecure_channel(target) as channel:
        call = channel.stream_stream(SYNC, lambda b: b, lambda b: b)
        return code_of(lambda: list(call(messages, timeout=timeout)))


def garbage_chunks(seed: int, count: int, total: int) -> Iterator[tuple[int, int, bytes]]:
    rng = random.Random(seed)
    for index in range(count):
        yield index, total, rng.randbytes(MIB)


def chunks_of(update: bytes) -> Iterator[tuple[int, int, bytes]]:
    pieces = [update[i : i + MIB] for i in range(0, len(update), MIB)]
    for index, piece in enumerate(pieces):
        yield index, len(pieces), piece


def real_update(megabytes: float) -> bytes:
    """A real update of about ``megabytes`` MB of notes, as a device would send."""
    from sync.store import MemoryStore

    with MemoryStore(":memory:", node_id=f"abuser-{uuid.uuid4().hex[:6]}") as store:
        text = "the quick brown fox jumps over the lazy dog " * 230  # about 10 KB a note
        for n in range(int(megabytes * 100)):
            store.add_note(f"note {n} {text}")
        return store.diff(b"\x00")


# -- the abuses -------------------------------------------------------------------------

Result = dict[str, Any]


def expect(name: str, codes: list[str], allowed: set[str], **extra: Any) -> Result:
    counts: dict[str, int] = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    right = all(code in allowed for code in codes) and bool(codes)
    return {
        "abuse": name,
        "codes": counts,
        "expected": sorted(allowed),
        "refused_right": right,
        **extra,
    }


def sync_large(cloud: Cloud) -> Result:
    digest = "0" * 64

    def one(seed: int) -> str:
        messages = sync_messages(garbage_chunks(seed, 256, 256), uuid.uuid4().hex, digest)
        return sync_stream(cloud.target, messages)

    with ThreadPoolExecutor(4) as pool:
        codes = list(pool.map(one, range(4)))
    return expect("sync_large", codes, {"INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"})


def sync_many(cloud: Cloud) -> Result:
    def one(seed: int) -> str:
        time.sleep(seed * 0.5)  # staggered
        messages = sync_messages(garbage_chunks(seed, 30, 30), uuid.uuid4().hex, "1" * 64)
        return sync_stream(cloud.target, messages)

    with ThreadPoolExecutor(10) as pool:
        codes = list(pool.map(one, range(10)))
    return expect("sync_many", codes, {"INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"})


def sync_valid(cloud: Cloud, update: bytes) -> Result:
    digest = hashlib.sha256(update).hexdigest()

    def one(_: int) -> str:
        messages = sync_messages(chunks_of(update), uuid.uuid4().hex, digest)
        return sync_stream(cloud.target, messages, timeout=120)

    with ThreadPoolExecutor(2) as pool:
        codes = list(pool.map(one, range(2)))
    # Served, or told to come back (the budget); a real update is never refused as bad.
    # The stream ends after one round: the server then waits for a state vector that
    # does not come, so a served stream reads as OK or, cut short here, CANCELLED.
    return expect(
        "sync_valid", codes, {OK, "RESOURCE_EXHAUSTED"}, update_mb=round(len(update) / MIB, 1)
    )


def session_long(cloud: Cloud, calls: int) -> Result:
    session = "s" * (3 * 1000 * 1000)

    def one(n: int) -> str:
        request = pb.ReasonRequest(session_id=session + str(n), query="what is 2 + 2")
        return reason(cloud.target, request)

    with ThreadPoolExecutor(4) as pool:
        codes = list(pool.map(one, range(calls)))
    return expect("session_long", codes, {"INVALID_ARGUMENT"})


FORGED = "2026-12-02 09:00:00,000 ERROR cloud_agent FORGED by a client"


def session_hostile(cloud: Cloud) -> Result:
    ids = [f"s1\n{FORGED}", f"s2\r\n{FORGED}", "s3\x00nul", "s 4", "s5\u2028" + FORGED]
    codes = [reason(cloud.target, pb.ReasonRequest(session_id=i, query="2 + 2")) for i in ids]
    text = cloud.log_path.read_text("utf-8", "replace")
    lines = text.splitlines()
    forged = sum(1 for line in lines if line.startswith(FORGED[:10]) and "FORGED" in line)
    result = expect("session_hostile", codes, {"INVALID_ARGUMENT"}, forged_log_lines=forged)
    result["refused_right"] = result["refused_right"] and forged == 0 and "\x00" not in text
    return result


def negative_counts(cloud: Cloud) -> Result:
    codes = [
        reason(cloud.target, pb.ReasonRequest(session_id="n1", query="2 + 2", max_steps=-5)),
        reason(cloud.target, pb.ReasonRequest(session_id="n2", query="2 + 2", turn_id=-1)),
    ]
    return expect("negative_counts", codes, {"INVALID_ARGUMENT"})


class EventReader:
    """One open event stream of the page, counting the bytes it receives."""

    def __init__(self, page: str) -> None:
        self.bytes = 0
        self.status = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(page,), daemon=True)
        self._thread.start()

    def _read(self, page: str) -> None:
        headers = {"Authorization": f"Bearer {UI_TOKEN}"}
        with (
            contextlib.suppress(httpx.HTTPError),
            httpx.Client(timeout=None) as client,
            client.stream("GET", f"{page}/events", headers=headers) as response,
        ):
            self.status = response.status_code
            for chunk in response.iter_bytes():
                self.bytes += len(chunk)
                if self._stop.is_set():
                    return

    def close(self) -> None:
        self._stop.set()  # the stream ends at its next event or keepalive


def device_ids(cloud: Cloud, hostile: int, fleet: int) -> Result:
    reader = EventReader(cloud.page)
    time.sleep(1.0)
    before = reader.bytes

    def long_id(n: int) -> str:
        request = pb.ReasonRequest(session_id=f"d{n}", query="what is 2 + 2")
        return reason(cloud.target, request, device=f"{n:06d}" + "d" * 4090)

    def fleet_id(n: int) -> str:
        request = pb.ReasonRequest(session_id=uuid.uuid4().hex, query="what is 2 + 2")
        return reason(cloud.target, request, device=f"device-{n:05d}-" + "x" * 100)

    with ThreadPoolExecutor(4) as pool:
        refused = list(pool.map(long_id, range(hostile)))
        served = list(pool.map(fleet_id, range(fleet)))
    time.sleep(1.5)
    streamed = reader.bytes - before
    reader.close()
    page = httpx.get(cloud.page, headers={"Authorization": f"Bearer {UI_TOKEN}"}, timeout=30)
    result = expect(
        "device_ids",
        refused,
        {"INVALID_ARGUMENT"},
        served_ok=served.count(OK),
        event_stream_bytes=streamed,
        page_bytes=len(page.content),
    )
    result["refused_right"] = result["refused_right"] and served.count(OK) == fleet
    return result


def event_streams(cloud: Cloud, count: int) -> Result:
    readers = [EventReader(cloud.page) for _ in range(count)]
    deadline = time.monotonic() + 30
    while any(r.status == 0 for r in readers) and time.monotonic() < deadline:
        time.sleep(0.2)
    statuses = [r.status for r in readers]
    for reader in readers:
        reader.close()
    served = statuses.count(200)
    refused = statuses.count(503)
    result = expect("event_streams", ["503"] * refused, {"503"}, served=served, refused=refused)
    # Streams still open from the abuse before count against the cap too.
    result["refused_right"] = served + refused == count and refused > 0 and served <= 16
    return result


def large_body(cloud: Cloud) -> Result:
    head = (
        f"POST /receipts/x/verify HTTP/1.1\r\nHost: 127.0.0.1:{cloud.ui_port}\r\n"
        f"Authorization: Bearer {UI_TOKEN}\r\nContent-Length: {10**9}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", cloud.ui_port), timeout=10) as sock:
        sock.sendall(head)
        declared = sock.recv(64).split(b" ")[1].decode()

    def body() -> Iterator[bytes]:
        for _ in range(1024):  # 4 MiB, never announced
            yield b"x" * 4096

    streamed = httpx.post(
        f"{cloud.page}/receipts/x/verify",
        content=body(),
        headers={"Authorization": f"Bearer {UI_TOKEN}"},
        timeout=30,
    )
    codes = [declared, str(streamed.status_code)]
    return expect("large_body", codes, {"413", "400", "404"}, declared=declared)


def redirects(cloud: Cloud) -> Result:
    codes, locations = [], []
    with httpx.Client(timeout=10) as client:
        for path in ("//evil.example/", "/%5Cevil.example", "/%5C/evil.example", "///x"):
            response = client.get(httpx.URL(f"{cloud.page}{path}?token={UI_TOKEN}"))
            location = response.headers.get("location", "")
            locations.append(location)
            same_site = httpx.URL(cloud.page).join(location).host == "127.0.0.1"
            codes.append("same-origin" if response.status_code == 303 and same_site else location)
    return expect("redirects", codes, {"same-origin"}, locations=locations)


# -- the run ----------------------------------------------------------------------------


ABUSES = (
    "sync_large", "sync_many", "sync_valid", "session_long", "session_hostile",
    "negative_counts", "device_ids", "event_streams", "large_body", "redirects",
)  # fmt: skip


def warm_up(cloud: Cloud, update: bytes) -> None:
    """One of each ordinary request, so that idle means a server that has served: some
    sessions, the page, and a real sync (which loads the user's memory)."""
    from sync.client import sync_with
    from sync.store import MemoryStore

    with (
        MemoryStore(":memory:", node_id="warm-device") as store,
        grpc.insecure_channel(cloud.target) as channel,
    ):
        store.add_note("a note from a device")
        sync_with(channel, store)
    # The user's memory holds the real update before idle is measured: ``sync_valid``
    # then sends it again (clients that resend what the cloud has), so what it costs is
    # the decode, not new data the cloud rightly keeps.
    digest = hashlib.sha256(update).hexdigest()
    sync_stream(cloud.target, sync_messages(chunks_of(update), uuid.uuid4().hex, digest))
    for n in range(5):
        request = pb.ReasonRequest(session_id=f"warm{n}", query="what is 2 + 2")
        reason(cloud.target, request, device="warm")
    headers = {"Authorization": f"Bearer {UI_TOKEN}"}
    httpx.get(cloud.page, headers=headers, timeout=30)


def settle(cloud: Cloud, idle_kb: int, limit_s: float) -> tuple[int, float]:
    """Wait until the RSS is back within SETTLE_RATIO of idle; (RSS, seconds waited)."""
    start = time.monotonic()
    rss = cloud.rss_kb()
    while rss > idle_kb * SETTLE_RATIO and time.monotonic() - start < limit_s:
        time.sleep(1.0)
        rss = cloud.rss_kb()
    return rss, time.monotonic() - start


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    quick = args.quick
    print("building a real update of notes...", file=sys.stderr)
    update = real_update(4 if quick else 20)
    cloud = Cloud(folder)
    try:
        warm_up(cloud, update)
        time.sleep(2.0)
        idle_kb = cloud.rss_kb()
        log_before = cloud.log_bytes()
        cloud.start_sampling()
        started = time.monotonic()
        steps: list[Callable[[], Result]] = [
            lambda: sync_large(cloud),
            lambda: sync_many(cloud),
            lambda: sync_valid(cloud, update),
            lambda: session_long(cloud, 20 if quick else 100),
            lambda: session_hostile(cloud),
            lambda: negative_counts(cloud),
            lambda: device_ids(cloud, 50 if quick else 400, 100 if quick else 1000),
            lambda: event_streams(cloud, 24),
            lambda: large_body(cloud),
            lambda: redirects(cloud),
        ]
        if args.only:
            steps = [step for step, name in zip(steps, ABUSES, strict=True) if name in args.only]
        abuses = []
        for step in steps:
            begun = time.monotonic()
            result = step()
            result["seconds"] = round(time.monotonic() - begun, 1)
            line = f"  {result['abuse']:<16} {result['codes']} {result['seconds']} s"
            print(line, file=sys.stderr)
            abuses.append(result)
        abuse_s = time.monotonic() - started
        cloud.stop_sampling()
        rss_after_kb, settle_s = settle(cloud, idle_kb, args.settle_s)
        log_growth = cloud.log_bytes() - log_before
        alive = cloud.process.poll() is None
    finally:
        cloud.stop()
    idle_mb, peak_mb = idle_kb / 1024, cloud.peak_kb / 1024
    report = {
        "idle_rss_mb": round(idle_mb, 1),
        "peak_rss_mb": round(peak_mb, 1),
        "peak_above_idle_mb": round(peak_mb - idle_mb, 1),
        "budget_above_idle_mb": args.budget_mb,
        "rss_after_mb": round(rss_after_kb / 1024, 1),
        "settle_s": round(settle_s, 1),
        "log_bytes": log_growth,
        "abuse_s": round(abuse_s, 1),
        "cloud_alive": alive,
        "abuses": abuses,
    }
    broken = []
    if peak_mb - idle_mb > args.budget_mb:
        broken.append("peak RSS over budget")
    if rss_after_kb > idle_kb * SETTLE_RATIO:
        broken.append(f"RSS not back within 20% of idle in {args.settle_s:g} s")
    if log_growth > LOG_BUDGET_BYTES:
        broken.append("log grew by more than 1 MB")
    broken += [f"{a['abuse']} answered wrongly" for a in abuses if not a["refused_right"]]
    if not alive:
        broken.append("the cloud died")
    report["bounds_broken"] = broken
    return report


def print_report(report: dict[str, Any]) -> None:
    print(f"{'figure':<24} value")
    for key in (
        "idle_rss_mb", "peak_rss_mb", "peak_above_idle_mb", "budget_above_idle_mb",
        "rss_after_mb", "settle_s", "log_bytes", "abuse_s",
    ):  # fmt: skip
        print(f"{key:<24} {report[key]}")
    print(f"{'abuse':<18} {'refused right':<14} codes")
    for abuse in report["abuses"]:
        print(f"{abuse['abuse']:<18} {abuse['refused_right']!s:<14} {abuse['codes']}")
    for broken in report["bounds_broken"]:
        print(f"BROKEN: {broken}")
    print(json.dumps(report))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget-mb", type=float, default=512.0)
    parser.add_argument("--settle-s", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    parser.add_argument("--only", nargs="*", choices=ABUSES, help="run only these abuses")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="edgeloop-abuse-") as tmp:
        folder = Path(tmp)
        os.chmod(folder, 0o700)
        report = run(args, folder)
    print_report(report)
    sys.exit(1 if report["bounds_broken"] else 0)


if __name__ == "__main__":
    main()
