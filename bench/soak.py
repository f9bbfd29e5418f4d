"""Soak: a real cloud and N device processes under faults, then a check that nothing was
lost, nothing ran twice and nothing was left pending (issue 14).

    python bench/soak.py [--devices 3] [--seconds 90] [--rss-budget-mb 400]

The cloud is ``cloud-agent serve`` with ``--memory-dir``, bearer tokens and TLS, in a
process of its own on 127.0.0.1. Each device is a process with its own memory file, the
shipped router and a TLS link to the cloud through a TCP relay (so the injector can cut
connections). For ``--seconds`` the devices run a mixed workload: asks the cloud answers
alone, Converse sessions whose plan makes the device write a note and set a timer,
notes written offline, memory syncs and pending resolutions; each acknowledged write
goes to the device's journal (fsync'd). Meanwhile the fault injector SIGKILLs and
restarts the cloud and the devices, drops every relayed connection, and sends the bad
inputs of issue 14 straight to the cloud (each must come back with its code).

At the end the cloud is left up, every device resolves what is pending and syncs twice,
and the replicas are read: every acknowledged note must be on the device, in the cloud
and on the other device of its user (``lost_writes``), no note may exist twice
(``duplicate_side_effects``), nothing may be pending (``unresolved_pending``), and the
cloud's peak RSS (VmHWM of every cloud process) must stay under the budget. The last
line is one JSON object; the exit status is 1 when lost writes, duplicate side effects or
unresolved pending queries are above zero (``lost_writes`` is split into ``lost_in_sync``,
``lost_by_plan`` and ``lost_on_device``). ``--check-only FOLDER`` checks a run kept with
``--keep``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import hashlib
import json
import os
import random
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from edgeloop.transport.certs import self_signed

ROOT = Path(__file__).resolve().parent.parent
IDLE_S = 3.0
USERS = ("alice", "bob")


# -- set-up ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def device_user(index: int) -> str:
    return USERS[index % len(USERS)]


def device_token(index: int) -> str:
    return f"soak-token-{index}"


class Relay:
    """A TCP relay from the devices to the cloud whose connections can all be cut."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self.loop).result(10)

    async def _serve(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        self._writers.discard(writer)
        self._writers.discard(up_writer)

    def drop(self) -> int:
        """Cut every relayed connection; return how many there were."""

        async def cut() -> int:
            writers = list(self._writers)
            for w in writers:
                w.transport.abort()
            self._writers.clear()
            return len(writers) // 2

        return asyncio.run_coroutine_threadsafe(cut(), self.loop).result(10)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self._server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


class Cloud:
    """``cloud-agent serve`` in a process of its own, killed and restarted at will."""

    def __init__(self, folder: Path, port: int, cert: Path, key: Path, tokens: Path) -> None:
        self.folder, self.port = folder, port
        config = folder / "cloud.toml"
        config.write_text(
            f"stream_idle_s = {IDLE_S}\nrate_per_s = 50.0\nrate_burst = 100\n"
            "sync_update_mb = 64\nsync_budget_mb = 128\n"
        )
        self.command = [
            sys.executable, "-c", "from cloud_agent.cli import main; main()", "serve",
            "--config", str(config),
            "--port", str(port), "--tokens", str(tokens), "--tls-cert", str(cert),
            "--tls-key", str(key), "--memory-dir", str(folder / "cloud-memory"),
        ]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None
        self.peak_rss_kb = 0
        self.restarts = 0

    def start(self) -> None:
        log = open(self.folder / "cloud.log", "ab")  # noqa: SIM115 - the process keeps it
        self.process = subprocess.Popen(self.command, stdout=log, stderr=log, cwd=ROOT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 0.2),
            ):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the cloud exited: see {self.folder / 'cloud.log'}")
            time.sleep(0.1)
        raise RuntimeError("the cloud did not start within 60 s")

    def sample(self) -> None:
        """Keep the peak RSS (VmHWM) of the running cloud process."""
        if self.process is None:
            return
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_rss_kb = max(self.peak_rss_kb, int(line.split()[1]))

    def kill(self) -> None:
        if self.process is not None:
            self.sample()
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.sample()
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


# -- one device process ----------------------------------------------------------------


def _tag() -> str:
    return "".join(random.choice(string.ascii_lowercase) for _ in range(10))


