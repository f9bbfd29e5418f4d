"""`edge-agent`: ask the device, chat, evaluate and train the router, serve the edge agent.

Imports stay lean at the top: onnxruntime, the memory store and grpc load only inside
the command that needs them, so `edge-agent ask` starts fast and small.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer import _click
from typer.core import TyperGroup

from edge_agent.errors import CLI_ERRORS, exit_code
from edgeloop.console import fail, run_app

if TYPE_CHECKING:
    from edge_agent.agent import EdgeAgent
    from edge_agent.evaluation import EvalReport
    from edgeloop.v1 import agent_pb2 as pb
    from sync.store import MemoryStore
    from understanding.router import Router


class _EdgeCommands(TyperGroup):
    """The command group that maps the device's errors to one line and an exit code.

    The one place the command line translates ``edge_agent.errors``: a command lets an
    error of :data:`edge_agent.errors.CLI_ERRORS` rise and the user sees ``error: <message>`` with
    :func:`edge_agent.errors.exit_code` (2 for bad input, 1 otherwise), never a trace.
    """

    def invoke(self, ctx: _click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CLI_ERRORS as exc:
            raise fail(str(exc), exit_code(exc)) from None


app = typer.Typer(
    cls=_EdgeCommands,
    help="The edgeloop edge agent.",
    no_args_is_help=True,
    add_completion=False,
)

MEMORY_HELP = "Memory database (default: $EDGELOOP_HOME/edge.db or ~/.edgeloop/edge.db)."
_TOOLS_HELP = (
    "Your own device tools, MODULE:ATTR (a ToolSpec, a list of them or a function returning "
    "either), for the intents of the same names; repeatable. Tools of installed "
    "'edgeloop.tools' entry points are added too."
)
ToolsOption = Annotated[list[str] | None, typer.Option("--tools", help=_TOOLS_HELP)]
MemoryOption = Annotated[str | None, typer.Option("--memory", help=MEMORY_HELP)]
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


#: Exit code of `ask` when the query was kept pending (the cloud was unreachable or busy):
#: EX_TEMPFAIL, "try again later" (`edge-agent pending --cloud` resolves it).
EXIT_PENDING = 75
#: Exit code of `ask` when the device asked a question back (a required argument is
#: missing): the question is printed, and `ask --session ID "ANSWER"` answers it.
EXIT_ASKED = 3


def _router(model: str | None = None, tools: list[str] | None = None) -> Router:
    """The router with the user's tools (its errors are edge errors: the group maps them)."""
    from understanding.router import Router
    from understanding.tools.user import entry_point_tools, load_tools

    if tools and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # `--tools mytools:TOOLS` beside where you run it
    specs = entry_point_tools()
    for reference in tools or []:
        specs.extend(load_tools(reference))
    return Router.load(model, tools=specs)


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
) -> EdgeAgent:
    from edge_agent.agent import EdgeAgent

    router = _router(model, tools)
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


def _approve_interactively(
    agent: EdgeAgent, step: pb.ReactStep, interactive: bool
) -> list[pb.ReactStep]:
    """Ask the person at the terminal; without one, deny (nobody approved it)."""
    approved = False
    if interactive:
        approved = typer.confirm(f"{step.content}", default=False, err=True)
    reason = "approved at the terminal" if approved else "not approved (no one confirmed it)"
    return agent.approve(step.session_id, step.act_id, approved, reason)


def _shown(step: pb.ReactStep, verbose: bool, interactive: bool) -> str | None:
    """What the terminal prints for a step (None: nothing): the answer (every step with
    ``--verbose``). An approval request that the person is asked about is not printed
    too: the prompt shows it, once."""
    from edgeloop.v1 import agent_pb2 as pb

    if step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST and interactive:
        return None
    if verbose:
        return _line(step)
    if step.step_type in (
        pb.STEP_TYPE_FINAL_ANSWER,
        pb.STEP_TYPE_ERROR,
        pb.STEP_TYPE_CLARIFICATION,
    ):
        return step.content
    return None


def _line(step: pb.ReactStep) -> str:
    from react_kernel.steps import STEP_KINDS

    return f"{STEP_KINDS.get(step.step_type, 'step')}: {step.content}"


