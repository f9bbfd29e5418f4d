"""The commands that serve: `serve`, `run` (the device runtime) and `ui` (the page)."""

from __future__ import annotations

import contextlib

import typer

from edge_agent.cli._common import (
    CloudOption,
    McpOption,
    MemoryOption,
    ModelOption,
    TlsRootOption,
    TokenOption,
    ToolsOption,
    _agent,
    _cloud_target,
)
from edgeloop.console import fail


def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind."),
    port: int = typer.Option(50052, help="Port to bind."),
    cloud: CloudOption = None,
    memory: MemoryOption = None,
    model: ModelOption = None,
    tools: ToolsOption = None,
    mcp: McpOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
    insecure: bool = typer.Option(
        False, "--insecure", help="Serve beyond loopback (the service has no tokens)."
    ),
) -> None:
    """Serve the edge agent over gRPC for clients in any language (the runtime without
    its page: timers ring here too; see `edge-agent run`)."""
    _host_runtime(host, port, None, cloud, memory, model, tools, token, tls_root, insecure, mcp=mcp)


def run_command(
    host: str = typer.Option("127.0.0.1", help="Address to bind."),
    port: int = typer.Option(50052, help="gRPC port (0 picks a free one)."),
    ui_port: int = typer.Option(
        None, "--ui-port", help="Also serve the device page on this port (0 picks a free one)."
    ),
    cloud: CloudOption = None,
    memory: MemoryOption = None,
    model: ModelOption = None,
    tools: ToolsOption = None,
    mcp: McpOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
    insecure: bool = typer.Option(
        False, "--insecure", help="Serve beyond loopback (the service has no tokens)."
    ),
    missed_after: float = typer.Option(
        10.0, "--missed-after", hidden=True, help="Seconds late after which a timer was missed."
    ),
) -> None:
    """The device runtime: keeps the model loaded, rings timers and alarms at their time
    (once, even with several processes on one memory), announces events here, on the
    page and on the WatchEvents RPC; `edge-agent ask` on the same memory goes through it."""
    _host_runtime(
        host,
        port,
        ui_port,
        cloud,
        memory,
        model,
        tools,
        token,
        tls_root,
        insecure,
        missed_after,
        mcp=mcp,
    )


def _host_runtime(
    host: str,
    port: int,
    ui_port: int | None,
    cloud: str | None,
    memory: str | None,
    model: str | None,
    tools: list[str] | None,
    token: str | None,
    tls_root: str | None,
    insecure: bool,
    missed_after: float = 10.0,
    *,
    mcp: list[str] | None = None,
) -> None:
    """Serve the runtime until Ctrl-C; every failure to start is one line."""
    import asyncio

    from edge_agent.paths import memory_path
    from edge_agent.runtime import DeviceRuntime, PageOptions
    from edge_agent.runtime import host as run_host
    from edgeloop.transport.binding import check_exposure, check_port

    try:  # refused before the model loads; the server logs the warning when it starts
        check_port(port)
        check_exposure(host, authenticated=False, insecure=insecure, what="the edge agent")
    except ValueError as exc:
        raise fail(str(exc)) from None
    page = None
    if ui_port is not None:
        from edge_agent.ui import UiAccess

        access = UiAccess.checked(host, None)
        target = _cloud_target(cloud) if cloud else None
        page = PageOptions(ui_port, access, target, token, tls_root)
    agent = _agent(cloud, memory, model, tools, token, tls_root, mcp)
    runtime = DeviceRuntime(agent, missed_after_s=missed_after)

    def say(line: str) -> None:
        typer.echo(line)

    async def main() -> None:
        try:
            await run_host(
                runtime,
                memory_path(memory),
                address=(host, port),
                insecure=insecure,
                page=page,
                cloud=cloud,
                say=say,
            )
        except (OSError, ValueError) as exc:
            raise fail(str(exc)) from None

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(main())
    finally:
        agent.memory.close()


def ui_command(
    host: str = typer.Option("127.0.0.1", help="Address to bind (beyond loopback: --ui-token)."),
    port: int = typer.Option(8765, help="Port to bind (0 picks a free one)."),
    cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT (asks, sync)."),
    memory: MemoryOption = None,
    model: ModelOption = None,
    tools: ToolsOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
    ui_token: str = typer.Option(
        None,
        "--ui-token",
        envvar="EDGELOOP_UI_TOKEN",
        help="Bearer token the page requires (required beyond loopback).",
    ),
    tls_cert: str = typer.Option(None, help="PEM certificate chain: serve the page over HTTPS."),
    tls_key: str = typer.Option(None, help="PEM private key for --tls-cert."),
) -> None:
    """Serve a web page to watch the agent think: live sessions, routes, approvals,
    receipts, memory and sync; a query box asks like `edge-agent ask`."""
    import asyncio

    from edge_agent.ui import DeviceConsole, UiAccess, serve_device_page
    from edgeloop.transport.binding import check_port

    access = UiAccess.checked(host, ui_token)
    try:  # 99999 would be wrapped into another port by getaddrinfo
        check_port(port)
    except ValueError as exc:
        raise fail(str(exc), 2) from None
    if bool(tls_cert) != bool(tls_key):
        raise fail("--tls-cert and --tls-key go together", 2)
    target = _cloud_target(cloud) if cloud else None
    from edge_agent.runtime import DeviceRuntime, terminal_line

    agent = _agent(cloud, memory, model, tools, token, tls_root)
    runtime = DeviceRuntime(agent)  # timers ring on the page (and here)
    runtime.hub.subscribe(lambda event: typer.echo(terminal_line(event), err=True))
    console = DeviceConsole(agent, cloud=target, token=token, tls_root=tls_root, runtime=runtime)

    async def main() -> None:
        try:
            server = await serve_device_page(
                console, port, access, tls_cert=tls_cert, tls_key=tls_key
            )
        except OSError as exc:
            raise fail(f"cannot serve the page on {host}:{port}: {exc}") from None
        typer.echo(f"edge agent page on {server.url}", err=True)
        runtime.start()
        try:
            await server.wait()
        finally:
            runtime.stop()
            await server.stop()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
    agent.memory.close()