def run_device(args: argparse.Namespace) -> None:
    """The workload of one device until ``args.until`` (epoch seconds), or settling."""
    import grpc

    from edge_agent.agent import EdgeAgent
    from edge_agent.cloud_link import CloudLink, CloudRequestError
    from edgeloop.transport.channels import client_channel
    from sync.client import sync_with
    from sync.store import MemoryStore
    from understanding.router import Router

    folder = Path(args.folder)
    store = MemoryStore(folder / f"device{args.device}.db", node_id=f"device{args.device}")
    link = CloudLink(
        args.target, token=args.token, tls_root=args.tls_root, deadline_s=10.0,
        device_id=f"device{args.device}", retries=1, backoff_s=0.1,
    )  # fmt: skip
    agent = EdgeAgent(store, Router.load(), link)
    journal = open(folder / f"device{args.device}.jsonl", "a", encoding="utf-8")  # noqa: SIM115

    def record(entry: dict[str, Any]) -> None:
        journal.write(json.dumps(entry) + "\n")
        journal.flush()
        os.fsync(journal.fileno())

    def sync() -> None:
        channel = client_channel(args.target, tls_root=args.tls_root)
        try:
            sync_with(channel, store, args.token, device_id="")
            record({"op": "sync", "code": "OK"})
        except grpc.RpcError as exc:
            record({"op": "sync", "code": exc.code().name})  # type: ignore[attr-defined]
        finally:
            channel.close()

    def resolve() -> None:
        try:
            for pending, _steps in agent.resolve_pending():
                record({"op": "resolve", "code": "OK", "session": True})
                query = pending["query"]
                if query.startswith("add a note soak "):
                    record({"ack": "soak " + query.split()[4], "via": "resolved"})
            if store.pending():
                record({"op": "resolve", "code": "STILL_PENDING"})
        except CloudRequestError as exc:
            record({"op": "resolve", "code": exc.code.name})

    def ask(query: str, note: str | None) -> None:
        try:
            steps = list(agent.ask(query))
        except CloudRequestError as exc:
            record({"op": "ask", "code": exc.code.name})
            return
        final = steps[-1]
        if "pending_id" in final.metadata:
            code = "RESOURCE_EXHAUSTED" if "retry_after_ms" in final.metadata else "UNAVAILABLE"
            # Kept pending while the link's breaker was open (the cloud down moments ago) or
            # with the cloud unreachable: docs/operations.md, "Soak".
            record({"op": "ask", "code": code, "pending": True, "breaker": link.breaker.state})
        else:
            record({"op": "ask", "code": "OK", "session": True})
            if note is not None:
                record({"ack": note, "via": "cloud"})

    if args.settle:
        for _ in range(5):
            resolve()
            if not store.pending():
                break
            time.sleep(1)
        sync()
        store.close()
        return

    while time.time() < args.until:
        time.sleep(random.uniform(0.02, 0.1))  # a device, not a load generator
        choice = random.random()
        if choice < 0.25:
            ask("is Tokyo warmer than Seoul today", None)
        elif choice < 0.55:
            note = f"soak {_tag()}"
            ask(f"add a note {note} and set a timer for 10 minutes", note)
        elif choice < 0.75:
            note = f"offline {_tag()}"
            store.add_note(note)  # committed (synchronous FULL) before it is acknowledged
            record({"ack": note, "via": "offline"})
        elif choice < 0.9:
            sync()
        else:
            resolve()
    store.close()


def spawn_device(
    folder: Path, index: int, target: str, cert: Path, until: float, settle: bool = False
) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, str(Path(__file__).resolve()), "--device-worker", "--folder", str(folder),
        "--device", str(index), "--target", target, "--tls-root", str(cert),
        "--token", device_token(index), "--until", str(until),
    ]  # fmt: skip
    if settle:
        command.append("--settle")
    log = open(folder / f"device{index}.log", "ab")  # noqa: SIM115
    return subprocess.Popen(command, stdout=log, stderr=log, cwd=ROOT)


# -- bad inputs --------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _nested(depth: int) -> bytes:
    value = _field(3, b"x")
    for _ in range(depth):
        value = _field(5, _field(1, _field(1, b"k") + _field(2, value)))
    return _field(2, _field(8, _field(1, _field(1, b"k") + _field(2, value))))


