"""Kernel overhead per ReAct step, side by side with LangGraph and smolagents.

The same scripted session runs in each framework: a scripted model/reasoner asks for a
no-op tool ``STEPS`` times with different arguments, then gives a final answer. The model
and the tool cost (almost) nothing, so the time per step is the framework's own overhead:
building steps/messages, validating the input, calling the tool, recording the
observation, checking guards. Each framework runs ``ROUNDS`` sessions; the figure is the
median over sessions of (session time / steps), in microseconds.

- ours: ``react_kernel.AgentLoop`` with a ``ScriptedReasoner`` that returns ready
  ACTION steps (as an LLM backend with native tool calls would), and a second row where
  it returns model *text* that goes through the tolerant parser.
- LangGraph: ``langgraph.prebuilt.create_react_agent`` with a chat model that replays
  ``AIMessage`` tool calls.
- smolagents: ``ToolCallingAgent`` with a ``Model`` that replays tool calls.

Each framework's agent/graph/loop is built once; only running sessions is timed. The
other two are an optional extra: ``pip install -e '.[compare]'``. When one cannot be
imported, its column says why and its JSON value is null.

Run: ``python bench/kernel_overhead.py [--steps 20] [--rounds 60]``. The last line is
one JSON object: ``ours_us_per_step``, ``langgraph_us_per_step``,
``smolagents_us_per_step`` (and the ratios).
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    AgentLoop,
    GuardConfig,
    ScriptedReasoner,
    ToolRegistry,
    ToolSpec,
)

NOOP_SCHEMA = {
    "type": "object",
    "properties": {"x": {"type": "integer"}},
    "required": ["x"],
}


def noop(args: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True}


def median_us_per_step(run_session: Callable[[], int], rounds: int, warmup: int = 3) -> float:
    """Median over sessions of wall time per step (µs); run_session returns its steps."""
    for _ in range(warmup):
        run_session()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        steps = run_session()
        samples.append((time.perf_counter() - start) / steps * 1e6)
    return statistics.median(samples)


# -- ours -----------------------------------------------------------------------------------


def ours_session(steps: int, *, text: bool) -> Callable[[], int]:
    tools = ToolRegistry([ToolSpec("noop", "Does nothing.", NOOP_SCHEMA, func=noop)])
    replies: list[Any] = []
    for i in range(steps):
        if text:
            replies.append(f'Thought: step {i}\nAction: noop\nAction Input: {{"x": {i}}}')
        else:
            action = pb.ReactStep(step_type=pb.STEP_TYPE_ACTION, tool="noop")
            action.arguments.update({"x": i})
            replies.append(action)
    if text:
        replies.append("Final Answer: done")
    else:
        replies.append(pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content="done"))
    guards = GuardConfig(max_steps=steps + 5, stall_jaccard=1.01, max_tool_calls=steps + 5)

    reasoner = ScriptedReasoner(replies)
    loop = AgentLoop(reasoner, tools, guards=guards)

    def run() -> int:
        reasoner.position = 0
        session = loop.start("run the no-op tool")
        produced = list(session.run())
        assert produced[-1].stop_reason == pb.STOP_REASON_FINAL_ANSWER, produced[-1]
        return steps + 1

    return run


# -- LangGraph ------------------------------------------------------------------------------


def langgraph_session(steps: int) -> Callable[[], int]:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent

    script = [
        AIMessage(content="", tool_calls=[{"name": "noop", "args": {"x": i}, "id": f"call_{i}"}])
        for i in range(steps)
    ] + [AIMessage(content="done")]

    class ScriptedChatModel(BaseChatModel):
        position: int = 0

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _generate(
            self,
            messages: list[BaseMessage],
            stop: list[str] | None = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> ChatResult:
            message = script[self.position]
            self.position += 1
            return ChatResult(generations=[ChatGeneration(message=message)])

        def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
            return self

    @tool
    def noop_tool(x: int) -> str:
        """Does nothing."""
        return '{"ok": true}'

    noop_tool.name = "noop"

    model = ScriptedChatModel()
    agent = create_react_agent(model, [noop_tool])  # compiled once, outside the timing

    def run() -> int:
        model.position = 0
        result = agent.invoke(
            {"messages": [("user", "run the no-op tool")]}, {"recursion_limit": 4 * steps + 10}
        )
        assert result["messages"][-1].content == "done"
        return steps + 1

    return run


# -- smolagents -----------------------------------------------------------------------------


def smolagents_session(steps: int) -> Callable[[], int]:
    from smolagents import Tool, ToolCallingAgent
    from smolagents.models import (
        ChatMessage,
        ChatMessageToolCall,
        ChatMessageToolCallFunction,
        MessageRole,
        Model,
    )
    from smolagents.monitoring import LogLevel

    def call(name: str, args: dict[str, Any], i: int) -> ChatMessage:
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content="",
            tool_calls=[
                ChatMessageToolCall(
                    id=f"call_{i}",
                    type="function",
                    function=ChatMessageToolCallFunction(name=name, arguments=args),
                )
            ],
        )

    script = [call("noop", {"x": i}, i) for i in range(steps)]
    script.append(call("final_answer", {"answer": "done"}, steps))

    class ScriptedModel(Model):
        def __init__(self) -> None:
            super().__init__(model_id="scripted")
            self.position = 0

        def generate(self, messages: Any, stop_sequences: Any = None, **kwargs: Any) -> Any:
            message = script[self.position]
            self.position += 1
            return message

    class NoopTool(Tool):
        name = "noop"
        description = "Does nothing."
        inputs = {"x": {"type": "integer", "description": "anything"}}  # noqa: RUF012
        output_type = "string"

        def forward(self, x: int) -> str:
            return '{"ok": true}'

    tool = NoopTool()

    model = ScriptedModel()
    agent = ToolCallingAgent(
        tools=[tool], model=model, max_steps=steps + 5, verbosity_level=LogLevel.OFF
    )  # built once, outside the timing

    def run() -> int:
        model.position = 0
        answer = agent.run("run the no-op tool", reset=True)
        assert answer == "done", answer
        return steps + 1

    return run


def measure(name: str, factory: Callable[[], Callable[[], int]], rounds: int) -> float | str:
    try:
        run = factory()
    except ImportError as exc:
        return f"not installed ({exc.name}); pip install -e '.[compare]'"
    try:
        return median_us_per_step(run, rounds)
    except Exception as exc:  # report, do not hide, a framework that breaks
        return f"failed: {type(exc).__name__}: {exc}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="tool steps per session")
    parser.add_argument("--rounds", type=int, default=60, help="sessions per framework")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)

    results: dict[str, float | str] = {
        "ours": measure("ours", lambda: ours_session(args.steps, text=False), args.rounds),
        "ours_text": measure("ours", lambda: ours_session(args.steps, text=True), args.rounds),
        "langgraph": measure("langgraph", lambda: langgraph_session(args.steps), args.rounds),
        "smolagents": measure("smolagents", lambda: smolagents_session(args.steps), args.rounds),
    }

    def num(key: str) -> float | None:
        value = results[key]
        return value if isinstance(value, float) else None

    ours = num("ours")
    others = [v for v in (num("langgraph"), num("smolagents")) if v is not None]
    lighter = min(others) if others else None

    print(
        f"kernel overhead per ReAct step: {args.steps} tool steps + final answer per session, "
        f"median of {args.rounds} sessions, Python {platform.python_version()}"
    )
    rows = [
        ("react_kernel (ready ACTION steps)", "ours"),
        ("react_kernel (model text + parser)", "ours_text"),
        ("LangGraph create_react_agent", "langgraph"),
        ("smolagents ToolCallingAgent", "smolagents"),
    ]
    print(f"{'framework':38s} {'µs/step':>10s} {'vs ours':>9s}")
    for label, key in rows:
        value = results[key]
        if isinstance(value, float):
            ratio = f"{value / ours:8.1f}x" if ours else ""
            print(f"{label:38s} {value:10.1f} {ratio:>9s}")
        else:
            print(f"{label:38s} {value}")
    target = None
    if ours is not None and lighter is not None:
        target = ours <= lighter / 2
        print(
            f"target: ours <= half of the lighter framework ({lighter / 2:.1f} µs): "
            f"{'met' if target else 'NOT met'} (ours is {lighter / ours:.1f}x faster)"
        )
    figures = {
        "ours_us_per_step": round(ours, 2) if ours is not None else None,
        "ours_text_us_per_step": round(v, 2) if (v := num("ours_text")) is not None else None,
        "langgraph_us_per_step": round(v, 2) if (v := num("langgraph")) is not None else None,
        "smolagents_us_per_step": round(v, 2) if (v := num("smolagents")) is not None else None,
        "lighter_over_ours": round(lighter / ours, 2) if ours and lighter else None,
        "target_met": target,
        "steps_per_session": args.steps,
        "rounds": args.rounds,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