@app.command()
def ask(
    query: str = typer.Argument(..., help="The query."),
    cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT."),
    json_output: bool = typer.Option(False, "--json", help="One ReactStep per line (JSON)."),
    memory: MemoryOption = None,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every step."),
    model: ModelOption = None,
    tools: ToolsOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
    session: str = typer.Option(
        None, "--session", help="Continue this session: answer the question it asked back."
    ),
) -> None:
    """Answer one query on the device, or through the cloud. When the device asks back
    (exit 3), answer with --session ID "ANSWER"."""
    if not query.strip():
        raise fail("the query is empty", 2)
    from edgeloop.limits import MAX_QUERY_CHARS

    if len(query) > MAX_QUERY_CHARS:
        raise fail(f"the query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}", 2)
    if "\x00" in query:
        raise fail("the query contains a NUL character", 2)
    from edgeloop.limits import has_words

    if not has_words(query):
        raise fail("the query has no words", 2)
    if not (model or tools or token or tls_root or session) and _ask_runtime(
        query, cloud, memory, json_output, verbose
    ):
        return
    from edgeloop.v1 import agent_pb2 as pb
    from react_kernel.steps import step_to_json

    agent = _agent(cloud, memory, model, tools, token, tls_root)
    interactive = sys.stdin.isatty() and not json_output
    if session and agent.open_question(session) is None:
        raise fail(f"session {session} is not waiting for an answer", 2)
    steps: Iterable[pb.ReactStep] = agent.ask(query, session_id=session or None)
    pending = False
    asked: pb.ReactStep | None = None
    while True:
        waiting: pb.ReactStep | None = None
        try:
            for step in steps:  # printed as each one is produced
                if json_output:
                    typer.echo(step_to_json(step))
                elif (text := _shown(step, verbose, interactive)) is not None:
                    typer.echo(text)
                if step.step_type == pb.STEP_TYPE_CLARIFICATION:
                    asked = step
                if step.step_type == pb.STEP_TYPE_FINAL_ANSWER and "pending_id" in step.metadata:
                    pending = True
                if step.step_type != pb.STEP_TYPE_APPROVAL_REQUEST:
                    continue
                if step.metadata.get("via") == "cloud":  # the cloud's session waits for it
                    _approve_interactively(agent, step, interactive)
                else:
                    waiting = step
        except Exception as exc:
            raise _cloud_failure(exc, cloud) from None
        if waiting is None:
            break
        steps = _approve_interactively(agent, waiting, interactive)
    if pending and cloud:  # the cloud failed (without --cloud the device is offline by choice)
        raise typer.Exit(EXIT_PENDING)
    if asked is not None:
        if not json_output:
            typer.echo(f'(answer: edge-agent ask --session {asked.session_id} "...")', err=True)
        raise typer.Exit(EXIT_ASKED)


def _ask_runtime(
    query: str, cloud: str | None, memory: str | None, json_output: bool, verbose: bool
) -> bool:
    """Ask through a runtime running on this memory (with this cloud); False when none
    runs (or it went away before answering): the caller asks cold."""
    from edge_agent.paths import memory_path
    from edge_agent.runtime_file import running_address

    address = running_address(memory_path(memory), cloud)
    if address is None:
        return False
    import grpc

    from edge_agent.through_runtime import RuntimeGone, ask_through

    interactive = sys.stdin.isatty() and not json_output

    def show(step: pb.ReactStep) -> None:
        if json_output:  # the kernel's format (its import is left out of a plain ask)
            from react_kernel.steps import step_to_json

            typer.echo(step_to_json(step))
        elif (text := _shown(step, verbose, interactive)) is not None:
            typer.echo(text)

    def confirm(step: pb.ReactStep) -> bool:
        return interactive and typer.confirm(step.content, default=False, err=True)

    try:
        steps = ask_through(address, query, show, confirm)
    except RuntimeGone:
        return False
    except grpc.RpcError as exc:
        code = exc.code()  # type: ignore[attr-defined]
        details = exc.details() or code.name  # type: ignore[attr-defined]
        raise fail(details, 2 if code == grpc.StatusCode.INVALID_ARGUMENT else 1) from None
    from edgeloop.v1 import agent_pb2 as pb

    final = steps[-1] if steps else None
    if final is not None and final.step_type == pb.STEP_TYPE_CLARIFICATION:
        if not json_output:
            typer.echo(f'(answer: edge-agent ask --session {final.session_id} "...")', err=True)
        raise typer.Exit(EXIT_ASKED)
    if cloud and final is not None and "pending_id" in final.metadata:
        raise typer.Exit(EXIT_PENDING)
    return True


def _cloud_failure(error: Exception, cloud: str | None) -> Exception:
    """A refusal by the cloud as one CLI line (exit 1); anything else unchanged."""
    from edge_agent.errors import CloudRequestError

    if isinstance(error, CloudRequestError):
        return fail(f"the cloud at {cloud} refused the query: {error}")
    return error


