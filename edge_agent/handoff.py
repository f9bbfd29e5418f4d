"""The cloud hand-off: a query the router sends to the cloud, streamed with the cloud's
steps (the device tools it asks for run here), kept as pending when no cloud answers.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from edge_agent.agent_parts import AgentParts
from edge_agent.reasoner import MODEL_NAME, decision_thought
from edge_agent.sessions import Stamper, save_finished
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.state import State
from react_kernel.steps import from_struct
from understanding.answers import offline_answer
from understanding.router import RouteDecision

#: Cloud refusals that another try may get past: the query is kept pending.
TRANSIENT_CODES = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})
#: Steps that end a turn: the answer, or a question back to the person.
ENDS_TURN = frozenset({pb.STEP_TYPE_FINAL_ANSWER, pb.STEP_TYPE_CLARIFICATION})


def code_name(error: Exception) -> str:
    """The gRPC status name of a cloud error (``UNKNOWN`` without one)."""
    code = getattr(error, "code", None)
    return str(getattr(code, "name", "UNKNOWN"))


class CloudHandoff(AgentParts):
    """Hands queries to the cloud and keeps what it answers (or the query, pending)."""

    def _cloud(
        self,
        query: str,
        decision: RouteDecision,
        session_id: str,
        fallback: RouteDecision | None = None,
        *,
        turn_id: int = 0,
    ) -> Iterator[pb.ReactStep]:
        trace_id = uuid.uuid4().hex
        stamp = Stamper(session_id, trace_id)
        steps: list[pb.ReactStep] = []
        # A turn after the first (it answers the cloud's question) sends the session so far.
        earlier = self.memory.steps(session_id) if turn_id else []

        def emit(step: pb.ReactStep, *, local: bool = True) -> pb.ReactStep:
            stamp(step, local=local)
            if local:
                step.turn_id = turn_id
            steps.append(step)
            return step

        thought = decision_thought(decision)
        if self._followup_of:  # the context travels with the query, in its first step
            thought.metadata["followup_of"] = self._followup_of
            thought.metadata["context"] = json.dumps(self.context.snapshot(), sort_keys=True)
        yield emit(thought)
        final: pb.ReactStep | None = None
        retry_after: float | None = None
        if self.cloud is not None:
            from edge_agent.declaring import cloud_extras
            from edge_agent.errors import CloudRequestError, CloudUnavailableError

            try:
                for step in self.cloud.run(
                    query,
                    session_id=session_id,
                    trace_id=trace_id,
                    # An answering turn ends its history with the question it answers.
                    history=earlier or list(steps),
                    # Side effects are keyed on this session id: a pending query keeps it.
                    run_device_tool=lambda action: self.run_device_tool(action, session_id),
                    turn_id=turn_id,
                    # The device's own tools, and its reading of the query's clauses.
                    **cloud_extras(self.tools, self.router, query),
                ):
                    yield emit(step, local=False)
                    self._keep_forecast(step)
                    if step.step_type in ENDS_TURN:
                        final = step
            except CloudUnavailableError:
                final = None
            except CloudRequestError as error:
                if code_name(error) not in TRANSIENT_CODES and fallback is None:
                    self._record_refusal(session_id, query, steps, error)
                    raise
                retry_after = error.retry_after_s
            finally:
                self._forget_decisions(session_id)
        acted = any(s.step_type == pb.STEP_TYPE_ACTION for s in steps)
        if final is None and fallback is None and not acted:
            # (Once the cloud had the device act, the query stays pending: its retry
            # keeps those actions' idempotency keys, a device run would not.)
            fallback = self._device_only(query)
        if final is None and fallback is not None:
            # The cloud was only asked for a fresher forecast: the device answers itself.
            self.memory.save_steps(session_id, steps)
            session = self.loop.start(query)
            self.reasoner.prime(session.session_id, fallback)
            yield from self._run(session)
            return
        if final is None:
            pending_id = self.memory.add_pending(query, session_id)
            answer = pb.ReactStep(
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content=offline_answer(pending_id, retry_after),
                model=MODEL_NAME,
                stop_reason=pb.STOP_REASON_ERROR,
            )
            if retry_after is not None:
                answer.metadata["retry_after_ms"] = str(round(retry_after * 1000))
            answer.metadata["pending_id"] = pending_id
            answer.metadata["offline"] = "true"
            final = emit(answer)
            yield final
        self._remember(steps)
        self._record_cloud_turn(session_id, query, steps, final)

    def _record_cloud_turn(
        self, session_id: str, query: str, steps: list[pb.ReactStep], final: pb.ReactStep
    ) -> None:
        """Keep a cloud turn's steps, the cloud's receipt and the session's summary (it
        waits, ``input_required``, when the cloud asked back)."""
        if final.step_type == pb.STEP_TYPE_CLARIFICATION:
            with self.memory.batch():
                self.memory.save_steps(session_id, steps)
                self.memory.record_session(session_id, query=query, state="input_required")
            return
        save_finished(
            self.memory,
            session_id,
            steps,
            query=query,
            final_answer=final.content,
            success=final.metadata.get("offline") != "true",
            receipt=self._cloud_receipt(final),
        )

    def _cloud_receipt(self, final: pb.ReactStep) -> pb.DecisionReceipt | None:
        """The cloud's receipt for ``final`` (``CloudLink`` keeps the last one), to keep
        on the device; None when there is none or it is another answer's."""
        receipt: pb.DecisionReceipt | None = getattr(self.cloud, "last_receipt", None)
        if receipt is not None and receipt.receipt_id == final.receipt_id:
            return receipt
        return None

    def _device_only(self, query: str) -> RouteDecision | None:
        """With no cloud to plan it, a compound query whose every request has a device
        tool ("turn on the lights and set a 5 minute timer") runs here, each request as
        the router reads it on its own; None when any part needs the cloud."""
        if not self.router.one_request:
            return None
        self.router.one_request = False
        try:
            decision = self.router.decide(query)
        finally:
            self.router.one_request = True
        if decision.route != "edge" or len(decision.calls) < 2:
            return None
        if any(self.tools.get(call.tool) is None for call in decision.calls):
            return None
        return decision

    def _keep_forecast(self, step: pb.ReactStep) -> None:
        """Keep the week a cloud forecast observation carries in the forecast cache."""
        if (
            step.step_type == pb.STEP_TYPE_OBSERVATION
            and step.tool == "get_weather"
            and step.status == pb.OBSERVATION_STATUS_OK
        ):
            from understanding.forecast import remember_observation

            remember_observation(self.memory, from_struct(step.observation))

    def _record_refusal(
        self, session_id: str, query: str, steps: list[pb.ReactStep], error: Exception
    ) -> None:
        """Keep a refused cloud query's steps and its failed session (not pending: the
        same request would be refused again)."""
        with self.memory.batch():
            self.memory.save_steps(session_id, steps)
            self.memory.record_session(
                session_id,
                query=query,
                final_answer=f"The cloud refused this query: {error}",
                success=False,
                state=State.FAILED.value,
            )

    def _stale_forecast(self, decision: RouteDecision) -> RouteDecision | None:
        """For a weather decision with no fresh forecast in the cache, the decision to ask
        the cloud instead; None otherwise."""
        from understanding.forecast import needs_fetch

        if decision.route != "edge" or decision.tool != "get_weather":
            return None
        if not needs_fetch(self.memory, decision.arguments or {}, self._now()):
            return None
        city = (decision.arguments or {}).get("city")
        return RouteDecision(
            "cloud",
            None,
            None,
            decision.confidence,
            f"no fresh forecast for {city} on the device",
            decision.intent,
        )

    @staticmethod
    def _refusal_step(session_id: str, trace_id: str, error: Exception) -> pb.ReactStep:
        step = pb.ReactStep(
            step_type=pb.STEP_TYPE_FINAL_ANSWER,
            content=f"The cloud cannot answer this query: {error}",
            model=MODEL_NAME,
            stop_reason=pb.STOP_REASON_REFUSED,
            session_id=session_id,
            trace_id=trace_id,
            origin=pb.ORIGIN_EDGE,
        )
        step.created_at.GetCurrentTime()
        return step
