"""Pending queries: the ones kept while no cloud answered, asked again on reconnect."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from edge_agent.handoff import TRANSIENT_CODES, CloudHandoff, code_name
from edge_agent.sessions import Stamper, save_finished, stored_time
from edgeloop.v1 import agent_pb2 as pb


class PendingQueries(CloudHandoff):
    """Asks the cloud the device's pending queries again and keeps their answers."""

    def own_pending(self) -> list[dict[str, Any]]:
        """The pending queries this device kept. Another device of the same user may have
        synced its own here: that device answers them (both would run their side effects)."""
        own = self.memory.node_id
        return [p for p in self.memory.pending() if p.get("node", own) == own]

    def resolve_pending(
        self, approve: Callable[[pb.ReactStep], bool] | None = None
    ) -> list[tuple[dict[str, Any], list[pb.ReactStep]]]:
        """On reconnect: ask the cloud each pending query again and record its answer.

        Each answered query gets a session of its own (linked by ``metadata.pending_id``)
        and is marked resolved in memory, so the next sync carries query and answer to the
        cloud's copy too. Its device actions keep the idempotency keys of the first try
        (keyed on the pending query's original session id), so a note the device already
        wrote before the cloud went away is not written twice. A query the cloud refuses
        for good (INVALID_ARGUMENT: too long, bad text) is resolved with that refusal; a
        transient failure stops here, that query and the rest stay pending; UNAUTHENTICATED
        and PERMISSION_DENIED raise ``CloudRequestError`` (nothing changes). ``approve``
        answers device actions that need a person's yes (None: denied). Returns the
        resolved pending records with their steps.
        """
        if self.cloud is None:
            return []
        from edge_agent.declaring import cloud_extras
        from edge_agent.errors import CloudRequestError, CloudUnavailableError

        resolved: list[tuple[dict[str, Any], list[pb.ReactStep]]] = []
        for pending in self.own_pending():
            session_id, trace_id = uuid.uuid4().hex, uuid.uuid4().hex
            scope = pending["session_id"] or pending["pending_id"]
            stamp = Stamper(session_id, trace_id)
            steps: list[pb.ReactStep] = []

            late_s = max(0.0, (self._now() - stored_time(pending["created_at"])).total_seconds())

            def run_tool(
                action: pb.ReactStep, sid: str = session_id, key: str = scope, late: float = late_s
            ) -> pb.ReactStep:
                return self.run_device_tool(action, sid, idempotency_scope=key, asked_s_ago=late)

            try:
                for step in self.cloud.run(
                    pending["query"],
                    session_id=session_id,
                    trace_id=trace_id,
                    history=[],
                    run_device_tool=run_tool,
                    **cloud_extras(self.tools, self.router, pending["query"]),
                ):
                    stamp(step, local=False)
                    step.metadata["pending_id"] = pending["pending_id"]
                    steps.append(step)
                    if step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
                        self._announce(step)  # WatchEvents and its Approve may answer it
                        if approve is not None:
                            self.approve(step.session_id, step.act_id, approve(step))
            except CloudUnavailableError:
                break
            except CloudRequestError as error:
                if code_name(error) in TRANSIENT_CODES:
                    break
                if code_name(error) != "INVALID_ARGUMENT":
                    raise
                steps.append(self._refusal_step(session_id, trace_id, error))
            finally:
                self._forget_decisions(session_id)
            final = next(
                (s for s in reversed(steps) if s.step_type == pb.STEP_TYPE_FINAL_ANSWER), None
            )
            if final is None:
                break
            with self.memory.batch():
                save_finished(
                    self.memory,
                    session_id,
                    steps,
                    query=pending["query"],
                    final_answer=final.content,
                    success=final.stop_reason != pb.STOP_REASON_REFUSED,
                    receipt=self._cloud_receipt(final),
                )
                self.memory.resolve_pending(pending["pending_id"], final.content)
            resolved.append((pending, steps))
            self._announce_resolved(pending, final)
        return resolved

    def _announce_resolved(self, pending: dict[str, Any], final: pb.ReactStep) -> None:
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
