"""MCP servers as tools: each tool of a Model Context Protocol server as a kernel ToolSpec.

``--mcp "CMD ARGS"`` (``edge-agent``, ``cloud-agent serve``) starts an MCP server over
stdio with the official ``mcp`` SDK (the ``edgeloop[mcp]`` extra), lists its tools and
offers each one as a :class:`react_kernel.ToolSpec` whose function calls the tool::

    with McpTools.start(["garden=python garden_server.py"]) as mcp:
        spec = mcp.specs[0]                  # mcp_garden_plant_info, ...
        spec.func({"plant": "fern"})         # {'plant': 'fern', 'ml_per_week': 200}

Why here: both agents turn MCP tools into ToolSpecs, so the adapter sits in the layer
both import, beside the user's own tools (``understanding.tools.user``); the kernel stays
free of any transport, and nothing imports this module (nor ``mcp``, pydantic, anyio)
unless an MCP server is configured.

- **Names**: ``mcp_<server>_<tool>``, lower-case letters, digits and ``_``, at most 64
  characters (a longer one keeps a hash of the whole). The server's name is the part before
  ``=`` in ``NAME=CMD ARGS``, else the program's name (for an interpreter or launcher —
  python, node, npx, uvx … — the script's or package's name).
- **Safety**: a tool the server does not mark ``readOnlyHint`` has side effects, so on
  the device it needs a person's approval and a retried ACTION replays its stored result.
  (The annotations are the server's own claims: an MCP server is a program the user
  chose to run, trusted as the ``--tools`` modules are.)
- **Calls**: the kernel's tools are plain functions; the MCP session lives on an event
  loop in a daemon thread as long as the :class:`McpServer`. A call waits at most
  ``timeout_s``; a tool's error result, a crashed server or a timeout raise
  :class:`McpToolError`, which the kernel records as the call's ERROR observation.
- **Observations**: ``structuredContent`` as it is (a non-object wrapped as ``{"result":
  ...}``), else the text blocks joined as ``{"text": ...}`` (other blocks listed, their
  data left out).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import re
import shlex
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal, TextIO

from understanding.errors import UnderstandingError, UserToolError

if TYPE_CHECKING:
    from mcp import ClientSession

    from edgeloop.transport.loop import EventLoopThread
    from react_kernel import ToolSpec

__all__ = [
    "CALL_TIMEOUT_S",
    "START_TIMEOUT_S",
    "McpServer",
    "McpServerError",
    "McpTool",
    "McpToolError",
    "McpTools",
    "observation_of",
    "server_command",
    "tool_name",
]

#: Seconds one tool call may take (the cloud waits as long for a device's observation).
CALL_TIMEOUT_S = 30.0
#: Seconds a server has to start, answer ``initialize`` and list its tools (``npx``/``uvx``
#: may fetch the package on first use).
START_TIMEOUT_S = 60.0
#: Programs that run a script or a package: the server is named after what they run.
_LAUNCHERS = frozenset(
    {"python", "python3", "py", "node", "nodejs", "deno", "bun", "bunx", "npx", "pnpx"}
    | {"uv", "uvx", "pipx", "sh", "bash", "env", "ruby", "java", "docker", "podman"}
)
_LAUNCHER_WORDS = frozenset({"run", "exec", "tool", "dlx"})
_GENERIC = frozenset({"", "mcp", "server", "index", "main", "build", "dist", "src", "lib", "bin"})
_NAMED = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)=(.*)$", re.DOTALL)
MAX_NAME = 64


class McpServerError(UserToolError):
    """An MCP server cannot be started or listed, or its tools cannot be offered."""


class McpToolError(UnderstandingError, RuntimeError):
    """One MCP tool call failed: the tool's error result, a crashed server, a timeout."""


def _slug(text: str) -> str:
    """Lower-case letters, digits and single ``_`` (the shape every tool name takes)."""
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", text.lower())).strip("_")


