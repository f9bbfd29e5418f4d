"""Running one tool call: validate, guard, call (timeout, retries), check, remember.

The order is fixed and each stage can end the call with an observation status:

1. input validated against the tool's JSON Schema (compiled once) -> ERROR, tool not called;
2. the tool's circuit breaker -> REJECTED while open;
3. the idempotency store (side-effecting tools) -> the stored result, tool not called;
4. the call, with its timeout, retried on :class:`TransientToolError` (and on timeouts of
   tools without side effects) with exponential backoff and jitter, at most 2 retries;
5. the observation checked in three layers: status (the call returned a dict), schema
   (the observation schema), business rules (the spec's validator) -> ERROR;
6. a side-effecting success is stored under its idempotency key.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.breaker import CircuitBreaker
from react_kernel.errors import TransientToolError
from react_kernel.idempotency import IdempotencyStore
from react_kernel.tools import ToolRegistry, ToolSpec

__all__ = [
    "RetryPolicy",
    "ToolExecutor",
    "ToolOutcome",
    "canonical_json",
    "default_idempotency_key",
]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries of transient failures: at most ``max_retries`` (capped at 2) more attempts,
    waiting ``initial_s * 2**n`` plus up to ``jitter_s`` random seconds, at most ``max_s``."""

    max_retries: int = 2
    initial_s: float = 0.05
    max_s: float = 1.0
    jitter_s: float = 0.05
    breaker_threshold: int = 5
    breaker_reset_s: float = 30.0


@dataclass(slots=True)
class ToolOutcome:
    """The result of one call, ready to become an OBSERVATION."""

    status: pb.ObservationStatus
    output: dict[str, Any]
    error: str | None = None
    attempts: int = 0
    cached: bool = False
    idempotency_key: str = ""
    latency_ms: float = 0.0
    notes: list[str] = field(default_factory=list)


class _Timeout(Exception):
    """Internal: the call did not finish within the tool's timeout."""