def bad_inputs(target: str, cert: Path) -> list[tuple[str, str, Any]]:
    """(name, expected status code, send) for each bad input of issue 14."""
    import grpc

    from edgeloop.v1 import agent_pb2 as pb

    credentials = grpc.ssl_channel_credentials(cert.read_bytes())
    good = [("authorization", f"Bearer {device_token(0)}")]
    converse = "/edgeloop.v1.CloudReasonerService/Converse"
    sync = "/edgeloop.v1.MemorySyncService/Sync"

    def start(query: bytes, extra: bytes = b"") -> bytes:
        return _field(1, _field(1, b"bad") + _field(2, query) + extra)

    def raw(method: str, messages: Any, metadata: Any = good, timeout: float = 10) -> str:
        with grpc.secure_channel(target, credentials) as channel:
            call = channel.stream_stream(method, lambda b: b, lambda b: b)
            try:
                list(call(iter(messages), timeout=timeout, metadata=metadata))
            except grpc.RpcError as exc:
                code = str(exc.code().name)  # type: ignore[attr-defined]
                if code == "DEADLINE_EXCEEDED" and "no message" not in (exc.details() or ""):
                    return "CLIENT_DEADLINE"  # the server let the stream outlive its timeout
                return code
        return "OK"

    def silent() -> str:
        stop = threading.Event()

        def requests() -> Any:
            stop.wait(IDLE_S * 4)
            yield from ()

        try:
            return raw(converse, requests(), timeout=IDLE_S * 3)
        finally:
            stop.set()

    from sync.store import MemoryStore

    with MemoryStore(":memory:", node_id="bad") as scratch:
        scratch.add_note("x")
        vector = scratch.state_vector()
    oversized = [
        pb.SyncRequest(hello=pb.SyncHello()).SerializeToString(),
        pb.SyncRequest(state_vector=pb.StateVector(vector=vector)).SerializeToString(),
        pb.SyncRequest(
            update=pb.UpdateChunk(update_id="u", index=0, total=10**9, data=b"x", sha256="0" * 64)
        ).SerializeToString(),
    ]
    tools = b"".join(_field(5, f"tool{i}".encode()) for i in range(1000))
    return [
        (
            "invalid UTF-8 in a query",
            "INVALID_ARGUMENT",
            lambda: raw(converse, [start(b"Paris \xff\xfe")]),
        ),
        ("Struct nested 1,000 deep", "INVALID_ARGUMENT", lambda: raw(converse, [_nested(1000)])),
        (
            "NUL bytes in a query",
            "INVALID_ARGUMENT",
            lambda: raw(converse, [start(b"Paris\0\0 and Berlin")]),
        ),
        (
            "query over 4,000 characters",
            "INVALID_ARGUMENT",
            lambda: raw(converse, [start(b"x" * 5000)]),
        ),
        ("100 KB query", "INVALID_ARGUMENT", lambda: raw(converse, [start(b"y" * 100_000)])),
        (
            "1,000 made-up device tools",
            "INVALID_ARGUMENT",
            lambda: raw(converse, [start(b"hi", tools)]),
        ),
        ("Sync total of 10^9 chunks", "INVALID_ARGUMENT", lambda: raw(sync, oversized)),
        ("no token", "UNAUTHENTICATED", lambda: raw(converse, [start(b"hi")], metadata=[])),
        (
            "wrong token",
            "UNAUTHENTICATED",
            lambda: raw(converse, [start(b"hi")], metadata=[("authorization", "Bearer nope")]),
        ),
        (
            "another device's id",
            "PERMISSION_DENIED",
            lambda: raw(
                converse, [_field(1, _field(1, b"b2") + _field(2, b"hi") + _field(3, b"device1"))]
            ),
        ),
        ("a silent stream", "DEADLINE_EXCEEDED", silent),
    ]


# -- the run -----------------------------------------------------------------------------