def server_command(text: str) -> tuple[str, list[str]]:
    """The server's name and its argv from ``"[NAME=]CMD ARGS"`` (shell-like quoting).

    >>> server_command("python tests/mcp/garden_server.py --log /tmp/log")
    ('garden', ['python', 'tests/mcp/garden_server.py', '--log', '/tmp/log'])
    >>> server_command("files=npx -y @modelcontextprotocol/server-filesystem /tmp")[0]
    'files'
    >>> server_command("npx -y @modelcontextprotocol/server-filesystem /tmp")[0]
    'filesystem'
    >>> server_command("uvx mcp-server-fetch")[0]
    'fetch'

    Raises:
        McpServerError: no command, unbalanced quotes, or no usable name.
    """
    named = _NAMED.match(text.strip())
    given = named.group(1) if named else None
    try:
        argv = shlex.split(named.group(2) if named else text)
    except ValueError as exc:
        raise McpServerError(f"--mcp {text!r}: {exc}") from None
    if not argv:
        raise McpServerError(f"--mcp {text!r}: no command to run")
    if given is None and "=" in argv[0]:
        raise McpServerError(
            f"--mcp {text!r}: a server's name (before '=') starts with a letter, then "
            "letters, digits, '-' or '_'"
        )
    name = _slug(given) if given is not None else _trimmed(_slug(_program_name(argv)))
    if not name or not name[0].isalpha():
        raise McpServerError(f"--mcp {text!r}: name the server: --mcp 'NAME=CMD ARGS'")
    return name[:24].rstrip("_"), argv


def _trimmed(name: str) -> str:
    """A program's name without the words every MCP server's has (mcp, server)."""
    trimmed = re.sub(r"^(?:mcp_)?(?:server_)?|(?:_mcp)?(?:_server)?$", "", name)
    return trimmed or name


def _program_name(argv: list[str]) -> str:
    """The program, or for a launcher the first argument that is not an option (a script,
    a package): ``python x/garden.py`` -> garden, ``npx -y @scope/server-fs`` -> server-fs."""
    program = PurePath(argv[0]).name
    if _slug(PurePath(program).stem).rstrip("0123456789._") not in _LAUNCHERS:
        return PurePath(program).stem
    args = iter(argv[1:])
    for arg in args:
        if arg == "-c":  # inline code: nothing to name it after
            break
        if arg == "-m":  # python -m package.server
            return next(args, program).rsplit(".", 1)[-1]
        if arg.startswith("-") or arg in _LAUNCHER_WORDS or "=" in arg:
            continue
        return _named_after(arg)
    return PurePath(program).stem


def _named_after(target: str) -> str:
    """A script's or package's telling name: the last path segment that is not generic
    (``weather/build/index.js`` -> weather, ``@playwright/mcp@latest`` -> playwright)."""
    segments = [
        PurePath(part.split("@", 1)[0] or part.lstrip("@")).stem for part in target.split("/")
    ]
    for segment in reversed(segments):
        if segment and _trimmed(_slug(segment)) not in _GENERIC:
            return segment
    return segments[-1] or target


def tool_name(server: str, tool: str) -> str:
    """The kernel's name of an MCP tool: ``mcp_<server>_<tool>``, at most 64 characters.

    >>> tool_name("garden", "plant-info")
    'mcp_garden_plant_info'
    >>> len(tool_name("garden", "x" * 80))
    64
    """
    name = _slug(f"mcp_{server}_{tool}")
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9].rstrip('_')}_{digest}"
    return name


def observation_of(result: dict[str, Any]) -> dict[str, Any]:
    """The observation of a ``CallToolResult`` (its JSON form, camelCase keys).

    >>> observation_of({"content": [{"type": "text", "text": "HI!"}]})
    {'text': 'HI!'}
    >>> observation_of({"content": [], "structuredContent": {"ml": 200}})
    {'ml': 200}

    Raises:
        McpToolError: the result says ``isError`` (with the tool's words).
    """
    blocks = result.get("content") or []
    texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
    if result.get("isError"):
        raise McpToolError("; ".join(t for t in texts if t) or "the tool reported an error")
    structured = result.get("structuredContent")
    if structured is not None:
        return structured if isinstance(structured, dict) else {"result": structured}
    observation: dict[str, Any] = {"text": "\n".join(texts)}
    others = [
        {k: v for k, v in b.items() if k in ("type", "mimeType", "uri", "name")}
        for b in blocks
        if b.get("type") != "text"
    ]
    if others:
        observation["attachments"] = others
    return observation


def _output_schema(tool: dict[str, Any]) -> dict[str, Any]:
    """The observation schema: the tool's ``outputSchema`` (wrapped like its value when it
    is not an object), else any object."""
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict):
        return {"type": "object"}
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {"result": schema}, "required": ["result"]}


def _read_only(tool: dict[str, Any]) -> bool:
    return bool((tool.get("annotations") or {}).get("readOnlyHint"))


