"""What the commands share: their options, the router, the agent and the memory."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from edgeloop.console import fail

if TYPE_CHECKING:
    from concurrent.futures import Future

    from edge_agent.agent import EdgeAgent
    from react_kernel import ToolSpec
    from sync.store import MemoryStore
    from understanding.router import Router

MEMORY_HELP = "Memory database (default: $EDGELOOP_HOME/edge.db or ~/.edgeloop/edge.db)."
_TOOLS_HELP = (
    "Your own device tools, MODULE:ATTR (a ToolSpec, a list of them or a function returning "
    "either), for the intents of the same names; repeatable. Tools of installed "
    "'edgeloop.tools' entry points are added too."
)
ToolsOption = Annotated[list[str] | None, typer.Option("--tools", help=_TOOLS_HELP)]
_MCP_HELP = (
    'An MCP server whose tools the device offers, "[NAME=]CMD ARGS" (run over stdio; its '
    "tools not marked read-only need approval); repeatable. Also the `mcp` list of edge.toml "
    "beside the memory. Needs the mcp extra."
)
McpOption = Annotated[list[str] | None, typer.Option("--mcp", help=_MCP_HELP)]
MemoryOption = Annotated[str | None, typer.Option("--memory", help=MEMORY_HELP)]
CloudOption = Annotated[str | None, typer.Option("--cloud", help="Cloud reasoner HOST:PORT.")]
ModelOption = Annotated[
    str | None, typer.Option("--model", help="Router model folder (default: shipped).")
]
TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token", envvar="EDGELOOP_TOKEN", help="This device's bearer token for the cloud."
    ),
]
TlsRootOption = Annotated[
    str | None,
    typer.Option(
        "--tls-root",
        envvar="EDGELOOP_TLS_ROOT",
        help="PEM of the CA (or self-signed certificate) the cloud uses: connect with TLS.",
    ),
]


def _router(
    model: str | None = None, tools: list[str] | None = None, mcp: list[str] | None = None
) -> Router:
    """The router with the user's tools and the MCP servers' (its errors are edge errors:
    the group maps them). The servers start while the model loads."""
    from understanding.router import Router
    from understanding.tools.user import entry_point_tools, load_tools

    if tools and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # `--tools mytools:TOOLS` beside where you run it
    specs = entry_point_tools()
    for reference in tools or []:
        specs.extend(load_tools(reference))
    starting = _start_mcp(mcp) if mcp else None
    router = Router.load(model, tools=specs)
    for spec in starting.result() if starting is not None else []:
        router.add_tool(spec)
    return router


def _start_mcp(commands: list[str]) -> Future[list[ToolSpec]]:
    """Start the MCP servers on a thread, for as long as the command runs; their tools as
    device tools. They are the router's tools like ``--tools`` (the agent registers them),
    though no intent of the router names them: the cloud's plan and the reasoners that
    list the registry reach them."""
    import atexit
    from concurrent.futures import ThreadPoolExecutor

    def start() -> list[ToolSpec]:
        from understanding.tools.mcp_servers import McpTools

        servers = McpTools.start(commands, executor="edge")
        atexit.register(servers.close)
        return servers.specs

    pool = ThreadPoolExecutor(1, thread_name_prefix="mcp-start")
    try:
        return pool.submit(start)
    finally:
        pool.shutdown(wait=False)


def mcp_commands(memory: str | None, given: list[str] | None) -> list[str]:
    """The MCP servers of this run: edge.toml's beside the memory, then ``--mcp``'s."""
    from edge_agent.config_file import load_config_file
    from edge_agent.paths import memory_path

    return [*load_config_file(memory_path(memory).parent).mcp, *(given or [])]


def _cloud_target(cloud: str) -> str:
    """``--cloud`` as given, or exit 2 if it is not HOST:PORT."""
    if ":" not in cloud:
        raise fail(f"--cloud must be HOST:PORT, not {cloud!r}", 2)
    return cloud


def _agent(
    cloud: str | None,
    memory: str | None,
    model: str | None = None,
    tools: list[str] | None = None,
    token: str | None = None,
    tls_root: str | None = None,
    mcp: list[str] | None = None,
) -> EdgeAgent:
    from edge_agent.agent import EdgeAgent

    router = _router(model, tools, mcp_commands(memory, mcp))
    store = _device_store(memory)
    link = None
    if cloud:
        from edge_agent.cloud_link import CloudLink

        try:
            # With a token the cloud knows the device: "" lets the token name it (a fixed
            # id would be refused with PERMISSION_DENIED by a token for another device).
            link = CloudLink(
                _cloud_target(cloud),
                token=token,
                tls_root=tls_root,
                deadline_s=30.0,
                device_id="" if token else "edge",
            )
        except OSError as exc:  # the --tls-root file
            raise fail(f"cannot read --tls-root {tls_root}: {exc.strerror or exc}", 2) from None
    return EdgeAgent(store, router, link)


def _device_store(memory: str | None) -> MemoryStore:
    """The device's memory, keeping history for its ``history_days`` setting (a sync or a
    write that loads the document runs the day's retention pass with it); a store that
    cannot open is a one-line failure."""
    from edge_agent.paths import memory_path
    from sync.store import MemoryStore
    from understanding.settings import keep_history, load_settings

    path = memory_path(memory)
    if memory and not path.parent.is_dir():  # a typo must not create a tree of folders
        raise fail(f"cannot open memory {path}: the folder {path.parent} does not exist", 2)
    try:
        store = MemoryStore.device(path)
    except Exception as exc:  # sqlite and the store's own errors: one line, not a trace
        raise fail(f"cannot open memory {memory_path(memory)}: {exc}") from None
    keep_history(store, load_settings(store))
    return store
