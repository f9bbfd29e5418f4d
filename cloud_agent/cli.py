"""`cloud-agent`: serve the cloud reasoner, evaluate the planner, debug model replies."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from typing import TYPE_CHECKING, Any

import typer

from edgeloop.console import fail, run_app

if TYPE_CHECKING:
    from cloud_agent.config import CloudConfig
    from cloud_agent.service import CloudServer

app = typer.Typer(help="The edgeloop cloud reasoner.", no_args_is_help=True, add_completion=False)


@app.command()
def serve(
    host: str = typer.Option(None, help="Address to bind \\[default: 127.0.0.1]."),
    port: int = typer.Option(None, help="Port to bind (0 picks a free one) \\[default: 50051]."),
    config: str = typer.Option(None, "--config", help="A TOML config file (see docs/cloud.md)."),
    backend: list[str] = typer.Option(  # noqa: B008 - typer's idiom
        None, "--backend", help="Backend, in fallback order (repeat): planner, openai."
    ),
    openai_base_url: str = typer.Option(None, help="OpenAI-compatible endpoint base URL."),
    openai_model: str = typer.Option(None, help="Model name for the openai backend."),
    openai_tools: str = typer.Option(
        None, help="How the openai backend calls tools: native, text or auto \\[default: auto]."
    ),
    tokens: str = typer.Option(None, "--tokens", help="Bearer-token file (JSON)."),
    tls_cert: str = typer.Option(None, help="PEM certificate chain (enables TLS)."),
    tls_key: str = typer.Option(None, help="PEM private key."),
    metrics_port: int = typer.Option(None, help="Serve Prometheus metrics on this port."),
    rate: float = typer.Option(None, "--rate", help="Requests per second per device (0: off)."),
    memory_dir: str = typer.Option(None, help="Folder of per-user memory for sync."),
    memory_url: str = typer.Option(
        None, help="PostgreSQL URL of every user's memory (replicas share it; see docs/scaling.md)."
    ),
    memory_cache_users: int = typer.Option(
        None, help="User memories each replica keeps loaded \\[default: 1000]."
    ),
    memory_cache_mb: float = typer.Option(
        None, help="Megabytes of loaded user memory per replica \\[default: 256]."
    ),
    memory_idle_s: float = typer.Option(
        None, help="Unload a user's memory after this many idle seconds \\[default: 600]."
    ),
    ui_port: int = typer.Option(
        None, help="Also serve the web page (sessions, backends, figures, memory) on this port."
    ),
    ui_token: str = typer.Option(
        None,
        "--ui-token",
        envvar="EDGELOOP_UI_TOKEN",
        help="Bearer token the page requires (required beyond loopback).",
    ),
    metrics_host: str = typer.Option(
        None, help="Address of the metrics endpoint \\[default: 127.0.0.1]."
    ),
    insecure: bool = typer.Option(
        False,
        "--insecure",
        help="Serve beyond loopback without tokens, or metrics beyond loopback (loud warning).",
    ),
    planner_split: str = typer.Option(
        None,
        help="How the planner finds a compound query's requests: rules, or model (a joint "
        "router's parse) \\[default: model].",
    ),
    planner_router: str = typer.Option(
        None, help="The edge router folder the planner asks \\[default: the shipped one]."
    ),
    mcp: list[str] = typer.Option(  # noqa: B008 - typer's idiom
        None,
        "--mcp",
        help='An MCP server whose read-only tools the cloud runs, "[NAME=]CMD ARGS" (stdio; '
        "repeat for more; needs the mcp extra).",
    ),
    mcp_side_effects: bool = typer.Option(
        False,
        "--mcp-side-effects",
        help="Also offer the MCP tools not marked read-only (they run without approval).",
    ),
) -> None:
    """Serve the cloud reasoner over gRPC (health checking and reflection included)."""
    settings = _settings(
        config,
        host=host,
        port=port,
        backends=tuple(backend) if backend else None,
        openai_base_url=openai_base_url,
        openai_model=openai_model,
        openai_tools=openai_tools,
        tokens_file=tokens,
        tls_cert=tls_cert,
        tls_key=tls_key,
        metrics_port=metrics_port,
        rate_per_s=rate,
        memory_dir=memory_dir,
        memory_url=memory_url,
        memory_cache_users=memory_cache_users,
        memory_cache_mb=memory_cache_mb,
        memory_idle_s=memory_idle_s,
        metrics_host=metrics_host,
        insecure=insecure or None,
        planner_split=planner_split,
        planner_router=planner_router,
        mcp=tuple(mcp) if mcp else None,
        mcp_side_effects=mcp_side_effects or None,
    )
    if ui_port is not None:
        _check_page_access(settings.host, ui_token)
    cloud = _checked_server(settings)
    _configure_logging()
    asyncio.run(_serve_until_stopped(cloud, settings, ui_port, ui_token))


def _settings(config: str | None, **overrides: Any) -> CloudConfig:
    """The config file with the command line's options over it; a bad value exits 2."""
    from cloud_agent.config import CloudConfig

    try:
        return CloudConfig.load(config, **overrides)
    except ValueError as exc:
        raise fail(str(exc), 2) from None


