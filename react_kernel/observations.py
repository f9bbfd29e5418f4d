"""Observation steps: built from a tool's outcome, screened for injection, redacted.

What a session records after an action runs (or is refused) is one OBSERVATION step;
this module builds it, so :mod:`react_kernel.session` keeps to the state machine.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.executor import ToolOutcome, canonical_json
from react_kernel.guards import tokens
from react_kernel.safety import SafetyConfig, screen_injection
from react_kernel.steps import from_struct, to_struct

__all__ = [
    "observation_step",
    "observation_tokens",
    "outcome_step",
    "render_output",
    "screen_observation",
]

# The encoder json.dumps(value, ensure_ascii=False, default=str, separators=...) would
# build on every call, built once (the same text).
_RENDER_JSON = json.JSONEncoder(ensure_ascii=False, default=str, separators=(", ", ": "))


def observation_step(
    action: pb.ReactStep,
    status: pb.ObservationStatus,
    output: dict[str, Any],
    content: str,
) -> pb.ReactStep:
    """The OBSERVATION answering ``action`` (its act id, tool and arguments)."""
    obs = pb.ReactStep(
        step_type=pb.STEP_TYPE_OBSERVATION,
        act_id=action.act_id,
        tool=action.tool,
        status=status,
        content=content,
    )
    obs.arguments.CopyFrom(action.arguments)
    if output:
        obs.observation.CopyFrom(to_struct(output))
    return obs


def outcome_step(
    action: pb.ReactStep,
    outcome: ToolOutcome,
    safety: SafetyConfig,
    redactor: Callable[[str], str] | None,
) -> pb.ReactStep:
    """The OBSERVATION of a tool run: its output or error, retries, screening, redaction."""
    ok = outcome.status == pb.OBSERVATION_STATUS_OK
    content = render_output(outcome.output) if ok else f"error: {outcome.error}"
    obs = observation_step(action, outcome.status, outcome.output if ok else {}, content)
    obs.latency_ms = outcome.latency_ms
    meta = obs.metadata
    if outcome.attempts:
        meta["attempts"] = str(outcome.attempts)
    if outcome.notes:
        meta["retries"] = " | ".join(outcome.notes)[:500]
    if outcome.cached:
        meta["idempotent_replay"] = "true"
    if outcome.idempotency_key:
        obs.idempotency_key = outcome.idempotency_key
    screen_observation(obs, safety)
    if redactor is not None:
        redacted = redactor(obs.content)
        if redacted != obs.content or obs.observation.fields:
            out = from_struct(obs.observation)
            cleaned = _map_strings(out, redactor)
            if redacted != obs.content or cleaned != out:
                meta["redacted"] = "true"
                obs.content = redacted
                obs.observation.Clear()
                if cleaned:
                    obs.observation.update(json.loads(json.dumps(cleaned)))
    return obs


def screen_observation(obs: pb.ReactStep, safety: SafetyConfig) -> None:
    """Flag (and under the "refuse" policy withhold) an observation that looks like an
    injection, in place."""
    if not safety.screen_observations:
        return
    flags = screen_injection(obs.content)
    if not flags:
        return
    obs.metadata["injection_flags"] = ",".join(flags)
    if safety.injection_policy == "refuse":
        obs.status = pb.OBSERVATION_STATUS_REJECTED
        obs.content = "observation withheld: it looks like a prompt injection"
        obs.observation.Clear()


def observation_tokens(step: pb.ReactStep) -> frozenset[str]:
    """The words of an observation with its call, to tell a stall from new facts."""
    # The call is part of what was observed: the same forecast for two different cities is
    # two facts, not a stall; the same long result for two paraphrased queries is a stall.
    return tokens(f"{step.tool} {canonical_json(from_struct(step.arguments))} {step.content}")


def render_output(output: dict[str, Any]) -> str:
    """A tool's output as the observation's text."""
    return _RENDER_JSON.encode(output)


def _map_strings(value: Any, func: Callable[[str], str] | None) -> Any:
    if func is None:
        return value
    if isinstance(value, str):
        return func(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, func) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, func) for v in value]
    return value