@app.command("pending")
def pending_command(
    cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT: resolve now."),
    memory: MemoryOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
) -> None:
    """List the queries waiting for the cloud; with --cloud, send them, record the answers
    and sync memory, so the answers land on both sides."""
    agent = _agent(cloud, memory, token=token, tls_root=tls_root)
    if cloud:
        interactive = sys.stdin.isatty()

        def approve(step: pb.ReactStep) -> bool:
            return interactive and typer.confirm(step.content, default=False, err=True)

        try:
            resolved = agent.resolve_pending(approve)
        except Exception as exc:
            raise _cloud_failure(exc, cloud) from None
        for record, steps in resolved:
            typer.echo(f"resolved: {_shorten(record['query'])} -> {steps[-1].content}")
    left = agent.own_pending()
    for record in left:
        typer.echo(f"pending {record['pending_id'][:8]}: {_shorten(record['query'])}")
    if not left and not cloud:
        typer.echo("no queries pending")
    if cloud and left:
        raise fail(f"{len(left)} queries still pending: the cloud at {cloud} did not answer")
    if cloud:
        typer.echo(_sync_line(_sync_memory(agent.memory, cloud, token, tls_root, optional=True)))


@app.command("sync")
def sync_command(
    cloud: str = typer.Option(..., "--cloud", help="Cloud HOST:PORT serving memory sync."),
    memory: MemoryOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
    json_output: bool = typer.Option(False, "--json", help="The result as one JSON object."),
) -> None:
    """Merge this device's memory with the cloud's, both ways (state vectors, then only
    what each side lacks), until both hold the same."""
    store = _device_store(memory)
    try:
        result = _sync_memory(store, cloud, token, tls_root)
    finally:
        store.close()
    if json_output:
        typer.echo(json.dumps(result))
    else:
        typer.echo(_sync_line(result))


