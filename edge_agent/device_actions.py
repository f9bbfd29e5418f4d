"""Device actions the cloud asks for: run through the kernel's checked executor, with a
person's approval first where the tool needs one (or where the request is late).

The approval hand-over: the first call returns an APPROVAL_REQUEST, which the cloud link
yields; the second call waits (at most ``approval_timeout_s``) for ``EdgeAgent.approve``.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from edge_agent.agent_parts import AgentParts, PersonDecision
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolSpec
from react_kernel.executor import canonical_json
from react_kernel.observations import render_output
from react_kernel.steps import from_struct, to_struct
from understanding.tools import requires_approval

#: How long a cloud session's device action waits for the person's decision; the cloud
#: waits 30 s for the device's observation (``device_tool_timeout_s``), so less than that.
APPROVAL_TIMEOUT_S = 25.0
#: A side effect in a pending query answered later than this is confirmed first.
LATE_CONFIRM_S = 180.0


def approval_policy(spec: ToolSpec, args: dict[str, Any]) -> bool:
    """The kernel's approval policy on the device: the tool's own, or the catalogue's rule."""
    return spec.needs_approval or requires_approval(spec.name, args)


class DeviceActions(AgentParts):
    """Runs the device actions of cloud sessions, and hands their approvals over."""

    def run_device_tool(
        self,
        action: pb.ReactStep,
        session_id: str = "",
        *,
        idempotency_scope: str = "",
        asked_s_ago: float = 0.0,
    ) -> pb.ReactStep:
        """Run a device ACTION the cloud asked for, through the kernel's checked executor.

        Side effects are keyed on ``idempotency_scope`` (default: the session id), so a
        query asked again keeps the keys of its first try. An action that needs the
        user's approval first returns an APPROVAL_REQUEST (``metadata["via"] = "cloud"``);
        the cloud link yields it and calls again, and that second call waits (at most
        ``approval_timeout_s``) for :meth:`approve` before it runs or refuses the action.
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
        if asked_s_ago and spec.name == "set_timer" and args.get("seconds"):
            # A countdown runs from when it was asked, not from when the cloud answered.
            remaining = float(args["seconds"]) - asked_s_ago
            if remaining <= 0:
                return self._timer_already_due(observation, args, asked_s_ago)
            args["seconds"] = math.ceil(remaining)
        late = spec.side_effects and asked_s_ago > LATE_CONFIRM_S
        if late or approval_policy(spec, args):
            if late:
                action.metadata["asked_s_ago"] = str(round(asked_s_ago))
            refusal = self._await_approval(action, spec, args, observation)
            if refusal is not None:
                return refusal
        outcome = self.loop.executor.call(
            spec, args, session_id=idempotency_scope or observation.session_id
        )
        observation.status = outcome.status
        if outcome.status == pb.OBSERVATION_STATUS_OK:
            observation.observation.CopyFrom(to_struct(outcome.output))
            # JSON as the kernel renders its own observations, never a Python repr.
            observation.content = render_output(outcome.output)
        else:
            observation.content = f"error: {outcome.error}"
        observation.latency_ms = outcome.latency_ms
        return observation

    def _timer_already_due(
        self, observation: pb.ReactStep, args: dict[str, Any], asked_s_ago: float
    ) -> pb.ReactStep:
        """A countdown asked for while offline that has run out by the time the cloud
        answered: it is not set again, and the answer says when it was due."""
        from understanding.answers import duration
        from understanding.tools.timers import home_zone

        zone, zone_name = home_zone(self.memory)
        seconds = int(args["seconds"])
        due = self._now() - timedelta(seconds=asked_s_ago - seconds)
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

    def _await_approval(
        self,
        action: pb.ReactStep,
        spec: ToolSpec,
        args: dict[str, Any],
        observation: pb.ReactStep,
    ) -> pb.ReactStep | None:
        """None when the person approved; else the step to return instead of running."""
        key = (observation.session_id, action.act_id)
        with self._decisions_lock:
            decision = self._decisions.get(key)
            if decision is None:
                self._decisions[key] = PersonDecision()
        if decision is None:  # first call: ask the person
            late = action.metadata.get("asked_s_ago")
            why = ""
            if late:
                from understanding.answers import duration

                why = f" (asked {duration(int(late))} ago, while offline)"
            request = pb.ReactStep(
                step_type=pb.STEP_TYPE_APPROVAL_REQUEST,
                session_id=observation.session_id,
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
        decided = decision.event.wait(self.approval_timeout_s)
        with self._decisions_lock:
            self._decisions.pop(key, None)
        if decided and decision.approved:
            return None
        observation.status = pb.OBSERVATION_STATUS_REJECTED
        why = decision.reason if decided else "no one approved it in time"
        observation.content = f"{spec.name} was not approved on the device: {why}"
        return observation

    def awaiting_cloud_approval(self, session_id: str, act_id: str) -> bool:
        """True while a cloud session's device action waits for this decision."""
        with self._decisions_lock:
            return (session_id, act_id) in self._decisions

    def _forget_decisions(self, session_id: str) -> None:
        with self._decisions_lock:
            for key in [k for k in self._decisions if k[0] == session_id]:
                del self._decisions[key]