def replicas_notes(folder: Path, devices: int) -> dict[str, list[list[str]]]:
    """Per user: the note texts of each replica (the cloud's first, then each device's)."""
    from sync.store import MemoryStore
    from sync.userstores import UserStores

    out: dict[str, list[list[str]]] = {}
    with UserStores(folder / "cloud-memory", node_id="cloud") as stores:
        for user in USERS:
            out[user] = [[n["text"] for n in stores(user).notes()]]
    for index in range(devices):
        with MemoryStore(folder / f"device{index}.db") as store:
            out[device_user(index)].append([n["text"] for n in store.notes()])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--rss-budget-mb", type=float, default=400.0)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--keep", action="store_true", help="Keep the run's folder.")
    parser.add_argument(
        "--check-only",
        metavar="FOLDER",
        help="Only check a kept run's folder (its journals and replicas) and exit.",
    )
    parser.add_argument("--device-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--settle", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--device", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--tls-root", help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--until", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.device_worker:
        run_device(args)
        return
    if args.check_only:
        folder = Path(args.check_only)
        count = len(list(folder.glob("device*.db")))
        report = check(folder, count, collections.Counter(), 0, 0, [], None)
        print_report(report, args.rss_budget_mb)
        sys.exit(exit_code(report))
    random.seed(args.seed)
    with tempfile.TemporaryDirectory(prefix="edgeloop-soak-") as tmp:
        folder = Path(tmp)
        report = soak(folder, args)
        if args.keep:
            kept = Path(tempfile.mkdtemp(prefix="edgeloop-soak-kept-"))
            subprocess.run(["cp", "-a", f"{folder}/.", str(kept)], check=False)
            print(f"run folder kept in {kept}", file=sys.stderr)
    print_report(report, args.rss_budget_mb)
    sys.exit(exit_code(report))


def soak(folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    cert, key = self_signed(folder)
    tokens = folder / "tokens.json"
    tokens.write_text(
        json.dumps(
            {
                "tokens": {
                    device_token(i): {"device_id": f"device{i}", "user_id": device_user(i)}
                    for i in range(args.devices)
                }
            }
        )
    )
    cloud = Cloud(folder, free_port(), cert, key, tokens)
    cloud.start()
    relay = Relay(cloud.port)
    target = f"127.0.0.1:{relay.port}"
    direct = f"127.0.0.1:{cloud.port}"
    until = time.time() + args.seconds
    devices = {i: spawn_device(folder, i, target, cert, until) for i in range(args.devices)}
    faults: collections.Counter[str] = collections.Counter()
    bad = bad_inputs(direct, cert)
    bad_sent = bad_ok = 0
    bad_wrong: list[str] = []
    next_bad = 0
    try:
        while time.time() < until:
            time.sleep(random.uniform(1.0, 3.0))
            cloud.sample()
            kind = random.choice(["kill_cloud", "kill_device", "drop", "bad", "bad"])
            if kind == "kill_cloud":
                cloud.kill()
                time.sleep(random.uniform(0.2, 1.5))
                cloud.start()
                faults["cloud SIGKILL + restart"] += 1
            elif kind == "kill_device":
                index = random.randrange(args.devices)
                devices[index].send_signal(signal.SIGKILL)
                devices[index].wait()
                devices[index] = spawn_device(folder, index, target, cert, until)
                faults["device SIGKILL + restart"] += 1
            elif kind == "drop":
                relay.drop()
                faults["connections dropped"] += 1
            else:
                name, expected, send = bad[next_bad % len(bad)]
                got = send()
                if got == "UNAVAILABLE":
                    continue  # the cloud was down: sent again later
                next_bad += 1
                bad_sent += 1
                faults["bad input sent"] += 1
                if got == expected:
                    bad_ok += 1
                else:
                    bad_wrong.append(f"{name}: {got} (expected {expected})")
        for name, expected, send in bad:  # every bad input at least once, the cloud up
            got = send()
            bad_sent += 1
            bad_ok += got == expected
            if got != expected:
                bad_wrong.append(f"{name}: {got} (expected {expected})")
        for process in devices.values():
            process.wait(120)
        cloud.sample()
        for _ in range(2):  # settle: resolve what is pending, sync twice round the devices
            for i in range(args.devices):
                spawn_device(folder, i, target, cert, 0, settle=True).wait(180)
        cloud.stop()
    finally:
        for process in devices.values():
            if process.poll() is None:
                process.kill()
        cloud.kill()
        relay.close()
    return check(folder, args.devices, faults, bad_sent, bad_ok, bad_wrong, cloud)


def check(
    folder: Path,
    devices: int,
    faults: collections.Counter[str],
    bad_sent: int,
    bad_ok: int,
    bad_wrong: list[str],
    cloud: Cloud | None,
) -> dict[str, Any]:
    from sync.store import MemoryStore

    codes: collections.Counter[str] = collections.Counter()
    sessions = breaker_open = 0
    # (device index, note text, how it was acknowledged)
    acked: list[tuple[int, str, str]] = []
    for index in range(devices):
        path = folder / f"device{index}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut by SIGKILL: never acknowledged
            if "ack" in entry:
                acked.append((index, str(entry["ack"]), str(entry.get("via", ""))))
            else:
                codes[entry["code"]] += 1
                sessions += bool(entry.get("session"))
                breaker_open += entry.get("breaker") == "open"
    replicas = replicas_notes(folder, devices)
    lost = lost_writes(acked, replicas, folder, devices)
    duplicates = 0
    for user in USERS:
        for replica in replicas[user]:
            duplicates += sum(n - 1 for n in collections.Counter(replica).values() if n > 1)
    pending = 0
    for index in range(devices):
        with MemoryStore(folder / f"device{index}.db") as store:
            pending += len(store.pending())
    codes.pop("STILL_PENDING", None)
    return {
        "devices": devices,
        "sessions": sessions,
        "errors_by_code": dict(sorted((k, v) for k, v in codes.items() if k != "OK")),
        "pending_with_breaker_open": breaker_open,
        "faults_injected": sum(faults.values()),
        "faults": dict(faults),
        "acknowledged_writes": len({(device_user(i), text) for i, text, _ in acked}),
        "lost_writes": sum(lost.values()),
        "lost_in_sync": lost["in_sync"],
        "lost_by_plan": lost["by_plan"],
        "lost_on_device": lost["on_device"],
        "duplicate_side_effects": duplicates,
        "unresolved_pending": pending,
        "peak_rss_mb": round((cloud.peak_rss_kb if cloud else 0) / 1024, 1),
        "bad_inputs_rejected": bad_ok,
        "bad_inputs_total": bad_sent,
        "bad_inputs_wrong": bad_wrong,
        "digest": hashlib.sha256(json.dumps(replicas, sort_keys=True).encode()).hexdigest()[:12],
    }


def lost_writes(
    acked: list[tuple[int, str, str]],
    replicas: dict[str, list[list[str]]],
    folder: Path,
    devices: int,
) -> dict[str, int]:
    """Each acknowledged note missing somewhere, by where it went missing:

    - ``by_plan``: a cloud session acknowledged the note but the device that ran it holds
      no note of those words (the plan wrote other words: "soak" for "soak ohdydzxtqd");
    - ``on_device``: a note written offline is not on the device that wrote it;
    - ``in_sync``: the device that wrote it has it, the cloud or another replica of the
      same user does not (sync lost it).
    """
    from sync.store import MemoryStore

    own: dict[int, set[str]] = {}
    for index in range(devices):
        with MemoryStore(folder / f"device{index}.db") as store:
            own[index] = {n["text"] for n in store.notes()}
    lost = {"in_sync": 0, "by_plan": 0, "on_device": 0}
    for index, text in dict.fromkeys((i, t) for i, t, _ in acked):
        via = next(v for i, t, v in acked if (i, t) == (index, text))
        if text not in own[index]:
            lost["by_plan" if via in ("cloud", "resolved") else "on_device"] += 1
        elif any(text not in replica for replica in replicas[device_user(index)]):
            lost["in_sync"] += 1
    return lost


FAILING = ("lost_writes", "duplicate_side_effects", "unresolved_pending")


def exit_code(report: dict[str, Any]) -> int:
    """1 when anything was lost, ran twice or was left pending (or the RSS budget or a bad
    input's code failed), else 0."""
    failing = [key for key in FAILING if report.get(key, 0) > 0]
    if report.get("bad_inputs_wrong") or not report.get("rss_within_budget", True):
        failing.append("bad inputs or RSS")
    if failing:
        print(f"soak FAILED: {', '.join(failing)} above zero", file=sys.stderr)
        return 1
    return 0


def print_report(report: dict[str, Any], budget_mb: float) -> None:
    report["rss_budget_mb"] = budget_mb
    report["rss_within_budget"] = report["peak_rss_mb"] <= budget_mb
    print(f"{'figure':<28} value")
    for key in (
        "devices", "sessions", "faults_injected", "acknowledged_writes", "lost_writes",
        "lost_in_sync", "lost_by_plan", "lost_on_device", "duplicate_side_effects",
        "unresolved_pending", "pending_with_breaker_open", "peak_rss_mb", "rss_budget_mb",
        "bad_inputs_rejected", "bad_inputs_total",
    ):  # fmt: skip
        print(f"{key:<28} {report[key]}")
    for name, count in report["faults"].items():
        print(f"  fault: {name:<28} {count}")
    for code, count in report["errors_by_code"].items():
        print(f"  error: {code:<28} {count}")
    for wrong in report["bad_inputs_wrong"]:
        print(f"  WRONG: {wrong}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