def _shorten(text: str, limit: int = 120) -> str:
    """A stored query for one line of output (a stored query may be 100 KB)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else f"{flat[: limit - 1]}… ({len(text)} characters)"


def _sync_memory(
    store: MemoryStore,
    cloud: str,
    token: str | None,
    tls_root: str | None,
    *,
    optional: bool = False,
) -> dict[str, object]:
    """Run one sync exchange with the cloud; errors become one-line CLI failures. With
    ``optional``, a cloud that keeps no memory (UNIMPLEMENTED) is not an error."""
    import grpc

    from edgeloop.transport.channels import client_channel
    from sync.client import sync_with
    from sync.errors import MemoryStoreError

    try:
        channel = client_channel(_cloud_target(cloud), tls_root=tls_root)
    except OSError as exc:
        raise fail(f"cannot read --tls-root {tls_root}: {exc}", 2) from None
    try:
        # With a token the cloud knows the device: "" lets the token name it.
        result = sync_with(channel, store, token, device_id="" if token else None)
    except grpc.RpcError as exc:
        code = exc.code()  # type: ignore[attr-defined]
        if code == grpc.StatusCode.UNIMPLEMENTED:  # no MemorySyncService on that server
            if optional:
                return {"synced": False, "reason": "the cloud keeps no memory (--memory-dir)"}
            raise fail(
                f"memory sync with {cloud} failed: the cloud keeps no memory (start it with"
                " --memory-dir or --memory-url)"
            ) from None
        details = exc.details() or code.name  # type: ignore[attr-defined]
        raise fail(f"memory sync with {cloud} failed: {code.name}: {details}") from None
    except MemoryStoreError as exc:
        raise fail(f"memory sync with {cloud} failed: {exc}") from None
    finally:
        channel.close()
    return {
        "synced": True,
        "rounds": result.rounds,
        "bytes_sent": result.bytes_sent,
        "bytes_received": result.bytes_received,
    }


def _sync_line(result: dict[str, object]) -> str:
    if not result["synced"]:
        return f"memory not synced: {result['reason']}"
    if not result["rounds"]:
        return "memory synced: already the same on both sides"
    return (
        f"memory synced in {result['rounds']} round(s): {result['bytes_sent']} bytes sent,"
        f" {result['bytes_received']} received"
    )


@app.command()
def chat(
    cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT."),
    memory: MemoryOption = None,
    model: ModelOption = None,
    tools: ToolsOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
) -> None:
    """An interactive session that renders each step as it happens."""
    from edge_agent.chat import run_chat
    from edge_agent.runtime import DeviceRuntime

    runtime = DeviceRuntime(_agent(cloud, memory, model, tools, token, tls_root))
    run_chat(runtime.agent, runtime=runtime)


def _print_report(report: EvalReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    metrics = Table(title="edge decision", show_header=False)
    for key, value in report.metrics.items():
        metrics.add_row(key, str(value))
    console.print(metrics)
    labels = sorted({label for pair in report.confusion for label in pair})
    confusion = Table(title="confusion (rows: expected, columns: decided)")
    confusion.add_column("expected \\ got")
    for label in labels:
        confusion.add_column(label[:12], justify="right")
    for expected in labels:
        cells = [str(report.confusion.get((expected, got), "") or "") for got in labels]
        confusion.add_row(expected, *cells)
    console.print(confusion)
    for miss in report.misses[:40]:
        mark = "WRONG ACTION " if miss.get("wrong_action") else ""
        console.print(
            f"{mark}line {miss['line']}: expected {miss['expected']}, got {miss['got']} "
            f"({miss['reason']}) args={miss['args']} :: {miss['query']}",
            markup=False,
        )


@app.command("eval")
def eval_command(
    file: str = typer.Argument(..., help="Eval JSON lines file."),
    json_output: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
    model: ModelOption = None,
    tools: ToolsOption = None,
    home: str = typer.Option(
        None, "--home", help="Evaluate as a device whose home city is CITY (no home: none)."
    ),
) -> None:
    """Run the edge decision over an eval file and print its metrics."""
    from edge_agent.errors import SettingsError
    from edge_agent.evaluation import load_cases, run_eval
    from understanding.settings import Settings, check_setting

    settings = None
    if home is not None:
        try:
            settings = Settings(home_city=check_setting("home_city", home))
        except SettingsError as exc:
            raise fail(f"--home: {exc}", 2) from None
    cases = load_cases(file)
    report = run_eval(_router(model, tools), cases, settings)
    if json_output:
        typer.echo(json.dumps(report.metrics))
    else:
        _print_report(report)


@app.command("timers")
def timers_command(
    cancel: str = typer.Option(None, "--cancel", help="Cancel the timer whose id starts so."),
    everything: bool = typer.Option(False, "--all", help="Also the timers that have fired."),
    memory: MemoryOption = None,
    json_output: bool = typer.Option(False, "--json", help="One JSON object a timer."),
) -> None:
    """List the timers, alarms and scheduled device commands that have not gone off (in
    the home city's local time), or cancel one with --cancel ID."""
    from understanding.tools.timers import cancel_timer, list_timers

    store = _device_store(memory)
    try:
        if cancel:
            try:
                gone = cancel_timer(store, cancel)
            except ValueError as exc:
                raise fail(str(exc), 2) from None
            typer.echo(f"cancelled {gone['timer_id'][:8]} (was due {gone['fires_at']})")
            return
        found = list_timers(store, everything=everything)
    finally:
        store.close()
    for timer in found:
        if json_output:
            typer.echo(json.dumps(timer))
        else:
            label = f"  {timer['label']}" if timer["label"] else ""
            if timer.get("action"):  # a scheduled device command, not a ring
                label += " (device command)"
            typer.echo(f"{timer['timer_id'][:8]}  {timer['fires_at']}{label}")
    if not found and not json_output:
        typer.echo("no timers")


config_app = typer.Typer(help="Device settings (kept in memory, so they sync).")
app.add_typer(config_app, name="config")


@app.command("receipt")
def receipt_command(
    session_id: str = typer.Argument(None, help="The session (default: the latest one)."),
    verify: bool = typer.Option(False, "--verify", help="Check it against the stored steps."),
    json_output: bool = typer.Option(False, "--json", help="The receipt as one JSON object."),
    memory: MemoryOption = None,
) -> None:
    """Show a session's decision receipt (the device's, or the cloud's it kept); --verify
    checks that it vouches for the answer and the evidence in memory (exit 1 if not)."""
    from google.protobuf import json_format

    from edge_agent.receipts import session_receipt

    store = _device_store(memory)
    try:
        if not session_id:
            sessions = store.records("sessions")
            if not sessions:
                raise fail("no session in memory", 1)
            session_id = max(sessions, key=lambda s: str(sessions[s].get("created_at") or ""))
        found = session_receipt(store, session_id)
        problems = found.problems() if verify else []
    finally:
        store.close()
    receipt = found.receipt
    if json_output:
        out: dict[str, object] = {
            "session_id": session_id,
            "receipt": json_format.MessageToDict(receipt) if receipt is not None else None,
        }
        if verify:
            out.update(verified=not problems, problems=problems)
        typer.echo(json.dumps(out, ensure_ascii=False))
    elif receipt is None:
        typer.echo(f"session {session_id}: no receipt in memory")
    else:
        typer.echo(f"receipt {receipt.receipt_id}")
        typer.echo(f"session {receipt.session_id}  model {receipt.model or '-'}")
        typer.echo(f"query: {receipt.query}")
        typer.echo(f"answer: {receipt.answer}")
        for evidence in receipt.evidence:
            args = json.dumps(json_format.MessageToDict(evidence.arguments), ensure_ascii=False)
            typer.echo(f"evidence: {evidence.tool} {args} sha256 {evidence.output_sha256[:16]}")
        if verify and not problems:
            typer.echo("verified: it vouches for the stored answer and evidence")
    if verify and problems:
        typer.echo("receipt does not verify: " + "; ".join(problems), err=True)
        raise typer.Exit(1)


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


@config_app.command("set", context_settings={"ignore_unknown_options": True})
def config_set(
    key: str = typer.Argument(..., help="home_city, default_room, units or history_days."),
    value: str = typer.Argument(
        ..., help="The value (a city, a room, metric|imperial, a number of days)."
    ),
    memory: MemoryOption = None,
) -> None:
    """Set one device setting. A new history_days takes old history out of the synced
    document at once (the tables keep it), and the other replicas at the next sync."""
    from understanding.settings import keep_history, save_setting

    store = _device_store(memory)
    retired: dict[str, int] = {}
    try:
        settings = save_setting(store, key, value)
        if key == "history_days":
            keep_history(store, settings)
            retired = store.retire()
    finally:
        store.close()
    typer.echo(f"{key} = {settings.as_dict()[key]}")
    if key == "history_days":
        left = ", ".join(f"{n} {kind}" for kind, n in sorted(retired.items())) or "nothing"
        typer.echo(f"left the synced document (kept in this device's tables): {left}")


@config_app.command("show")
def config_show(
    memory: MemoryOption = None,
    json_output: bool = typer.Option(False, "--json", help="The settings as one JSON object."),
) -> None:
    """Show the device settings (unset ones as -)."""
    from understanding.settings import load_settings

    store = _device_store(memory)
    try:
        values = load_settings(store).as_dict()
    finally:
        store.close()
    if json_output:
        typer.echo(json.dumps(values))
        return
    for key, value in values.items():
        typer.echo(f"{key} = {value if value is not None else '-'}")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind."),
    port: int = typer.Option(50052, help="Port to bind."),
    cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT."),
    memory: MemoryOption = None,
    model: ModelOption = None,
    tools: ToolsOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
    insecure: bool = typer.Option(
        False, "--insecure", help="Serve beyond loopback (the service has no tokens)."
    ),
) -> None:
    """Serve the edge agent over gRPC for clients in any language (the runtime without
    its page: timers ring here too; see `edge-agent run`)."""
    _host_runtime(host, port, None, cloud, memory, model, tools, token, tls_root, insecure)


