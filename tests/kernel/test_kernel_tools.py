"""Tool specs, the registry and the executor's stages."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from kernel_helpers import obj

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    InMemoryIdempotencyStore,
    RetryPolicy,
    ToolExecutor,
    ToolRegistry,
    ToolRegistryError,
    ToolSpec,
    TransientToolError,
)

SCHEMA = obj({"n": {"type": "integer", "minimum": 0}}, ["n"])


def executor_for(*specs: ToolSpec, **kwargs: Any) -> ToolExecutor:
    kwargs.setdefault("retry", RetryPolicy(initial_s=0.01, jitter_s=0.01))
    kwargs.setdefault("sleep", lambda _s: None)
    return ToolExecutor(ToolRegistry(list(specs)), InMemoryIdempotencyStore(), **kwargs)


def test_registry_rejects_duplicates_and_bad_schemas() -> None:
    registry = ToolRegistry([ToolSpec("calc", "", SCHEMA)])
    with pytest.raises(ToolRegistryError):
        registry.register(ToolSpec("calc", "", SCHEMA))
    with pytest.raises(ToolRegistryError):
        registry.register(ToolSpec("Calc", "", SCHEMA))  # same normalised name
    with pytest.raises(ToolRegistryError):
        registry.register(ToolSpec("other", "", {"type": "not-a-type"}))
    assert registry.names() == ["calc"] and "calc" in registry and len(registry) == 1
    assert registry.schemas() == [{"name": "calc", "description": "", "input_schema": SCHEMA}]
    assert registry.get("nope") is None


def test_invalid_input_is_an_error_observation_and_the_tool_is_not_called() -> None:
    called: list[dict[str, Any]] = []

    def tool(args: dict[str, Any]) -> dict[str, Any]:
        called.append(args)
        return {"ok": True}

    spec = ToolSpec("t", "", SCHEMA, func=tool)
    outcome = executor_for(spec).call(spec, {"n": -1}, session_id="s")
    assert outcome.status == pb.OBSERVATION_STATUS_ERROR
    assert "invalid input" in (outcome.error or "") and "minimum" in (outcome.error or "")
    assert called == []


def test_observation_layers_status_schema_business() -> None:
    out_schema = obj({"temperature": {"type": "integer"}}, ["temperature"])

    def validator(output: dict[str, Any]) -> str | None:
        return None if -100 <= output["temperature"] <= 60 else "temperature out of range"

    results: list[Any] = [
        "not a dict",
        {"temperature": "warm"},
        {"temperature": 500},
        {"temperature": 20},
    ]
    spec = ToolSpec("w", "", SCHEMA, out_schema, func=lambda a: results.pop(0), validator=validator)
    executor = executor_for(spec)
    messages = [executor.call(spec, {"n": 1}, session_id="s") for _ in range(4)]
    assert [m.status for m in messages[:3]] == [pb.OBSERVATION_STATUS_ERROR] * 3
    assert "expected an object" in (messages[0].error or "")
    assert "schema" in (messages[1].error or "")
    assert "business rules: temperature out of range" in (messages[2].error or "")
    assert messages[3].status == pb.OBSERVATION_STATUS_OK and messages[3].output == {
        "temperature": 20
    }


def test_transient_errors_are_retried_twice_with_growing_backoff() -> None:
    waits: list[float] = []
    attempts: list[int] = []

    def flaky(args: dict[str, Any]) -> dict[str, Any]:
        attempts.append(1)
        raise TransientToolError("busy")

    spec = ToolSpec("f", "", SCHEMA, func=flaky)
    executor = executor_for(
        spec, retry=RetryPolicy(initial_s=0.1, jitter_s=0.0, max_s=5), sleep=waits.append
    )
    outcome = executor.call(spec, {"n": 1}, session_id="s")
    assert outcome.status == pb.OBSERVATION_STATUS_ERROR and outcome.attempts == 3
    assert len(attempts) == 3 and waits == [0.1, 0.2]
    assert len(outcome.notes) == 2


def test_jitter_is_added_to_the_backoff() -> None:
    waits: list[float] = []

    def flaky(args: dict[str, Any]) -> dict[str, Any]:
        raise TransientToolError("busy")

    spec = ToolSpec("f", "", SCHEMA, func=flaky)
    executor = executor_for(
        spec, retry=RetryPolicy(initial_s=0.1, jitter_s=0.05, max_s=5), sleep=waits.append
    )
    executor.call(spec, {"n": 1}, session_id="s")
    assert 0.1 <= waits[0] <= 0.15 and 0.2 <= waits[1] <= 0.25


def test_permanent_errors_are_not_retried() -> None:
    attempts: list[int] = []

    def broken(args: dict[str, Any]) -> dict[str, Any]:
        attempts.append(1)
        raise ValueError("no such city")

    spec = ToolSpec("b", "", SCHEMA, func=broken)
    outcome = executor_for(spec).call(spec, {"n": 1}, session_id="s")
    assert outcome.status == pb.OBSERVATION_STATUS_ERROR
    assert outcome.error == "ValueError: no such city" and attempts == [1]


def test_timeout_is_enforced_and_retried_only_without_side_effects() -> None:
    release = threading.Event()
    attempts: list[int] = []

    def slow(args: dict[str, Any]) -> dict[str, Any]:
        attempts.append(1)
        release.wait(5)
        return {"ok": True}

    try:
        pure = ToolSpec("slow", "", SCHEMA, func=slow, timeout_s=0.05)
        outcome = executor_for(pure).call(pure, {"n": 1}, session_id="s")
        assert outcome.status == pb.OBSERVATION_STATUS_TIMEOUT and len(attempts) == 3
        attempts.clear()
        effect = ToolSpec("slow_fx", "", SCHEMA, func=slow, timeout_s=0.05, side_effects=True)
        outcome = executor_for(effect).call(effect, {"n": 1}, session_id="s")
        assert outcome.status == pb.OBSERVATION_STATUS_TIMEOUT and len(attempts) == 1
    finally:
        release.set()


def test_circuit_breaker_opens_and_fails_fast() -> None:
    attempts: list[int] = []

    def down(args: dict[str, Any]) -> dict[str, Any]:
        attempts.append(1)
        raise TransientToolError("down")

    spec = ToolSpec("d", "", SCHEMA, func=down)
    executor = executor_for(spec, retry=RetryPolicy(breaker_threshold=4, jitter_s=0))
    first = executor.call(spec, {"n": 1}, session_id="s")
    assert first.status == pb.OBSERVATION_STATUS_ERROR and len(attempts) == 3
    second = executor.call(spec, {"n": 1}, session_id="s")
    # The 4th failure opened the breaker between two attempts: the call stops there.
    assert second.status == pb.OBSERVATION_STATUS_REJECTED and len(attempts) == 4
    third = executor.call(spec, {"n": 1}, session_id="s")
    assert third.status == pb.OBSERVATION_STATUS_REJECTED and "circuit open" in (third.error or "")
    assert len(attempts) == 4  # failing fast: not called while open


def test_side_effecting_result_is_stored_and_replayed() -> None:
    runs: list[int] = []

    def note(args: dict[str, Any]) -> dict[str, Any]:
        runs.append(1)
        return {"id": len(runs)}

    spec = ToolSpec(
        "note",
        "",
        SCHEMA,
        func=note,
        side_effects=True,
        idempotency_key=lambda session, args: f"{session}:{args['n']}",
    )
    executor = executor_for(spec)
    first = executor.call(spec, {"n": 7}, session_id="s1")
    again = executor.call(spec, {"n": 7}, session_id="s1")
    other = executor.call(spec, {"n": 7}, session_id="s2")
    assert first.output == again.output == {"id": 1} and again.cached
    assert first.idempotency_key == "s1:7" and other.output == {"id": 2}
    assert runs == [1, 1]


def test_failed_side_effect_is_not_stored() -> None:
    results: list[Any] = [ValueError("nope"), {"id": 1}]

    def once(args: dict[str, Any]) -> dict[str, Any]:
        result = results.pop(0)
        if isinstance(result, Exception):
            raise result
        return dict(result)

    spec = ToolSpec("n", "", SCHEMA, func=once, side_effects=True)
    executor = executor_for(spec)
    assert executor.call(spec, {"n": 1}, session_id="s").status == pb.OBSERVATION_STATUS_ERROR
    assert executor.call(spec, {"n": 1}, session_id="s").output == {"id": 1}


def test_tool_without_func_cannot_run_here() -> None:
    spec = ToolSpec("remote", "", SCHEMA, executor="cloud")
    outcome = executor_for(spec).call(spec, {"n": 1}, session_id="s")
    assert outcome.status == pb.OBSERVATION_STATUS_ERROR
