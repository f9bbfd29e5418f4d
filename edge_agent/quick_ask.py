"""`edge-agent ask QUERY` in a few hundredths of a second while a device runtime runs.

The console script's front door (:func:`edge_agent.cli.main`) tries this first. An ask
with no options but ``--memory``, ``--cloud``, ``--json`` and ``--verbose``/``-v``, on a
memory whose runtime (with the same ``--cloud``) has a quick door
(:mod:`edge_agent.ask_socket`), is sent over that Unix socket and printed exactly as the
full command prints it through the runtime: the same lines, the same approval prompt,
the same one-line errors and exit codes (``edge_agent.ask_lines``). Anything else — another
command or option, a token or TLS root in the environment, no runtime, a stale runtime
file, a door that does not open — returns None before anything was sent, and the full
Typer app runs unchanged.

Stdlib only: a process that imports typer (0.08 s) and grpc with protobuf (0.13 s), and
closes a gRPC channel (0.13 s), pays more than the device takes to answer.
"""

from __future__ import annotations

import _socket
import json
import os
import sys

from edge_agent.ask_lines import EXIT_ASKED, EXIT_PENDING, answer_hint, shown

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterator

#: How long to wait for the runtime's socket to accept the connection.
CONNECT_S = 2.0
#: Options that make the full command run (it reads them; an ask through the runtime
#: would ignore them): the device's token and the cloud's TLS root.
FULL_ENV = ("EDGELOOP_TOKEN", "EDGELOOP_TLS_ROOT")
_FLAGS = {"--json": "json", "--verbose": "verbose", "-v": "verbose"}
_VALUED = {"--memory": "memory", "--cloud": "cloud"}


class QuickAsk:
    """An ask the quick path can take: the query and the options it understands."""

    __slots__ = ("cloud", "json", "memory", "query", "verbose")

    def __init__(self, query: str) -> None:
        self.query = query
        self.memory: str | None = None
        self.cloud: str | None = None
        self.json = False
        self.verbose = False


def quick_ask(args: list[str]) -> QuickAsk | None:
    """``args`` (after the program name) as an ask the quick path can take, or None.

    Options may come before or after the query, ``--opt=value`` or ``--opt value`` (the
    last one wins), as click reads them; anything it might read otherwise is left to it.

    >>> quick_ask(["ask", "what's 15% of 80", "--memory=/m/edge.db", "-v"]).memory
    '/m/edge.db'
    >>> quick_ask(["ask", "hi", "--session", "s1"]) is None, quick_ask(["ask"]) is None
    (True, True)
    """
    if not args or args[0] != "ask":
        return None
    found: dict[str, str | bool] = {}
    queries: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        name, has_value, value = arg.partition("=")
        if arg in _FLAGS:
            found[_FLAGS[arg]] = True
        elif name in _VALUED:
            value = value if has_value else next(rest, "-")
            if value.startswith("-"):
                return None
            found[_VALUED[name]] = value
        elif arg.startswith("-"):
            return None  # --session, --model, --help, "--", "-5", ...: the full command
        else:
            queries.append(arg)
    if len(queries) != 1:
        return None
    ask = QuickAsk(queries[0])
    for key, given in found.items():
        setattr(ask, key, given)
    return ask