@app.command("run")
def run_command(
    host: str = typer.Option("127.0.0.1", help="Address to bind."),
    port: int = typer.Option(50052, help="gRPC port (0 picks a free one)."),
    ui_port: int = typer.Option(
        None, "--ui-port", help="Also serve the device page on this port (0 picks a free one)."
    ),
    cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT."),
    memory: MemoryOption = None,
    model: ModelOption = None,
    tools: ToolsOption = None,
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
        host, port, ui_port, cloud, memory, model, tools, token, tls_root, insecure, missed_after
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
    agent = _agent(cloud, memory, model, tools, token, tls_root)
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


@app.command("ui")
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


TRAINING_COMMANDS = ("train", "eval-intents")


def register_training_commands() -> None:
    """Add the trainer's commands. They load numpy and the training code, which a cold
    ``edge-agent ask`` does not need: :func:`main` adds them only when they may be used."""
    from understanding.intents.cli import eval_intents, train

    app.command("train")(train)
    app.command("eval-intents")(eval_intents)


def _command_of(args: list[str]) -> str | None:
    """The sub-command named on the command line (None: none, e.g. ``--help``)."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def main() -> None:
    """Console-script entry point."""
    command = _command_of(sys.argv[1:])
    if command is None or command in TRAINING_COMMANDS:
        register_training_commands()  # for the help listing too
    run_app(app, "edge-agent")
