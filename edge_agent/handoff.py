"""The cloud hand-off: a query the router sends to the cloud, streamed with the cloud's
steps (the device tools it asks for run here), kept as pending when no cloud answers.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from edge_agent.reasoner import MODEL_NAME, decision_thought
from edge_agent.sessions import Stamper, save_finished, save_refused, save_waiting
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct
from understanding.answers import offline_answer
from understanding.decision import RouteDecision

if TYPE_CHECKING:
    from edge_agent.approvals import Approvals
    from edge_agent.decider import Decider
    from edge_agent.device_actions import DeviceOutcome
    from edge_agent.device_loop import DeviceLoop
    from edge_agent.followups import Context
    from sync.store import MemoryStore
    from understanding.settings import Settings

#: Cloud refusals that another try may get past: the query is kept pending.
TRANSIENT_CODES = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})
#: Steps that end a turn: the answer, or a question back to the person.
ENDS_TURN = frozenset({pb.STEP_TYPE_FINAL_ANSWER, pb.STEP_TYPE_CLARIFICATION})


def code_name(error: Exception) -> str:
    """The gRPC status name of a cloud error (``UNKNOWN`` without one)."""
    code = getattr(error, "code", None)
    return str(getattr(code, "name", "UNKNOWN"))


class CloudRunner(Protocol):
    """What the agent needs from ``edge_agent.cloud_link.CloudLink``."""

    #: The receipt of the last answer streamed (None: none yet, or no receipt came).
    last_receipt: pb.DecisionReceipt | None

    def run(
        self,
        query: str,
        *,
        session_id: str,
        trace_id: str,
        history: Any = (),
        run_device_tool: Callable[[pb.ReactStep], DeviceOutcome],
        turn_id: int = 0,
        declared_tools: Any = (),
        proposed_calls: Any = (),
    ) -> Iterator[pb.ReactStep]: ...


#: Runs a device action the cloud asked for, in a session (``EdgeAgent.run_device_tool``).
SessionToolRunner = Callable[..., "DeviceOutcome"]


class CloudHandoff:
    """Hands queries to the cloud and keeps what it answers (or the query, pending)."""

    def __init__(
        self,
        memory: MemoryStore,
        cloud: CloudRunner | None,
        *,
        device: DeviceLoop,
        decider: Decider,
        approvals: Approvals,
        run_device_tool: SessionToolRunner,
        context: Context,
        now: Callable[[], datetime],
    ) -> None:
        self.memory = memory
        self.cloud = cloud
        self.device = device
        self.decider = decider
        self.approvals = approvals
        self.run_device_tool = run_device_tool
        self.context = context
        self._now = now

    def run(
        self,
        query: str,
        decision: RouteDecision,
        session_id: str,
        fallback: RouteDecision | None = None,
        *,
        turn_id: int = 0,
        settings: Settings | None = None,
        followup_of: str = "",
    ) -> Iterator[pb.ReactStep]:
        """Stream a cloud turn: the routing THOUGHT, the cloud's steps (device ACTIONs run
        here), its answer kept; with no cloud answering, ``fallback`` (or a compound the
        device can run alone) runs here, else the query is kept pending. ``followup_of``:
        the words of a follow-up the query was rewritten from (its context goes along)."""
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
        if followup_of:  # the context travels with the query, in its first step
            thought.metadata["followup_of"] = followup_of
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
                    **cloud_extras(self.decider.tools, self.decider.router, query, settings),
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
                self.approvals.forget(session_id)
        acted = any(s.step_type == pb.STEP_TYPE_ACTION for s in steps)
        if final is None and fallback is None and not acted:
            # (Once the cloud had the device act, the query stays pending: its retry
            # keeps those actions' idempotency keys, a device run would not.)
            fallback = self.decider.without_cloud(query, settings)
        if final is None and fallback is not None:
            # The cloud was only asked for a fresher forecast: the device answers itself.
            self.memory.save_steps(session_id, steps)
            units = settings.units if settings else "metric"
            yield from self.device.run(query, fallback, units=units)
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
        self.device.remember(steps)
        self._record_cloud_turn(session_id, query, steps, final)

    def _record_cloud_turn(
        self, session_id: str, query: str, steps: list[pb.ReactStep], final: pb.ReactStep
    ) -> None:
        """Keep a cloud turn's steps, the cloud's receipt and the session's summary (it
        waits, ``input_required``, when the cloud asked back)."""
        if final.step_type == pb.STEP_TYPE_CLARIFICATION:
            save_waiting(self.memory, session_id, steps, query=query)
            return
        save_finished(
            self.memory,
            session_id,
            steps,
            query=query,
            final_answer=final.content,
            success=final.metadata.get("offline") != "true",
            receipt=self.cloud_receipt(final),
        )

    def cloud_receipt(self, final: pb.ReactStep) -> pb.DecisionReceipt | None:
        """The cloud's receipt for ``final`` (``CloudLink`` keeps the last one), to keep
        on the device; None when there is none or it is another answer's."""
        receipt = self.cloud.last_receipt if self.cloud is not None else None
        if receipt is not None and receipt.receipt_id == final.receipt_id:
            return receipt
        return None

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
        why = f"The cloud refused this query: {error}"
        save_refused(self.memory, session_id, steps, query=query, why=why)

    def stale_forecast(self, decision: RouteDecision) -> RouteDecision | None:
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


def refusal_step(session_id: str, trace_id: str, error: Exception) -> pb.ReactStep:
    """The answer to a query the cloud refuses for good (kept, not pending)."""
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