# json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
# builds this very encoder on every call; one shared instance gives the same text.
_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
)


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: what hashes and idempotency keys are computed over."""
    return _CANONICAL.encode(value)


def default_idempotency_key(tool: str, session_id: str, args: dict[str, Any]) -> str:
    """The key of a side-effecting call when its spec gives no function: the same tool
    with the same arguments in the same session is the same effect."""
    raw = f"{tool}\x00{session_id}\x00{canonical_json(args)}"
    return "idem-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()


_POOL_LOCK = threading.Lock()
_POOL: concurrent.futures.ThreadPoolExecutor | None = None


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(
                max_workers=8, thread_name_prefix="react-kernel-tool"
            )
        return _POOL


class ToolExecutor:
    """Runs tool calls for one loop; holds the per-tool circuit breakers.

    ``sleep`` is what the retry backoff waits with (tests pass a recorder).
    """

    def __init__(
        self,
        registry: ToolRegistry,
        idempotency: IdempotencyStore | None = None,
        *,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        breaker_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.registry = registry
        self.idempotency = idempotency
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._breaker_clock = breaker_clock
        self.breakers: dict[str, CircuitBreaker] = {}

    def breaker(self, tool: str) -> CircuitBreaker:
        """The circuit breaker of ``tool`` (created on first use)."""
        breaker = self.breakers.get(tool)
        if breaker is None:
            breaker = CircuitBreaker(
                self.retry.breaker_threshold, self.retry.breaker_reset_s, clock=self._breaker_clock
            )
            self.breakers[tool] = breaker
        return breaker

    def idempotency_key(self, spec: ToolSpec, session_id: str, args: dict[str, Any]) -> str:
        """The key under which a side-effecting call's result is stored ("" otherwise)."""
        if not spec.side_effects:
            return ""
        if spec.idempotency_key is not None:
            return spec.idempotency_key(session_id, args)
        return default_idempotency_key(spec.name, session_id, args)

    def validate_input(self, spec: ToolSpec, args: dict[str, Any]) -> str | None:
        """The input-schema errors of ``args`` as one message, or None when valid."""
        errors = self.registry.input_errors(spec.name, args)
        if not errors:
            return None
        return "; ".join(describe_schema_error(e) for e in errors[:5])

    def check_output(self, spec: ToolSpec, output: Any) -> str | None:
        """Layers 1-3 on an observation: a dict, valid against the schema, business rules."""
        if not isinstance(output, dict):
            return f"tool returned {type(output).__name__}, expected an object"
        errors = self.registry.output_errors(spec.name, output)
        if errors:
            return "observation failed its schema: " + "; ".join(
                describe_schema_error(e) for e in errors[:5]
            )
        if spec.validator is not None:
            try:
                problem = spec.validator(output)
            except Exception as exc:  # a broken validator must not break the loop
                problem = f"validator raised {type(exc).__name__}: {exc}"
            if problem:
                return f"observation failed business rules: {problem}"
        return None

    def call(
        self,
        spec: ToolSpec,
        args: dict[str, Any],
        *,
        session_id: str,
        key_args: dict[str, Any] | None = None,
    ) -> ToolOutcome:
        """Run one call through every stage; never raises for a tool's failure.

        ``key_args``: the arguments the idempotency key is made of when they differ from
        the ones run (a countdown re-anchored to when it was asked is still the call asked
        for: asked again, it must find the first run's key)."""
        start = time.perf_counter()
        outcome = self._call(spec, args, session_id, key_args)
        outcome.latency_ms = (time.perf_counter() - start) * 1000.0
        return outcome

    def _call(
        self,
        spec: ToolSpec,
        args: dict[str, Any],
        session_id: str,
        key_args: dict[str, Any] | None = None,
    ) -> ToolOutcome:
        problem = self.validate_input(spec, args)
        if problem is not None:
            return ToolOutcome(pb.OBSERVATION_STATUS_ERROR, {}, f"invalid input: {problem}")
        key = self.idempotency_key(spec, session_id, args if key_args is None else key_args)
        if key and self.idempotency is not None:
            stored = self.idempotency.get(key)
            if stored is not None:
                return ToolOutcome(
                    pb.OBSERVATION_STATUS_OK, stored, cached=True, idempotency_key=key
                )
        if spec.func is None:
            return ToolOutcome(
                pb.OBSERVATION_STATUS_ERROR, {}, f"tool {spec.name!r} cannot run on this side"
            )
        breaker = self.breaker(spec.name)
        if not breaker.allow():
            return ToolOutcome(
                pb.OBSERVATION_STATUS_REJECTED,
                {},
                f"circuit open for tool {spec.name!r} after repeated failures",
                idempotency_key=key,
            )
        outcome = self._run_with_retries(spec, args, breaker)
        outcome.idempotency_key = key
        if outcome.status == pb.OBSERVATION_STATUS_OK:
            problem = self.check_output(spec, outcome.output)
            if problem is not None:
                outcome.status = pb.OBSERVATION_STATUS_ERROR
                outcome.error = problem
            elif key and self.idempotency is not None:
                self.idempotency.put(key, outcome.output)
        return outcome

    def _run_with_retries(
        self, spec: ToolSpec, args: dict[str, Any], breaker: CircuitBreaker
    ) -> ToolOutcome:
        func = spec.func
        assert func is not None
        timeout = spec.timeout_s
        attempts = 0
        notes: list[str] = []

        def attempt() -> dict[str, Any]:
            nonlocal attempts
            if attempts and not breaker.allow():
                raise _BreakerOpen()
            attempts += 1
            try:
                result = func(dict(args)) if timeout is None else _with_timeout(func, args, timeout)
            except BaseException:
                breaker.record_failure()
                raise
            breaker.record_success()
            return result

        def retryable(exc: BaseException) -> bool:
            if isinstance(exc, TransientToolError):
                return True
            return isinstance(exc, _Timeout) and not spec.side_effects

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            notes.append(f"retry {state.attempt_number + 1}: {type(exc).__name__}: {exc}")

        policy = self.retry
        # The first attempt runs directly: setting up tenacity costs more than a fast
        # tool, and most calls succeed. Only a retryable failure enters the retry loop.
        try:
            return ToolOutcome(pb.OBSERVATION_STATUS_OK, attempt(), attempts=1)
        except Exception as exc:
            retries = min(2, policy.max_retries)
            if retries <= 0 or not retryable(exc):
                return _failure(spec, exc, attempts, notes)
            notes.append(f"retry 1: {type(exc).__name__}: {exc}")
        # Backoff before retry n (n = 1, 2): initial * 2**(n-1) + jitter, capped at max_s.
        self._sleep(min(policy.max_s, policy.initial_s + random.uniform(0, policy.jitter_s)))
        retrying = Retrying(
            stop=stop_after_attempt(retries),
            wait=wait_exponential_jitter(
                initial=policy.initial_s * 2, max=policy.max_s, jitter=policy.jitter_s
            ),
            retry=retry_if_exception(retryable),
            sleep=self._sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            result = retrying(attempt)
        except Exception as exc:
            return _failure(spec, exc, attempts, notes)
        return ToolOutcome(pb.OBSERVATION_STATUS_OK, result, attempts=attempts, notes=notes)


class _BreakerOpen(Exception):
    """Internal: the breaker opened between two attempts."""


def _failure(spec: ToolSpec, exc: BaseException, attempts: int, notes: list[str]) -> ToolOutcome:
    if isinstance(exc, _BreakerOpen):
        return ToolOutcome(
            pb.OBSERVATION_STATUS_REJECTED,
            {},
            f"circuit open for tool {spec.name!r} after repeated failures",
            attempts=attempts,
            notes=notes,
        )
    if isinstance(exc, _Timeout):
        return ToolOutcome(
            pb.OBSERVATION_STATUS_TIMEOUT,
            {},
            f"tool {spec.name!r} timed out after {spec.timeout_s}s",
            attempts=attempts,
            notes=notes,
        )
    return ToolOutcome(
        pb.OBSERVATION_STATUS_ERROR,
        {},
        f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
        attempts=attempts,
        notes=notes,
    )


def _with_timeout(
    func: Callable[[dict[str, Any]], dict[str, Any]], args: dict[str, Any], timeout: float
) -> dict[str, Any]:
    # A thread cannot be killed: a tool that overruns keeps its worker until it returns,
    # but the loop moves on at the deadline.
    future = _pool().submit(func, dict(args))
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise _Timeout() from None


_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
               (list, "array"), (dict, "object"), (type(None), "null"))  # fmt: skip


def _json_type(value: Any) -> str:
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def describe_schema_error(error: Any) -> str:
    """One schema error (a ``jsonschema.ValidationError``) as a peer can act on it: the
    field's path, what the schema expects and what was sent.

    Example: ``field 'state' must be of type string, got object {"power": "on"}``.
    """
    where = ".".join(str(p) for p in error.absolute_path)
    field = f"field {where!r}" if where else "the value"
    expected, instance = error.validator_value, error.instance
    if error.validator == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        sent = json.dumps(instance, default=str)
        sent = sent if len(sent) <= 60 else sent[:57] + "..."
        return f"{field} must be of type {wanted}, got {_json_type(instance)} {sent}"
    if error.validator == "required" and isinstance(instance, dict):
        prefix = f"{where}." if where else ""
        missing = [name for name in expected if name not in instance]
        return "; ".join(f"field {prefix + name!r} is required but missing" for name in missing)
    return f"{field}: {error.message}"
