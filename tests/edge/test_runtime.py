"""`edge-agent run`, the device runtime, as a user runs it: a real process on 127.0.0.1.

A timer set by voice (``edge-agent ask``, through the runtime) rings once on the terminal
and on a WatchEvents stream (Python, and Node when installed); a runtime killed across a
timer's due time reports it as missed, once, after a restart.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

NODE_DIR = Path(__file__).resolve().parents[1] / "node"


class Runtime:
    """A running ``edge-agent run`` and the lines its terminal printed."""

    def __init__(self, memory: Path, *extra: str) -> None:
        env = {**os.environ, "EDGELOOP_HOME": str(memory.parent)}
        self.memory = memory
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "edge_agent",
                "run",
                "--memory",
                str(memory),
                "--port",
                "0",
                "--missed-after",
                "1",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        serving = self.wait_for("runtime serving on", 60)
        self.address = serving.rsplit(" ", 1)[1]

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:  # closed when the process ends
            for line in self.process.stdout:
                self.lines.put(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 20) -> str:
        """The first line (from now) that contains ``text``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no {text!r} on the terminal; it printed {self.seen}")

    def drain(self, seconds: float) -> list[str]:
        """Every line printed within ``seconds``."""
        deadline = time.monotonic() + seconds
        got = []
        while time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                got.append(self.lines.get(timeout=0.1))
        self.seen.extend(got)
        return got

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.drain(0.5)  # the reader reaches the end of the output and closes it

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.drain(0.5)


def ask(memory: Path, query: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EDGELOOP_HOME": str(memory.parent)}
    return subprocess.run(
        [sys.executable, "-m", "edge_agent", "ask", query, "--memory", str(memory)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return tmp_path / "edge.db"


@pytest.fixture
def runtime(memory: Path) -> Iterator[Runtime]:
    running = Runtime(memory)
    yield running
    running.stop()


def watch(address: str) -> tuple[queue.Queue[pb.DeviceEvent], grpc.Channel]:
    """Events of a WatchEvents stream, collected in a thread (after its headers came)."""
    channel = grpc.insecure_channel(address)
    stub = pb_grpc.EdgeAgentServiceStub(channel)
    call = stub.WatchEvents(pb.WatchEventsRequest(include_ringing=True))
    call.initial_metadata()  # subscribed
    events: queue.Queue[pb.DeviceEvent] = queue.Queue()

    def read() -> None:
        try:
            for response in call:
                events.put(response.event)
        except grpc.RpcError:
            pass

    threading.Thread(target=read, daemon=True).start()
    return events, channel


def test_a_timer_set_by_voice_rings_once_on_the_terminal_and_the_stream(
    runtime: Runtime, memory: Path
) -> None:
    events, channel = watch(runtime.address)
    started = time.monotonic()
    asked = ask(memory, "set a timer for 2 seconds")
    assert asked.returncode == 0, asked.stderr
    assert "2 seconds" in asked.stdout
    ringing = events.get(timeout=30)
    assert ringing.kind == pb.DEVICE_EVENT_KIND_TIMER_FIRED
    assert "Time's up" in ringing.text and "2 seconds" in ringing.text
    assert time.monotonic() - started >= 2 - 0.5  # not before its time
    line = runtime.wait_for("timer fired")
    assert ringing.text in line
    # Once: nothing more rings on either surface.
    more = runtime.drain(2)
    assert not [x for x in more if "timer fired" in x]
    assert events.empty()
    # Dismissed through the RPC: it stops ringing, and every surface hears it.
    stub = pb_grpc.EdgeAgentServiceStub(channel)
    done = stub.SettleTimer(
        pb.SettleTimerRequest(timer_id=ringing.timer_id, answer=pb.TIMER_ANSWER_DISMISS)
    )
    assert done.text.startswith("Dismissed")
    assert events.get(timeout=10).kind == pb.DEVICE_EVENT_KIND_TIMER_DISMISSED
    with pytest.raises(grpc.RpcError) as again:
        stub.SettleTimer(
            pb.SettleTimerRequest(timer_id=ringing.timer_id, answer=pb.TIMER_ANSWER_DISMISS)
        )
    assert again.value.code() == grpc.StatusCode.NOT_FOUND
    channel.close()


def test_a_timer_due_while_nothing_ran_is_reported_missed_once(memory: Path) -> None:
    first = Runtime(memory)
    try:
        # Long enough that a slow ask (a loaded machine) is over before it comes due.
        asked = ask(memory, "set a timer for 6 seconds for the eggs")
        assert asked.returncode == 0, asked.stderr
    finally:
        first.kill()  # nothing runs when it comes due
    time.sleep(7.5)
    second = Runtime(memory)
    try:
        line = second.wait_for("timer missed")
        assert "eggs" in line
        events, channel = watch(second.address)
        still = events.get(timeout=10)  # a UI that connects later still sees it ring
        assert still.kind == pb.DEVICE_EVENT_KIND_TIMER_MISSED
        channel.close()
    finally:
        second.stop()
    assert not [x for x in second.seen if "timer fired" in x]
    third = Runtime(memory)
    try:
        assert not [x for x in third.drain(2) if "timer" in x]  # once: not again
    finally:
        third.stop()


@pytest.mark.node
def test_a_node_client_hears_the_timer_ring(runtime: Runtime, memory: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the cross-language test needs Node.js")
    assert (NODE_DIR / "node_modules" / "@grpc" / "proto-loader").exists(), (
        "tests/node/node_modules missing: run `python3.11 dev.py setup`"
    )
    node = subprocess.Popen(
        ["node", str(NODE_DIR / "watch_events.mjs"), runtime.address, "1", "40"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert node.stderr is not None
    while "connected" not in node.stderr.readline():
        assert node.poll() is None, "the Node client ended before it subscribed"
    assert ask(memory, "set a 2 second timer for the tea").returncode == 0
    out, err = node.communicate(timeout=60)
    assert node.returncode == 0, err
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [e["kind"] for e in events] == ["DEVICE_EVENT_KIND_TIMER_FIRED"]
    assert events[0]["label"] == "tea"
