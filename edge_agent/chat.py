"""`edge-agent chat`: a terminal conversation that shows each step as it happens.

Thoughts are dim, actions and observations show the tool and its data, the answer is
bold; an approval request asks the person at the keyboard, and a question asked back
(a CLARIFICATION) is answered by the next line typed. Empty input is ignored;
``exit``, ``quit`` or Ctrl-D ends the chat.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from rich.console import Console
from rich.prompt import Confirm, Prompt
from rich.text import Text

from edge_agent.agent import EdgeAgent
from edge_agent.runtime import DeviceRuntime
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import STEP_KINDS, from_struct

_COLOURS = {
    pb.STEP_TYPE_THOUGHT: "dim",
    pb.STEP_TYPE_ACTION: "cyan",
    pb.STEP_TYPE_OBSERVATION: "green",
    pb.STEP_TYPE_FINAL_ANSWER: "bold",
    pb.STEP_TYPE_ERROR: "red",
    pb.STEP_TYPE_APPROVAL_REQUEST: "yellow",
    pb.STEP_TYPE_CLARIFICATION: "bold yellow",
}
#: Each step type's label and style.
STYLES = {kind: (STEP_KINDS[kind], style) for kind, style in _COLOURS.items()}


def render(console: Console, step: pb.ReactStep) -> None:
    """Print one step: its label and text as one piece of text, so that the terminal
    wraps it between words (two prints wrapped the second as if it began the line)."""
    label, style = STYLES.get(step.step_type, ("step", ""))
    origin = "cloud" if step.origin == pb.ORIGIN_CLOUD else "edge"
    text = step.content
    if step.step_type == pb.STEP_TYPE_ACTION:
        text = f"{step.tool} {json.dumps(from_struct(step.arguments), ensure_ascii=False)}"
    if step.step_type in (pb.STEP_TYPE_FINAL_ANSWER, pb.STEP_TYPE_CLARIFICATION):
        line = Text.assemble((f"{label} ", "bold"), (text, style))
    else:
        line = Text.assemble((f"{label} ({origin}) ", style), (text, style))
    console.print(line, highlight=False)


def run_chat(
    agent: EdgeAgent, console: Console | None = None, *, runtime: DeviceRuntime | None = None
) -> None:
    """The read-ask-render loop; with a ``runtime``, timers ring in the chat meanwhile.
    When the device asks back, the next line answers it (the same session's next turn)."""
    out = console or Console()
    out.print("[bold]edgeloop[/bold] edge agent. Ask anything; 'exit' to leave.")
    if runtime is None:
        _chat(agent, out)
        return
    from edge_agent.runtime import terminal_line

    key = runtime.hub.subscribe(
        lambda event: out.print(terminal_line(event), style="bold magenta", markup=False)
    )
    runtime.start()
    try:
        _chat(agent, out)
    finally:
        runtime.stop()
        runtime.hub.unsubscribe(key)


def _chat(agent: EdgeAgent, out: Console) -> None:
    waiting_on: str | None = None  # the session whose question the next line answers
    while True:
        try:
            query = Prompt.ask("[bold blue]you[/]", console=out)
        except (EOFError, KeyboardInterrupt):
            out.print()
            return
        if query.strip().lower() in ("exit", "quit", ":q"):
            return
        if not query.strip():
            continue
        steps: Iterable[pb.ReactStep] = agent.ask(query, session_id=waiting_on)
        waiting_on = None
        while True:
            waiting: pb.ReactStep | None = None
            for step in steps:  # rendered as each one is produced
                render(out, step)
                if step.step_type == pb.STEP_TYPE_CLARIFICATION:
                    waiting_on = step.session_id
                if step.step_type != pb.STEP_TYPE_APPROVAL_REQUEST:
                    continue
                if step.metadata.get("via") == "cloud":  # the cloud's session waits for it
                    approved = Confirm.ask("approve?", console=out, default=False)
                    agent.approve(step.session_id, step.act_id, approved, "chat")
                else:
                    waiting = step
            if waiting is None:
                break
            approved = Confirm.ask("approve?", console=out, default=False)
            steps = agent.approve(waiting.session_id, waiting.act_id, approved, "chat")
