"""The commands on the device's memory: `pending`, `sync`, `timers`, `receipt`, `config`."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import typer

from edge_agent.cli._common import (
    MemoryOption,
    TlsRootOption,
    TokenOption,
    _agent,
    _cloud_target,
    _device_store,
)
from edge_agent.cli.ask import _cloud_failure
from edgeloop.console import fail

if TYPE_CHECKING:
    from edgeloop.v1 import agent_pb2 as pb
    from sync.store import MemoryStore


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