def peer_uid(conn: _socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (the kernel's word,
    SO_PEERCRED: pid, uid, gid as C ints), or None where the platform does not say (the
    socket's 0600 mode keeps other users out there)."""
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    credentials = conn.getsockopt(_socket.SOL_SOCKET, option, 12)
    return int.from_bytes(credentials[4:8], sys.byteorder)


def connect(path: str) -> _socket.socket | None:
    """A connection to the runtime's quick door at ``path``, or None: nothing listens,
    or it is not this user's. (``_socket``: the ``socket`` module's enums and selectors
    cost a quick ask 4 ms.)"""
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(CONNECT_S)
        conn.connect(path)
        uid = peer_uid(conn)
        if uid is not None and uid != os.getuid():
            raise ConnectionRefusedError(f"{path} is not this user's")
        conn.settimeout(None)  # an answer through the cloud may take a while
    except OSError:
        conn.close()
        return None
    return conn


def lines(conn: _socket.socket) -> Iterator[bytes]:
    """The lines the runtime sends, until it closes the connection."""
    buffer = b""
    while chunk := conn.recv(65536):
        buffer += chunk
        while b"\n" in buffer:
            line, _, buffer = buffer.partition(b"\n")
            yield line


def echo(text: str, err: bool = False) -> None:
    """One line, as ``typer.echo`` writes it (ANSI codes stripped when not a terminal)."""
    stream = sys.stderr if err else sys.stdout
    if "\x1b" in text and not stream.isatty():
        import re

        text = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", text)
    stream.write(text + "\n")
    stream.flush()


def confirm(text: str) -> bool:
    """``typer.confirm(text, default=False, err=True)``: the same prompt and answers.

    Raises:
        EOFError: no answer (the caller says "aborted", as the full command does).
    """
    while True:
        sys.stderr.write(f"{text} [y/N]:")
        sys.stderr.flush()
        value = input(" ").lower().strip()
        if value in ("y", "yes", "n", "no", ""):
            return value in ("y", "yes")
        echo("Error: invalid input", err=True)


def converse(conn: _socket.socket, ask: QuickAsk) -> int:
    """Send the query, print what the runtime answers; the exit code."""
    stdin = sys.stdin
    interactive = bool(stdin and stdin.isatty()) and not ask.json
    conn.sendall(json.dumps({"query": ask.query}).encode() + b"\n")
    final: dict[str, object] = {}
    final_kind = ""
    for line in lines(conn):
        message = json.loads(line)
        if "error" in message:
            echo(f"error: {message['error']}", err=True)
            return 2 if message.get("code") == "INVALID_ARGUMENT" else 1
        if message.get("done"):
            break
        final, final_kind = json.loads(message["step"]), str(message["kind"])
        content = str(final.get("content", ""))
        if ask.json:
            echo(message["step"])
        elif (text := shown(final_kind, content, ask.verbose, interactive)) is not None:
            echo(text)
        if final_kind == "approval":
            approved = interactive and confirm(content)
            conn.sendall(json.dumps({"approved": approved}).encode() + b"\n")
    else:
        echo("error: the device runtime went away before it answered", err=True)
        return 1
    if final_kind == "question":
        if not ask.json:
            echo(answer_hint(str(final.get("sessionId", ""))), err=True)
        return EXIT_ASKED
    metadata = final.get("metadata")
    if ask.cloud and isinstance(metadata, dict) and "pending_id" in metadata:
        return EXIT_PENDING
    return 0


def answer_quickly(args: list[str]) -> int | None:
    """Answer ``edge-agent ARGS`` through a running runtime's quick door: the exit code,
    or None when the full command must run (nothing was sent, nothing printed)."""
    ask = quick_ask(args)
    if ask is None or any(os.environ.get(name) for name in FULL_ENV):
        return None
    from edge_agent.paths import memory_path
    from edge_agent.runtime_file import running_runtime
    from edgeloop.limits import query_problem

    if (problem := query_problem(ask.query)) is not None:
        echo(f"error: {problem}", err=True)
        return 2
    running = running_runtime(memory_path(ask.memory), ask.cloud)
    if running is None or running.socket is None:
        return None
    conn = connect(running.socket)
    if conn is None:
        return None
    try:
        return converse(conn, ask)
    except (KeyboardInterrupt, EOFError):
        sys.stderr.write("edge-agent: aborted\n")
        return 1
    except (OSError, ValueError, KeyError) as exc:  # the runtime broke off mid-answer
        echo(f"error: the device runtime broke off: {exc}", err=True)
        return 1
    finally:
        conn.close()