def _check_page_access(host: str, ui_token: str | None) -> None:
    """Refuse a page beyond loopback without a token (exit 2) before anything starts."""
    from webui.access import UiAccess, UiAccessError

    try:
        UiAccess.checked(host, ui_token)
    except UiAccessError as exc:
        raise fail(str(exc), 2) from None


def _checked_server(settings: CloudConfig) -> CloudServer:
    """The server, its exposure, files and port checked: each refusal is one line."""
    from cloud_agent.service import CloudServer

    try:
        cloud = CloudServer(settings)
        cloud.exposure_warnings()  # refused here in one line; start() logs the warnings
        cloud.check_files_and_port()  # before logging starts: these are one line too
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    return cloud


async def _serve_until_stopped(
    cloud: CloudServer, settings: CloudConfig, ui_port: int | None, ui_token: str | None
) -> None:
    """Start the server (and the page), say where, and serve until SIGINT or SIGTERM;
    then drain the calls in flight."""
    try:
        bound = await cloud.start()
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    page = None
    if ui_port is not None:  # before "serving on": a busy page port fails first
        from cloud_agent.ui import serve_page

        try:
            page = await serve_page(cloud, ui_port, token=ui_token)
        except OSError as exc:
            await cloud.stop(0)
            raise fail(f"cannot serve the page on port {ui_port}: {exc}") from None
    scheme = "tls" if settings.tls_cert else "plaintext"
    typer.echo(
        f"cloud-agent serving on {settings.host}:{bound} ({scheme}, backends: "
        f"{', '.join(settings.backends)})",
        err=True,
    )
    if cloud.metrics_port is not None:
        typer.echo(
            f"metrics on http://{settings.metrics_host}:{cloud.metrics_port}/metrics", err=True
        )
    if page is not None:
        typer.echo(f"cloud page on {page.url}", err=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    typer.echo("shutting down (draining calls in flight)", err=True)
    if page is not None:
        await page.stop()
    await cloud.stop()


def _configure_logging() -> None:
    """Log lines on stderr, each with the trace id of the session it belongs to."""
    import logging

    from cloud_agent.handler import TraceIdFilter
    from edgeloop.transport.logsafe import SafeFormatter

    handler = logging.StreamHandler()
    handler.addFilter(TraceIdFilter())
    handler.setFormatter(SafeFormatter())  # client values escaped: no forged lines
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


@app.command("eval")
def eval_command(
    file: str = typer.Argument(..., help="Compound-query JSON lines file."),
    json_output: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
    show_failures: bool = typer.Option(
        False, "--failures", help="Also list the lines the planner got wrong (stderr)."
    ),
    router: str = typer.Option(
        None,
        "--router",
        help="The edge router the planner asks (a model folder; default: the shipped one).",
    ),
    split: str = typer.Option(
        "model",
        "--split",
        help="model: a joint router's parse gives the clauses (the default); rules: the "
        "clause rules alone (see docs/cloud.md).",
    ),
    home: str = typer.Option(None, "--home", help="Plan as for a device at home in CITY."),
) -> None:
    """Run the planner over a compound-query file and print its metrics."""
    from cloud_agent.errors import EvalFileError
    from cloud_agent.evaluation import evaluate
    from cloud_agent.planner.reasoner import PlannerReasoner, load_edge_router

    if split not in ("model", "rules"):
        raise fail(f"--split must be model or rules, not {split!r}", 2)
    settings = None
    if home:
        from understanding.errors import UnderstandingError
        from understanding.settings import Settings, check_setting

        try:
            settings = Settings(home_city=check_setting("home_city", home))
        except UnderstandingError as exc:
            raise fail(str(exc), 2) from None
    try:
        edge_router = load_edge_router(router)
    except ValueError as exc:
        raise fail(str(exc), 2) from None
    reasoner = PlannerReasoner(router=edge_router, split_with_model=split == "model", home=settings)
    failures: list[dict[str, object]] = []
    try:
        metrics = evaluate(file, reasoner, failures_out=failures)
    except EvalFileError as exc:
        raise fail(str(exc), 2) from None
    if show_failures:
        for failure in failures:
            typer.echo(json.dumps(failure, default=str), err=True)
    if json_output:
        typer.echo(json.dumps(metrics))
        return
    for key, value in metrics.items():
        typer.echo(f"{key:>16}  {value}")


@app.command()
def parse(
    json_output: bool = typer.Option(False, "--json", help="Print the ReactStep as JSON."),
    tools: str = typer.Option(None, "--tools", help="A JSON file of tool specs."),
) -> None:
    """Parse one model reply from standard input and print the resulting ReactStep."""
    from cloud_agent.parse_command import run_parse

    code = run_parse(sys.stdin.read(), json_output=json_output, tools_path=tools)
    raise typer.Exit(code)


def main() -> None:
    """Console-script entry point."""
    run_app(app, "cloud-agent")
