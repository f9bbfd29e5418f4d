"""Backends in an ordered fallback list, each behind its own circuit breaker.

``FallbackReasoner([openai, planner])`` asks the first backend whose breaker allows a call;
when a backend raises (HTTP error, timeout, an empty or unusable reply) its failure is
recorded and the next one serves the same step. A failure that is not the backend's fault
(the session's time ran out before a call could start) is not counted; once the session
is canceled no backend is asked. Every backend is stateless between calls (it reads the history), so
the one that takes over continues the session where it stands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from cloud_agent.config import CloudConfig
from cloud_agent.errors import BackendUnavailableError
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import CircuitBreaker, Reasoner, ReasoningContext

log = logging.getLogger(__name__)

FallbackHook = Callable[[str, str], None]


class FallbackReasoner:
    """A Reasoner that delegates to the first healthy backend of an ordered list."""

    name = "fallback"

    def __init__(
        self,
        backends: Sequence[Reasoner],
        *,
        failure_threshold: int = 3,
        reset_timeout_s: float = 30.0,
        on_fallback: FallbackHook | None = None,
    ) -> None:
        if not backends:
            raise ValueError("at least one backend is needed")
        self.backends = list(backends)
        self.breakers = {
            b.name: CircuitBreaker(failure_threshold, reset_timeout_s) for b in self.backends
        }
        self._on_fallback = on_fallback
        # Whether a step may block on I/O (an HTTP backend): then steps run on a worker thread.
        self.blocking = any(getattr(b, "blocking", True) for b in self.backends)
        self.name = self.backends[0].name if len(self.backends) == 1 else "fallback"

    def close(self) -> None:
        """Close the backends that hold resources (an HTTP client, its event loop)."""
        for backend in self.backends:
            close = getattr(backend, "close", None)
            if callable(close):
                close()

    def breaker_states(self) -> dict[str, str]:
        """Each backend's breaker state (for metrics)."""
        return {f"backend:{name}": str(b.state) for name, b in self.breakers.items()}

    def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """The first healthy backend's steps; raise BackendUnavailableError if none serves."""
        failed: str | None = None
        problems = []
        for backend in self.backends:
            breaker = self.breakers[backend.name]
            if not breaker.allow():
                problems.append(f"{backend.name}: circuit open")
                failed = failed or backend.name
                continue
            if failed is not None and self._on_fallback is not None:
                self._on_fallback(failed, backend.name)
            try:
                steps = backend.next_steps(ctx)
            except Exception as exc:  # any backend failure moves on to the next backend
                if ctx.cancel.canceled:  # the session ended: no other backend is asked
                    raise
                if getattr(exc, "counts_against_backend", True):
                    breaker.record_failure()
                else:
                    breaker.release()
                log.warning("backend %s failed: %s", backend.name, exc)
                problems.append(f"{backend.name}: {exc}")
                failed = backend.name
                continue
            breaker.record_success()
            for step in steps:
                step.metadata.setdefault("backend", backend.name)
                if not step.model:
                    step.model = backend.name
            return steps
        raise BackendUnavailableError("no backend could serve: " + "; ".join(problems))


def build_reasoner(
    config: CloudConfig,
    on_fallback: FallbackHook | None = None,
    on_route: Callable[[str, str], None] | None = None,
) -> Any:
    """The configured backends, in order, behind a FallbackReasoner."""
    backends: list[Reasoner] = []
    for name in config.backends:
        if name == "planner":
            from cloud_agent.planner.reasoner import PlannerReasoner, load_edge_router

            backends.append(
                PlannerReasoner(
                    on_route=on_route,
                    router=load_edge_router(config.planner_router),
                    split_with_model=config.planner_split == "model",
                )
            )
        elif name == "openai":
            from cloud_agent.openai_backend import OpenAIReasoner

            backends.append(OpenAIReasoner(config.openai))
    return FallbackReasoner(
        backends,
        failure_threshold=config.breaker_failures,
        reset_timeout_s=config.breaker_reset_s,
        on_fallback=on_fallback,
    )
