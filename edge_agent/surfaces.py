"""What the agent tells the device's surfaces (the terminal, the page, WatchEvents
streams): an action waits for a person, a pending query was answered."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from edgeloop.v1 import agent_pb2 as pb

if TYPE_CHECKING:
    from edge_agent.device_events import EventHub


class Surfaces:
    """Publishes the agent's events on the hub a runtime sets (None: no one listens)."""

    def __init__(self) -> None:
        self.events: EventHub | None = None

    def approval_waiting(self, step: pb.ReactStep) -> None:
        """An APPROVAL_REQUEST: an action waits for a person (other steps say nothing)."""
        if self.events is None or step.step_type != pb.STEP_TYPE_APPROVAL_REQUEST:
            return
        from edge_agent.device_events import device_event

        self.events.publish(
            device_event(
                pb.DEVICE_EVENT_KIND_APPROVAL_WAITING,
                step.content,
                session_id=step.session_id,
                act_id=step.act_id,
            )
        )

    def pending_resolved(self, pending: dict[str, Any], final: pb.ReactStep) -> None:
        """A pending query answered now, on reconnect."""
        if self.events is None:
            return
        from edge_agent.device_events import device_event

        self.events.publish(
            device_event(
                pb.DEVICE_EVENT_KIND_PENDING_RESOLVED,
                f"Answered now: {pending['query']} -> {final.content}",
                session_id=final.session_id,
                pending_id=str(pending["pending_id"]),
            )
        )
