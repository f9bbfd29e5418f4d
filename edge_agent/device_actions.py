"""Device actions the cloud asks for: run through the kernel's checked executor, with a
person's approval first where the tool needs one (or where the request is late).

The approval hand-over is one call: :meth:`DeviceActions.run` returns the OBSERVATION, or,
when a person decides first, the steps up to it: the APPROVAL_REQUEST, which the cloud
link yields to whoever reads the stream, and, once that reader asks for the next step,
the OBSERVATION of the action run or refused. The decision itself comes through
:class:`~edge_agent.approvals.Approvals` (``EdgeAgent.approve``), from the reader or from
another thread (the page, the Approve RPC), at most ``timeout_s`` away.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolSpec
from react_kernel.executor import canonical_json
from react_kernel.observations import render_output
from react_kernel.steps import from_struct, to_struct
from understanding.tools import requires_approval

if TYPE_CHECKING:
    from edge_agent.approvals import Approvals
    from react_kernel import ToolRegistry
    from react_kernel.executor import ToolExecutor
    from sync.store import MemoryStore

#: How long a cloud session's device action waits for the person's decision; the cloud
#: waits 30 s for the device's observation (``device_tool_timeout_s``), so less than that.
APPROVAL_TIMEOUT_S = 25.0
#: What a side effect is keyed on: the idempotency scope and the call's arguments as asked.
_Keyed = tuple[str, dict[str, Any]]

#: A side effect in a pending query answered later than this is confirmed first.
LATE_CONFIRM_S = 180.0

#: What running a device action gives: its OBSERVATION, or the steps up to it (an
#: APPROVAL_REQUEST first, then the OBSERVATION) when a person decides first.
DeviceOutcome = pb.ReactStep | Iterator[pb.ReactStep]


def approval_policy(spec: ToolSpec, args: dict[str, Any]) -> bool:
    """The kernel's approval policy on the device: the tool's own, or the catalogue's rule."""
    return spec.needs_approval or requires_approval(spec.name, args)


