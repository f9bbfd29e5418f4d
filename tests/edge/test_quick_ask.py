"""`edge-agent ask` through a running runtime's quick door (``edge_agent.quick_ask`` and
``edge_agent.ask_socket``): the same lines and exit codes as the full command through the
runtime, a transparent fall back to the full command whenever the door is not there, and
a door only the runtime's user can open.

One real ``edge-agent run`` (the shipped model) on 127.0.0.1 serves the module; the quick
path is asked in this process (so a test knows it answered: it did not return None) and
the full command through the runtime in a subprocess.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_agent.ask_socket import AskSocket
from edge_agent.quick_ask import QuickAsk, answer_quickly, connect, converse, peer_uid, quick_ask
from edge_agent.runtime_file import runtime_file

ROOT = Path(__file__).resolve().parents[2]
FULL = "import sys; from edge_agent.cli.commands import main; sys.argv[0] = 'edge-agent'; main()"
FRONT = (
    "import json, sys\n"
    "from edge_agent.cli import main\n"
    "sys.argv = ['edge-agent', *sys.argv[1:]]\n"
    "try:\n"
    "    main()\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "loaded = {m: m in sys.modules for m in ('typer', 'grpc', 'google.protobuf')}\n"
    "print('\\n' + json.dumps({'code': code, **loaded}), file=sys.stderr)\n"
)
#: Fields of a --json step that differ between two asks of the same query.
VOLATILE = (
    "sessionId",
    "actId",
    "createdAt",
    "latencyMs",
    "traceId",
    "receiptId",
    "idempotencyKey",
)


class Runtime:
    """``edge-agent run`` on a memory, its terminal in a file."""

    def __init__(self, memory: Path, *extra: str) -> None:
        self.memory = memory
        self.log = memory.with_name("terminal.log")
        command = ["run", "--memory", str(memory), "--port", "0", *extra]
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "edge_agent", *command],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env_for(memory),
                # SIGINT stops it even when the tests run as a background job.
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
            )
        deadline = time.monotonic() + 90
        while "serving on" not in self.log.read_text():
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.1)
        self.address = self.log.read_text().split("serving on ", 1)[1].split()[0]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def env_for(memory: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("EDGELOOP_TOKEN", "EDGELOOP_TLS_ROOT")}
    return {**env, "EDGELOOP_HOME": str(memory.parent), "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    running = Runtime(tmp_path_factory.mktemp("quick") / "edge.db")
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDGELOOP_TOKEN", raising=False)
    monkeypatch.delenv("EDGELOOP_TLS_ROOT", raising=False)


def full_ask(
    memory: Path, *args: str, stdin: int | None = None
) -> subprocess.CompletedProcess[str]:
    """The full Typer command (through the runtime over gRPC)."""
    return subprocess.run(
        [sys.executable, "-c", FULL, "ask", *args, "--memory", str(memory)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env_for(memory),
        stdin=subprocess.DEVNULL if stdin is None else stdin,
    )


def steady(text: str) -> str:
    """--json lines without what differs between two asks (ids, times, the order of a
    map's keys); other output unchanged."""
    lines = []
    for line in text.splitlines():
        if line.startswith("{"):
            step = json.loads(line)
            line = json.dumps({k: v for k, v in step.items() if k not in VOLATILE}, sort_keys=True)
        lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize(
    "args",
    [
        ("what's 15% of 80",),
        ("what's 15% of 80", "--verbose"),
        ("-v", "convert 5 miles to kilometers"),
        ("what's 15% of 80", "--json"),
        ("what's on my shopping list",),
        ("unlock the front door", "-v"),  # no one at a terminal: not approved
        ("unlock the front door", "--json"),
    ],
)
def test_the_quick_path_prints_what_the_full_command_prints(
    runtime: Runtime, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    code = answer_quickly(["ask", *args, "--memory", str(runtime.memory)])
    quick = capsys.readouterr()
    full = full_ask(runtime.memory, *args)
    assert code == full.returncode == 0, full.stderr
    assert steady(quick.out) == steady(full.stdout) and quick.out.strip()
    assert quick.err == full.stderr == ""


def test_a_question_asked_back_exits_3_with_the_same_hint(
    runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    code = answer_quickly(["ask", "set a timer", f"--memory={runtime.memory}"])
    quick = capsys.readouterr()
    full = full_ask(runtime.memory, "set a timer")
    assert code == full.returncode == 3
    assert quick.out == full.stdout == "For how long?\n"
    hint = '(answer: edge-agent ask --session {} "...")'
    for err in (quick.err, full.stderr):
        session = err.split("--session ", 1)[1].split()[0]
        assert err == hint.format(session) + "\n"


def test_an_approval_is_asked_at_the_terminal_once(runtime: Runtime) -> None:
    """With a terminal the prompt is typer's, once; "n" leaves the door locked."""
    outputs = []
    for command in (FRONT, FULL):
        leader, follower = pty.openpty()
        os.write(leader, b"n\n")
        done = subprocess.run(
            [sys.executable, "-c", command, "ask", "unlock the front door"],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=env_for(runtime.memory),
        )
        os.close(follower)
        os.close(leader)
        outputs.append(done)
    quick, full = outputs
    said = json.loads(quick.stderr.splitlines()[-1])
    assert said["code"] == 0 and not said["typer"] and not said["grpc"]  # the quick path
    prompt = 'Approve device_control with {"action":"unlock","device":"door_lock"}? [y/N]:'
    assert quick.stderr.splitlines()[0] == full.stderr.splitlines()[0] == prompt
    assert quick.stdout == full.stdout and "nobody approved" in quick.stdout


def test_a_query_kept_pending_exits_75_on_both_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A runtime whose cloud is down keeps a cloud query pending: EX_TEMPFAIL."""
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        cloud = f"127.0.0.1:{unused.getsockname()[1]}"
    running = Runtime(tmp_path / "edge.db", "--cloud", cloud)
    try:
        args = ("write a poem about the sea", "--cloud", cloud)
        code = answer_quickly(["ask", *args, "--memory", str(running.memory)])
        quick = capsys.readouterr()
        full = full_ask(running.memory, *args)
    finally:
        running.stop()
    assert code == full.returncode == 75, full.stderr
    for out in (quick.out, full.stdout):
        assert "saved your question" in out
    assert quick.out.split("(pending ")[0] == full.stdout.split("(pending ")[0]
    assert quick.err == full.stderr == ""


def test_the_console_front_loads_neither_typer_nor_grpc(runtime: Runtime) -> None:
    done = subprocess.run(
        [sys.executable, "-c", FRONT, "ask", "what's 15% of 80", "--memory", str(runtime.memory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env_for(runtime.memory),
    )
    assert done.stdout == "15% of 80 = 12.\n"
    assert json.loads(done.stderr) == {
        "code": 0,
        "typer": False,
        "grpc": False,
        "google.protobuf": False,
    }


@pytest.mark.parametrize(
    ("query", "says"),
    [("", "the query is empty"), ("?!", "the query has no words"), ("x" * 4001, "the limit")],
)
def test_a_refused_query_is_one_line_and_exit_2(
    runtime: Runtime, capsys: pytest.CaptureFixture[str], query: str, says: str
) -> None:
    code = answer_quickly(["ask", query, "--memory", str(runtime.memory)])
    quick = capsys.readouterr()
    full = full_ask(runtime.memory, query)
    assert code == full.returncode == 2
    assert quick.err == full.stderr and quick.err.startswith("error: ") and says in quick.err
    assert len(quick.err.splitlines()) == 1 and quick.out == ""


def test_the_services_refusal_is_one_line(
    runtime: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the gRPC service refuses comes back as its status: one line, exit 2 for
    INVALID_ARGUMENT (as the full command maps it)."""
    conn = connect(str(runtime.memory.with_name("edge.db.sock")))
    assert conn is not None
    with contextlib.closing(conn):
        code = converse(conn, QuickAsk("   "))
    assert code == 2
    assert capsys.readouterr().err == "error: the query is empty\n"


@pytest.mark.parametrize("request_line", [b"not json\n", b'{"query": 5}\n', b"[]\n"])
def test_a_request_the_door_cannot_read_is_refused(runtime: Runtime, request_line: bytes) -> None:
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(runtime.memory.with_name("edge.db.sock")))
        conn.sendall(request_line)
        with conn.makefile("rb") as answers:
            answer = json.loads(answers.readline())
    assert answer["code"] == "INVALID_ARGUMENT" and "query" in answer["error"]


def test_the_door_is_the_owners_only(runtime: Runtime) -> None:
    door = Path(json.loads(runtime_file(runtime.memory).read_text())["socket"])
    assert stat.S_ISSOCK(door.stat().st_mode)
    assert stat.S_IMODE(door.stat().st_mode) == 0o600
    conn = connect(str(door))
    assert conn is not None
    with contextlib.closing(conn):
        assert peer_uid(conn) in (None, os.getuid())


@pytest.mark.skipif(
    os.getuid() != 0 or not hasattr(socket, "SO_PEERCRED"),
    reason="needs root to connect as another user, and SO_PEERCRED",
)
def test_another_user_is_turned_away_even_where_the_file_would_let_them(
    runtime: Runtime,
) -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        folder.chmod(0o755)
        door = AskSocket.open(folder / "edge.db", runtime.address)
        try:
            door.path.chmod(0o666)
            code = (
                "import socket, sys\n"
                "s = socket.socket(socket.AF_UNIX)\n"
                "s.connect(sys.argv[1])\n"
                "try:\n"
                '    s.sendall(b\'{"query": "what is 2 + 2"}\\n\')\n'
                "    got = s.recv(1000)\n"
                "except OSError:\n"
                "    got = b''\n"
                "print(repr(got))\n"
            )
            done = subprocess.run(
                [sys.executable, "-c", code, str(door.path)],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
                user=65534,
                env={"PATH": os.environ.get("PATH", "")},
            )
        finally:
            door.close()
    finally:
        shutil.rmtree(folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "b''"  # closed unanswered
    assert not door.path.exists()


def test_a_memory_path_too_long_for_a_socket_gets_a_private_folder(
    runtime: Runtime, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    door = AskSocket.open(deep / "edge.db", runtime.address)
    try:
        assert door.path.parent != deep
        assert stat.S_IMODE(door.path.parent.stat().st_mode) == 0o700
        conn = connect(str(door.path))
        assert conn is not None
        with contextlib.closing(conn):
            assert converse(conn, QuickAsk("what's 15% of 80")) == 0
        assert capsys.readouterr().out == "15% of 80 = 12.\n"
    finally:
        door.close()
    assert not door.path.parent.exists()


def _runtime_file(memory: Path, pid: int, socket_path: str | None) -> None:
    runtime_file(memory).write_text(
        json.dumps({"pid": pid, "address": "127.0.0.1:1", "cloud": None, "socket": socket_path})
    )


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def _left_behind(path: Path) -> str:
    """A socket file nothing listens on (what a killed runtime leaves)."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
    return str(path)


@pytest.mark.parametrize(
    "left",
    ["no runtime file", "dead pid", "no socket in the file", "no socket file", "no listener"],
)
def test_without_a_door_the_full_command_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], left: str
) -> None:
    memory = tmp_path / "edge.db"
    if left == "dead pid":
        _runtime_file(memory, _dead_pid(), _left_behind(tmp_path / "edge.db.sock"))
    elif left == "no socket in the file":
        _runtime_file(memory, os.getpid(), None)
    elif left == "no socket file":
        _runtime_file(memory, os.getpid(), str(tmp_path / "edge.db.sock"))
    elif left == "no listener":
        _runtime_file(memory, os.getpid(), _left_behind(tmp_path / "edge.db.sock"))
    assert answer_quickly(["ask", "what's 15% of 80", "--memory", str(memory)]) is None
    assert capsys.readouterr() == ("", "")


def test_a_killed_runtime_leaves_asks_cold_and_right(tmp_path: Path) -> None:
    """Its stale runtime file and socket are passed over: the ask answers cold."""
    memory = tmp_path / "edge.db"
    _runtime_file(memory, _dead_pid(), _left_behind(tmp_path / "edge.db.sock"))
    done = subprocess.run(
        [sys.executable, "-m", "edge_agent", "ask", "what's 15% of 80", "--memory", str(memory)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env_for(memory),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "15% of 80 = 12.\n", "")


def test_another_cloud_or_a_token_goes_the_full_way(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["ask", "what's 15% of 80", "--memory", str(runtime.memory)]
    assert answer_quickly([*args, "--cloud", "127.0.0.1:1"]) is None  # the runtime has none
    monkeypatch.setenv("EDGELOOP_TOKEN", "t")
    assert answer_quickly(args) is None


# What click reads from the same words: the quick path takes an ask only when it reads
# it the same way (or leaves it to click).
WORDS = st.sampled_from(
    [
        "--json", "--verbose", "-v", "-vv", "--memory", "--memory=/m/a.db", "/m/b.db", "--cloud",
        "h:1", "--cloud=h:2", "what's 15% of 80", "hi there", "", "--session", "s1", "--model",
        "--", "-", "-x", "--help", "--json=1", "--tools",
    ]
)  # fmt: skip


def _ask_command() -> Any:
    import typer.main

    from edge_agent.cli import app

    return typer.main.get_command(app).commands["ask"]  # type: ignore[attr-defined]


_ASK_COMMAND = _ask_command()


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=6))
def test_the_quick_parser_reads_an_ask_as_click_does(words: list[str]) -> None:
    found = quick_ask(["ask", *words])
    if found is None:
        return
    params = _ASK_COMMAND.make_context("ask", list(words)).params
    assert params["query"] == found.query
    assert (params["memory"], params["cloud"]) == (found.memory, found.cloud)
    assert (params["json_output"], params["verbose"]) == (found.json, found.verbose)
    assert not (params["session"] or params["model"] or params["tools"])