@dataclass(frozen=True, slots=True)
class McpTool:
    """One tool a server listed, with the name the kernel knows it by."""

    server: McpServer
    name: str
    tool: dict[str, Any]

    @property
    def read_only(self) -> bool:
        """Whether the server marks it ``readOnlyHint`` (nothing else counts as safe)."""
        return _read_only(self.tool)

    def spec(self, executor: Literal["edge", "cloud"] = "edge") -> ToolSpec:
        """The kernel's ToolSpec: side effects and (on the device) approval unless the
        tool is read-only; the call runs through the server's session."""
        from react_kernel import ToolSpec
        from understanding.tools import idempotency_key

        effects = not self.read_only
        mcp_name = str(self.tool["name"])
        schema = self.tool.get("inputSchema")
        description = self.tool.get("description") or self.tool.get("title") or mcp_name
        return ToolSpec(
            name=self.name,
            description=f"{description} (MCP server {self.server.name})",
            input_schema=schema if isinstance(schema, dict) else {"type": "object"},
            output_schema=_output_schema(self.tool),
            func=lambda args: self.server.call(mcp_name, args),
            timeout_s=None,  # the call bounds its own wait (a watchdog thread would too)
            side_effects=effects,
            idempotency_key=idempotency_key(self.name) if effects else None,
            needs_approval=effects and executor == "edge",
            executor=executor,
        )


class McpServer:
    """One MCP server over stdio; its session runs on a loop thread until :meth:`close`.

    Raises (``start``):
        McpServerError: the ``mcp`` package is missing, the program cannot start, or it
            does not answer ``initialize`` and ``tools/list`` within ``start_timeout_s``.
    """

    def __init__(
        self,
        command: str,
        *,
        timeout_s: float = CALL_TIMEOUT_S,
        start_timeout_s: float = START_TIMEOUT_S,
    ) -> None:
        self.command = command
        self.name, self.argv = server_command(command)
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self.tools: list[McpTool] = []
        self._loop: EventLoopThread | None = None
        self._session: ClientSession | None = None
        self._stop: asyncio.Event | None = None
        self._task: concurrent.futures.Future[None] | None = None
        self._ended = threading.Event()  # the session's task has finished (and its server)
        # The server's stderr (from start on): kept, so a failure can quote its last line.
        self._errlog: TextIO | None = None

    def start(self) -> list[McpTool]:
        """Start the server, initialise the session and list every tool (all pages)."""
        try:
            from mcp import ClientSession  # noqa: F401 - the extra's presence, checked early
        except ImportError:
            raise McpServerError(
                "MCP servers need the mcp package: pip install 'edgeloop[mcp]'"
            ) from None
        from edgeloop.transport.loop import EventLoopThread

        self._errlog = tempfile.TemporaryFile(  # noqa: SIM115 - closed by close()
            "a+", encoding="utf-8", errors="replace"
        )
        self._loop = EventLoopThread()
        ready: concurrent.futures.Future[list[dict[str, Any]]] = concurrent.futures.Future()
        self._task = self._loop.submit(self._serve(ready, self._errlog))
        try:
            listed = ready.result(self.start_timeout_s)
        except Exception as exc:
            if isinstance(exc, concurrent.futures.TimeoutError):
                why = f"did not list its tools within {self.start_timeout_s:g} s"
            else:
                why = f"({self.argv[0]}) failed to start: {_reason(exc)}"
            message = f"MCP server {self.name!r} {why}{self._said()}"
            self.close()
            raise McpServerError(message) from None
        self.tools = self._named(listed)
        return self.tools

    def _named(self, listed: list[dict[str, Any]]) -> list[McpTool]:
        tools: dict[str, McpTool] = {}
        for tool in listed:
            name = tool_name(self.name, str(tool.get("name", "")))
            if name in tools:
                raise McpServerError(
                    f"MCP server {self.name!r}: tools {tools[name].tool['name']!r} and "
                    f"{tool.get('name')!r} would both be {name!r}"
                )
            tools[name] = McpTool(self, name, tool)
        return list(tools.values())

    async def _serve(
        self, ready: concurrent.futures.Future[list[dict[str, Any]]], errlog: TextIO
    ) -> None:
        """Hold the session open (the SDK's contexts live in this one task) until stopped."""
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self._stop = asyncio.Event()
        params = StdioServerParameters(command=self.argv[0], args=self.argv[1:])
        try:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, read_timeout_seconds=self.start_timeout_s) as session,
            ):
                await session.initialize()
                listed = await _list_tools(session)
                self._session = session
                ready.set_result(listed)
                await self._stop.wait()
        except BaseException as exc:  # cancelled too: the task ends here either way
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError("stopped"))
        finally:
            self._session = None
            self._ended.set()

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """Call one of the server's tools (its MCP name); the observation dict.

        Raises:
            McpToolError: the tool's error result, a crashed or closed server, a timeout.
        """
        session, loop = self._session, self._loop
        if session is None or loop is None:
            raise McpToolError(f"MCP server {self.name!r} is not running{self._said()}")
        where = f"MCP tool {tool!r} ({self.name})"
        since = self._said_at()
        future = loop.submit(session.call_tool(tool, args, read_timeout_seconds=self.timeout_s))
        try:
            result = future.result(self.timeout_s + 2.0)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpToolError(f"{where} did not answer within {self.timeout_s:g} s") from None
        except Exception as exc:  # the SDK's MCPError (closed connection, timeout, refusal)
            raise McpToolError(f"{where} failed: {_reason(exc)}{self._said(since)}") from None
        try:
            return observation_of(result.model_dump(by_alias=True, mode="json", exclude_none=True))
        except McpToolError as exc:
            raise McpToolError(f"{where} reported an error: {exc}") from None

    def _said_at(self) -> int:
        """How much the server has written on stderr so far."""
        if self._errlog is None:
            return 0
        try:
            self._errlog.flush()
            return self._errlog.seek(0, 2)
        except (OSError, ValueError):
            return 0

    def _said(self, since: int = 0) -> str:
        """``(server said: <its last stderr line since then>)`` when there is one: why it
        failed, in its own words."""
        if self._errlog is None:
            return ""
        try:
            self._errlog.flush()
            end = self._errlog.seek(0, 2)
            self._errlog.seek(max(since, end - 4000))
            lines = [line.strip(" │╭╰─") for line in self._errlog.read().splitlines()]
        except (OSError, ValueError):
            return ""
        last = next((line for line in reversed(lines) if line), "")
        return f" (server said: {last[:200]})" if last else ""

    def close(self) -> None:
        """End the session and the server (the SDK stops it: stdin closed, then signals),
        then the loop thread. Idempotent."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        errlog, self._errlog = self._errlog, None
        if self._session is not None and self._stop is not None:
            loop.submit(_set(self._stop))  # the contexts unwind in their own task
        elif self._task is not None:
            self._task.cancel()  # still starting: cancelling unwinds the same way
        if self._stop is not None:  # the task ran (a task cancelled unstarted never does)
            self._ended.wait(15.0)  # the SDK's own shutdown is bounded (~6 s)
        loop.close()
        if errlog is not None:
            errlog.close()


async def _set(event: asyncio.Event) -> None:
    event.set()


async def _list_tools(session: ClientSession) -> list[dict[str, Any]]:
    """Every tool of the server, following ``nextCursor`` (a bounded number of pages)."""
    from mcp.types import PaginatedRequestParams

    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(100):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _started(server: McpServer) -> McpServerError | None:
    """Start one server; its error instead of raising it (the others may be closed)."""
    try:
        server.start()
    except McpServerError as exc:
        return exc
    return None


def _reason(error: BaseException) -> str:
    """One line for an error, the first of an exception group's."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


