"""The parser's entry point: one model reply -> its steps, never an exception."""

from __future__ import annotations

from dataclasses import dataclass, field

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.parser.dispatch import ParseFailure, ReplyParser
from react_kernel.tools import ToolRegistry


@dataclass(slots=True)
class ParseResult:
    """The parsed steps and the fallbacks that fired, in the order they fired."""

    steps: list[pb.ReactStep]
    fallbacks: list[str] = field(default_factory=list)

    @property
    def step(self) -> pb.ReactStep:
        """The decisive step: the ACTION, FINAL_ANSWER or ERROR (always the last one)."""
        return self.steps[-1]

    @property
    def ok(self) -> bool:
        """False when the reply could not be used (the result is an ERROR step)."""
        return self.steps[-1].step_type != pb.STEP_TYPE_ERROR


FORMAT_HINT = (
    "Reply with 'Thought: ...' then either 'Action: <tool>' and 'Action Input: <JSON object>', "
    "or 'Final Answer: <answer>'."
)


def parse_model_output(text: str, tools: ToolRegistry) -> ParseResult:
    """Parse one model reply against the registry's tools; never raises.

    Example:
        >>> result = parse_model_output(
        ...     "Thought: add them\\nAction: Calculator\\nAction Input: 2+2", registry
        ... )  # doctest: +SKIP
        >>> result.step.tool, result.fallbacks  # doctest: +SKIP
        ('calculator', ['tool_name_normalized', 'input_single_string'])
    """
    fallbacks: list[str] = []
    try:
        steps = ReplyParser(text if isinstance(text, str) else str(text), tools, fallbacks).parse()
    except ParseFailure as failure:
        steps = [error_step(failure.code, str(failure), text)]
    except Exception as exc:  # the contract is "never raises": a bug becomes an ERROR step
        fallbacks.append("internal_error")
        steps = [error_step("internal_error", f"parser error: {type(exc).__name__}: {exc}", text)]
    if fallbacks:
        deduped = list(dict.fromkeys(fallbacks))
        fallbacks[:] = deduped
        joined = ",".join(deduped)
        for step in steps:
            step.metadata["parser_fallbacks"] = joined
    return ParseResult(steps, fallbacks)


def error_step(code: str, message: str, text: object) -> pb.ReactStep:
    step = pb.ReactStep(step_type=pb.STEP_TYPE_ERROR, content=f"{message} {FORMAT_HINT}")
    step.metadata["parse_error"] = code
    excerpt = str(text)[:200]
    if excerpt:
        step.metadata["reply_excerpt"] = excerpt
    return step
