"""`ask` and `chat`: answer queries on the device (or through the cloud)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

import typer

from edge_agent.ask_lines import EXIT_ASKED, EXIT_PENDING, answer_hint, shown
from edge_agent.cli._common import (
    CloudOption,
    McpOption,
    MemoryOption,
    ModelOption,
    TlsRootOption,
    TokenOption,
    ToolsOption,
    _agent,
)
from edgeloop.console import fail

if TYPE_CHECKING:
    from edge_agent.agent import EdgeAgent
    from edgeloop.v1 import agent_pb2 as pb


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
    """What the terminal prints for a step (None: nothing): :func:`edge_agent.ask_lines.shown`
    of its kind."""
    from react_kernel.steps import STEP_KINDS

    return shown(STEP_KINDS.get(step.step_type, "step"), step.content, verbose, interactive)


def _line(step: pb.ReactStep) -> str:
    from react_kernel.steps import STEP_KINDS

    return f"{STEP_KINDS.get(step.step_type, 'step')}: {step.content}"


def ask(
    query: str = typer.Argument(..., help="The query."),
    cloud: CloudOption = None,
    json_output: bool = typer.Option(False, "--json", help="One ReactStep per line (JSON)."),
    memory: MemoryOption = None,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every step."),
    model: ModelOption = None,
    tools: ToolsOption = None,
    mcp: McpOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
    session: str = typer.Option(
        None, "--session", help="Continue this session: answer the question it asked back."
    ),
) -> None:
    """Answer one query on the device, or through the cloud. When the device asks back
    (exit 3), answer with --session ID "ANSWER"."""
    from edgeloop.limits import query_problem

    if (problem := query_problem(query)) is not None:
        raise fail(problem, 2)
    if not (model or tools or mcp or token or tls_root or session) and _ask_runtime(
        query, cloud, memory, json_output, verbose
    ):
        return
    from edgeloop.v1 import agent_pb2 as pb
    from react_kernel.steps import step_to_json

    agent = _agent(cloud, memory, model, tools, token, tls_root, mcp)
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
            typer.echo(answer_hint(asked.session_id), err=True)
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
            typer.echo(answer_hint(final.session_id), err=True)
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


def chat(
    cloud: CloudOption = None,
    memory: MemoryOption = None,
    model: ModelOption = None,
    tools: ToolsOption = None,
    mcp: McpOption = None,
    token: TokenOption = None,
    tls_root: TlsRootOption = None,
) -> None:
    """An interactive session that renders each step as it happens."""
    from edge_agent.chat import run_chat
    from edge_agent.runtime import DeviceRuntime

    runtime = DeviceRuntime(_agent(cloud, memory, model, tools, token, tls_root, mcp))
    run_chat(runtime.agent, runtime=runtime)