class DeviceActions:
    """Runs the device actions of cloud sessions, a person's approval first where needed."""

    def __init__(
        self,
        memory: MemoryStore,
        tools: ToolRegistry,
        executor: ToolExecutor,
        approvals: Approvals,
        now: Callable[[], datetime],
    ) -> None:
        self.memory = memory
        self.tools = tools
        self.executor = executor
        self.approvals = approvals
        self.now = now
        self.timeout_s = APPROVAL_TIMEOUT_S

    def run(
        self,
        action: pb.ReactStep,
        session_id: str = "",
        *,
        idempotency_scope: str = "",
        asked_s_ago: float = 0.0,
    ) -> DeviceOutcome:
        """Run a device ACTION the cloud asked for, through the kernel's checked executor.

        Side effects are keyed on ``idempotency_scope`` (default: the session id), so a
        query asked again keeps the keys of its first try. An action that needs the
        person's approval first gives the steps up to its OBSERVATION (see the module
        docstring); any other its OBSERVATION.
        """
        spec = self.tools.get(action.tool)
        observation = pb.ReactStep(
            step_type=pb.STEP_TYPE_OBSERVATION,
            act_id=action.act_id,
            tool=action.tool,
            origin=pb.ORIGIN_EDGE,
            session_id=action.session_id or session_id,
            trace_id=action.trace_id,
        )
        if spec is None:
            observation.status = pb.OBSERVATION_STATUS_ERROR
            observation.content = f"unknown device tool {action.tool!r}"
            return observation
        args = from_struct(action.arguments)
        asked_args = dict(args)  # the call as asked: its idempotency key, however late
        if asked_s_ago and spec.name == "set_timer" and args.get("seconds"):
            # A countdown runs from when it was asked, not from when the cloud answered.
            remaining = float(args["seconds"]) - asked_s_ago
            if remaining <= 0:
                return self._timer_already_due(observation, args, asked_s_ago)
            args["seconds"] = math.ceil(remaining)
        scope = idempotency_scope or observation.session_id
        late = spec.side_effects and asked_s_ago > LATE_CONFIRM_S
        if late or approval_policy(spec, args):
            if late:
                action.metadata["asked_s_ago"] = str(round(asked_s_ago))
            return self._approved_first(action, spec, args, observation, (scope, asked_args))
        return self._execute(spec, args, observation, (scope, asked_args))

    def _execute(
        self, spec: ToolSpec, args: dict[str, Any], observation: pb.ReactStep, keyed: _Keyed
    ) -> pb.ReactStep:
        scope, asked_args = keyed
        outcome = self.executor.call(spec, args, session_id=scope, key_args=asked_args)
        observation.status = outcome.status
        if outcome.status == pb.OBSERVATION_STATUS_OK:
            observation.observation.CopyFrom(to_struct(outcome.output))
            # JSON as the kernel renders its own observations, never a Python repr.
            observation.content = render_output(outcome.output)
        else:
            observation.content = f"error: {outcome.error}"
        observation.latency_ms = outcome.latency_ms
        return observation

    def _approved_first(
        self,
        action: pb.ReactStep,
        spec: ToolSpec,
        args: dict[str, Any],
        observation: pb.ReactStep,
        keyed: _Keyed,
    ) -> Iterator[pb.ReactStep]:
        """The APPROVAL_REQUEST, then (once the reader asks for more) the OBSERVATION of
        the action run, or refused when no one approved it in time."""
        key = (observation.session_id, action.act_id)
        self.approvals.open(key)
        try:
            yield approval_request(action, spec, args, observation.session_id)
            decision = self.approvals.wait(key, self.timeout_s)
        finally:
            self.approvals.forget_key(key)
        if decision is not None and decision.approved:
            yield self._execute(spec, args, observation, keyed)
            return
        observation.status = pb.OBSERVATION_STATUS_REJECTED
        why = decision.reason if decision is not None else "no one approved it in time"
        observation.content = f"{spec.name} was not approved on the device: {why}"
        yield observation

    def _timer_already_due(
        self, observation: pb.ReactStep, args: dict[str, Any], asked_s_ago: float
    ) -> pb.ReactStep:
        """A countdown asked for while offline that has run out by the time the cloud
        answered: it is not set again, and the answer says when it was due."""
        from understanding.answers import duration
        from understanding.tools.timers import home_zone

        zone, zone_name = home_zone(self.memory)
        seconds = int(args["seconds"])
        due = self.now() - timedelta(seconds=asked_s_ago - seconds)
        output = {
            "timer_id": "not set",  # the tool's schema: none was stored
            "fires_at": due.astimezone(zone).isoformat(timespec="seconds"),
            "already_due": True,
            "seconds": seconds,
            "due_at": due.astimezone(zone).isoformat(timespec="seconds"),
            "timezone": zone_name,
            "label": str(args.get("label") or ""),
        }
        observation.status = pb.OBSERVATION_STATUS_OK
        observation.observation.CopyFrom(to_struct(output))
        observation.content = (
            f"The {duration(seconds)} timer asked for {duration(round(asked_s_ago))} ago was"
            f" due at {due.astimezone(zone):%H:%M}: not set again."
        )
        return observation


def approval_request(
    action: pb.ReactStep, spec: ToolSpec, args: dict[str, Any], session_id: str
) -> pb.ReactStep:
    """The APPROVAL_REQUEST for a cloud session's device action (``metadata["via"] =
    "cloud"``: its stream waits for the decision, nothing is resumed)."""
    late = action.metadata.get("asked_s_ago")
    why = ""
    if late:
        from understanding.answers import duration

        why = f" (asked {duration(int(late))} ago, while offline)"
    request = pb.ReactStep(
        step_type=pb.STEP_TYPE_APPROVAL_REQUEST,
        session_id=session_id,
        act_id=action.act_id,
        tool=spec.name,
        content=f"Approve {spec.name} with {canonical_json(args)}{why}?",
        requires_approval=True,
        executor=pb.ORIGIN_EDGE,
        origin=pb.ORIGIN_EDGE,
        trace_id=action.trace_id,
    )
    request.arguments.CopyFrom(action.arguments)
    request.metadata["via"] = "cloud"
    return request
