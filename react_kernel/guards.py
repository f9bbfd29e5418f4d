"""Guards that stop a session, and the best-effort answer the loop gives when they do.

Each guard has its own StopReason: max steps (``STOP_REASON_MAX_STEPS``), the same action
with the same input again (``REPEATED_ACTION``), near-identical consecutive observations
(token Jaccard above the threshold: ``STALLED``) and the session's wall-clock budget
(``TIME_BUDGET``). The loop does not raise when one fires: it ends with a FINAL_ANSWER
that says why it stopped and quotes the key facts of the most relevant observations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from edgeloop.v1 import agent_pb2 as pb

__all__ = ["GuardConfig", "best_effort_answer", "jaccard", "stop_reason_text", "tokens"]


@dataclass(frozen=True, slots=True)
class GuardConfig:
    """The limits of one session.

    ``max_steps``: reasoner calls per turn. ``max_repeats``: how many times the same
    (tool, arguments) may run in a session before the loop stops. ``stall_jaccard``:
    consecutive observations more similar than this stop the loop (tokens of the tool,
    its arguments and the observation: the same result for different arguments counts
    as new unless the result is long enough to dominate). ``time_budget_s``:
    wall-clock seconds of work per turn (time spent waiting for a human or the device is
    not counted). ``max_consecutive_errors``: ERROR steps in a row before giving up.
    ``max_tool_calls``: tool calls per session, all tools together.
    """

    max_steps: int = 12
    max_repeats: int = 1
    stall_jaccard: float = 0.95
    time_budget_s: float = 120.0
    max_consecutive_errors: int = 3
    max_tool_calls: int = 50


_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokens(text: str) -> frozenset[str]:
    """The set of lower-cased word tokens of ``text``."""
    return frozenset(_TOKEN.findall(text.lower()))


def jaccard(a: str | frozenset[str], b: str | frozenset[str]) -> float:
    """Jaccard similarity of two texts' token sets (1.0 for two empty texts)."""
    ta = tokens(a) if isinstance(a, str) else a
    tb = tokens(b) if isinstance(b, str) else b
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


_REASONS: dict[pb.StopReason, str] = {
    pb.STOP_REASON_MAX_STEPS: "I reached the maximum number of steps",
    pb.STOP_REASON_REPEATED_ACTION: "I was about to repeat an action I had already taken",
    pb.STOP_REASON_STALLED: "my last observations stopped telling me anything new",
    pb.STOP_REASON_TIME_BUDGET: "I ran out of time",
    pb.STOP_REASON_DENIED: "an action I needed was denied",
    pb.STOP_REASON_ERROR: "I kept producing replies I could not use",
    pb.STOP_REASON_REFUSED: "the request looks like an attempt to override my instructions",
    pb.STOP_REASON_CANCELED: "the request was canceled",
}


def stop_reason_text(reason: pb.StopReason) -> str:
    """A short human sentence for a stop reason."""
    return _REASONS.get(reason, "I had to stop")


def best_effort_answer(
    query: str,
    history: Sequence[pb.ReactStep],
    reason: pb.StopReason,
    *,
    max_facts: int = 3,
    max_chars: int = 240,
) -> str:
    """The FINAL_ANSWER text when a guard stops the loop: why, then the key facts.

    Observations that succeeded are ranked by token overlap with the query, then by
    recency; the best ``max_facts`` are quoted (each cut to ``max_chars``).
    """
    query_tokens = tokens(query)
    ranked: list[tuple[float, int, pb.ReactStep]] = []
    for index, step in enumerate(history):
        if step.step_type != pb.STEP_TYPE_OBSERVATION:
            continue
        if step.status != pb.OBSERVATION_STATUS_OK:
            continue
        overlap = len(query_tokens & tokens(f"{step.tool} {step.content}"))
        ranked.append((overlap, index, step))
    ranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
    lead = f"I stopped before finishing because {stop_reason_text(reason)}."
    if not ranked:
        return f"{lead} I did not find anything conclusive about: {query.strip()[:200]}"
    facts: list[str] = []
    seen: set[str] = set()
    for _, _, step in ranked:
        text = " ".join(step.content.split())
        if text in seen:
            continue
        seen.add(text)
        if len(text) > max_chars:
            text = text[: max_chars - 1].rstrip() + "…"
        facts.append(f"- {step.tool}: {text}" if step.tool else f"- {text}")
        if len(facts) >= max_facts:
            break
    return lead + " What I found so far:\n" + "\n".join(facts)