class McpTools:
    """Several MCP servers started together, their tools as ToolSpecs; close them all.

    ``executor="cloud"`` gives cloud-side tools: no approval (the cloud has nobody to
    ask; whether tools with side effects are offered at all is the caller's choice).
    """

    def __init__(self, servers: list[McpServer], specs: list[ToolSpec]) -> None:
        self.servers = servers
        self.specs = specs

    @classmethod
    def start(
        cls,
        commands: Iterable[str],
        *,
        executor: Literal["edge", "cloud"] = "edge",
        timeout_s: float = CALL_TIMEOUT_S,
        start_timeout_s: float = START_TIMEOUT_S,
    ) -> McpTools:
        """Start each ``"[NAME=]CMD ARGS"``; all or none (a failure closes the others).

        Raises:
            McpServerError: a server fails to start, or two servers share a name.
        """
        servers = [
            McpServer(command, timeout_s=timeout_s, start_timeout_s=start_timeout_s)
            for command in commands
        ]
        names = [server.name for server in servers]
        if len(set(names)) < len(names):
            twice = sorted({name for name in names if names.count(name) > 1})
            raise McpServerError(
                f"two MCP servers are named {twice[0]!r}: name them, --mcp 'NAME=CMD ARGS'"
            )
        # Side by side: each start waits on its own program (an interpreter, a download).
        with concurrent.futures.ThreadPoolExecutor(max(1, len(servers))) as pool:
            outcomes = list(pool.map(_started, servers))
        failed = next((error for error in outcomes if error is not None), None)
        if failed is not None:
            cls(servers, []).close()
            raise failed
        specs = [tool.spec(executor) for server in servers for tool in server.tools]
        return cls(servers, specs)

    def close(self) -> None:
        """Stop every server, side by side (idempotent)."""
        if len(self.servers) == 1:
            self.servers[0].close()
        elif self.servers:
            with concurrent.futures.ThreadPoolExecutor(len(self.servers)) as pool:
                list(pool.map(McpServer.close, self.servers))

    def __enter__(self) -> McpTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
