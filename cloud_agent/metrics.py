"""Prometheus metrics of the cloud reasoner, on a registry of its own (one per server).

Exposed with ``cloud-agent serve --metrics-port N`` at ``http://127.0.0.1:N/metrics``:

- ``edgeloop_steps_total{type,tool,status,origin}``: every step the cloud streams or receives
- ``edgeloop_step_latency_seconds{type}``: time to produce each step
- ``edgeloop_route_decisions_total{route,tool}``: the planner's per-clause decisions
- ``edgeloop_cloud_fallbacks_total{from_backend,to_backend}``: a backend failed, the next served
- ``edgeloop_parser_fallbacks_total{kind}``: the kernel's tolerant-parser repairs, counted
  from the ``parser_fallbacks`` metadata of each reply's decisive step
- ``edgeloop_breaker_state{name}``: 0 closed, 1 half-open, 2 open
- ``edgeloop_rate_limited_total``: calls refused by the per-device rate limit
- ``edgeloop_sessions_total{rpc,outcome}``: sessions by RPC and how they ended
- ``edgeloop_errors_total{rpc,code}``: reasoner calls that ended with an error status, by
  gRPC code (calls refused by the token check before any servicer runs are not counted)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from edgeloop.v1 import agent_pb2 as pb

# Tool names come from the wire: past this many label combinations, look children up each time.
_MAX_CACHED_CHILDREN = 4096
# The parser marks every step of a repaired reply; its decisive step counts the repairs once.
PARSER_FALLBACKS_KEY = "parser_fallbacks"
_DECISIVE = (pb.STEP_TYPE_ACTION, pb.STEP_TYPE_FINAL_ANSWER, pb.STEP_TYPE_ERROR)
BREAKER_STATE_VALUES = {"closed": 0.0, "half_open": 1.0, "half-open": 1.0, "open": 2.0}


def _enum_label(enum: Any, value: int, prefix: str) -> str:
    try:
        name: str = enum.Name(value)
    except ValueError:
        return str(value)
    return name.removeprefix(prefix).lower()


class _CallbackCollector(Collector):
    """Reads breaker states when Prometheus scrapes."""

    def __init__(self, breakers: Callable[[], Mapping[str, str]]) -> None:
        self._breakers = breakers

    def collect(self) -> Iterator[Any]:
        gauge = GaugeMetricFamily(
            "edgeloop_breaker_state",
            "Circuit breaker state (0 closed, 1 half-open, 2 open).",
            labels=["name"],
        )
        for name, state in self._breakers().items():
            gauge.add_metric([name], BREAKER_STATE_VALUES.get(str(state).lower(), -1.0))
        yield gauge


class CloudMetrics:
    """The cloud's counters and histograms; ``observe_step`` is called for every step."""

    def __init__(
        self,
        breakers: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        self.registry = CollectorRegistry()
        self.steps = Counter(
            "edgeloop_steps",
            "ReAct steps by type, tool, status and origin.",
            ["type", "tool", "status", "origin"],
            registry=self.registry,
        )
        self.step_latency = Histogram(
            "edgeloop_step_latency_seconds",
            "Time to produce one step.",
            ["type"],
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
            registry=self.registry,
        )
        self.route_decisions = Counter(
            "edgeloop_route_decisions",
            "Per-clause route decisions.",
            ["route", "tool"],
            registry=self.registry,
        )
        self.cloud_fallbacks = Counter(
            "edgeloop_cloud_fallbacks",
            "A backend failed or was open and the next one served.",
            ["from_backend", "to_backend"],
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "edgeloop_rate_limited",
            "Calls refused by the per-device rate limit.",
            registry=self.registry,
        )
        self.sessions = Counter(
            "edgeloop_sessions",
            "Sessions by RPC and outcome.",
            ["rpc", "outcome"],
            registry=self.registry,
        )
        self.errors = Counter(
            "edgeloop_errors",
            "Reasoner calls that ended with an error status, by RPC and gRPC status code.",
            ["rpc", "code"],
            registry=self.registry,
        )
        self.parser_fallbacks = Counter(
            "edgeloop_parser_fallbacks",
            "Tolerant-parser repairs by kind.",
            ["kind"],
            registry=self.registry,
        )
        self._collector = _CallbackCollector(breakers)
        self.registry.register(self._collector)
        self._step_children: dict[tuple[int, str, int, int], Any] = {}
        self._latency_children: dict[int, Any] = {}
        self._http: Any = None
        self._http_thread: threading.Thread | None = None

    def set_breakers(self, breakers: Callable[[], Mapping[str, str]]) -> None:
        """Read breaker states from ``breakers`` on each scrape."""
        self._collector._breakers = breakers

    def observe_step(self, step: pb.ReactStep) -> None:
        """Count one step and record how long it took to produce."""
        step_type = step.step_type
        is_observation = step_type == pb.STEP_TYPE_OBSERVATION
        # Keyed by the raw field values: label lookups (and enum names) cost more than the
        # increment, so each combination's child is looked up once.
        key = (step_type, step.tool, step.status if is_observation else -1, step.origin)
        counter = self._step_children.get(key)
        if counter is None:
            kind = _enum_label(pb.StepType, step_type, "STEP_TYPE_")
            status = (
                _enum_label(pb.ObservationStatus, step.status, "OBSERVATION_STATUS_")
                if is_observation
                else ""
            )
            origin = _enum_label(pb.Origin, step.origin, "ORIGIN_")
            counter = self.steps.labels(kind, step.tool, status, origin)
            if len(self._step_children) < _MAX_CACHED_CHILDREN:
                self._step_children[key] = counter
        counter.inc()
        if step_type in _DECISIVE and PARSER_FALLBACKS_KEY in step.metadata:
            for kind in step.metadata[PARSER_FALLBACKS_KEY].split(","):
                self.parser_fallbacks.labels(kind).inc()
        latency_ms = step.latency_ms
        if latency_ms > 0:
            histogram = self._latency_children.get(step_type)
            if histogram is None:
                kind = _enum_label(pb.StepType, step_type, "STEP_TYPE_")
                histogram = self._latency_children[step_type] = self.step_latency.labels(kind)
            histogram.observe(latency_ms / 1000.0)

    def serve(self, port: int, host: str = "127.0.0.1") -> int:
        """Serve ``/metrics`` over HTTP on ``host:port`` (0 picks a port); return the port."""
        server, thread = start_http_server(port, addr=host, registry=self.registry)
        self._http, self._http_thread = server, thread
        return int(server.server_address[1])

    def close(self) -> None:
        """Stop the HTTP endpoint, if it was started."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        if self._http_thread is not None:
            self._http_thread.join(timeout=5)
            self._http_thread = None
