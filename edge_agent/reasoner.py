"""The device's kernel Reasoner: the routing THOUGHT, then the action(s), then one answer.

:func:`decision_thought` records a routing decision as a THOUGHT (the device's and the
cloud hand-off's); :class:`RouterReasoner` turns a decision, which travels in the session's
metadata (:func:`pack_decision`), into the loop's steps and an observation into a plain
sentence.
"""

from __future__ import annotations

import json
from typing import Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ReasoningContext
from react_kernel.steps import from_struct, to_struct
from understanding.answers import failure_answer, smalltalk_answer, tool_answer
from understanding.decision import RouteDecision, ToolCall
from understanding.router import Router

MODEL_NAME = "edge-router"
TOP_INTENTS = 3  # intents (with their scores) a routing THOUGHT records


def decision_thought(decision: RouteDecision) -> pb.ReactStep:
    """The THOUGHT that records a routing decision (content for people, metadata for code)."""
    where = f"use {decision.tool}" if decision.tool else "answer directly"
    if decision.route == "cloud":
        where = "hand this to the cloud"
    content = f"Route {decision.route} ({decision.confidence:.2f}): {where}; {decision.reason}."
    step = pb.ReactStep(step_type=pb.STEP_TYPE_THOUGHT, content=content, model=MODEL_NAME)
    step.metadata["route"] = decision.route
    step.metadata["confidence"] = f"{decision.confidence:.4f}"
    step.metadata["reason"] = decision.reason
    step.metadata["intent"] = decision.intent
    if decision.tool:
        step.metadata["tool"] = decision.tool
    if decision.scores:  # the runners-up too: why this intent, and how close the others were
        top = sorted(decision.scores.items(), key=lambda kv: -kv[1])[:TOP_INTENTS]
        step.metadata["intents"] = json.dumps({k: round(v, 4) for k, v in top})
    if len(decision.calls) > 1:  # a compound request the device runs call by call
        calls = [{"tool": c.tool, "arguments": c.arguments} for c in decision.calls]
        step.metadata["calls"] = json.dumps(calls, sort_keys=True, default=str)
    return step


#: The session metadata keys the decision and the units travel under, to the reasoner.
DECISION_KEY = "route_decision"
UNITS_KEY = "units"


def pack_decision(decision: RouteDecision) -> str:
    """A decision as JSON text, for the session's metadata (and so its saved state)."""
    data = decision.to_dict()
    data["scores"] = decision.scores
    return json.dumps(data, sort_keys=True, default=str)


def unpack_decision(text: str) -> RouteDecision:
    """The decision :func:`pack_decision` wrote."""
    data = json.loads(text)
    calls = tuple(ToolCall(c["tool"], c["arguments"]) for c in data.pop("calls", ()))
    return RouteDecision(**data, calls=calls)


class RouterReasoner:
    """The kernel Reasoner of the device: one routing decision, then one answer.

    The agent decides before it starts the loop (a cloud query never enters it); the
    decision travels in the session's metadata (``DECISION_KEY``, with the home's units
    under ``UNITS_KEY``), so the reasoner keeps no state of its own and a session resumed
    after an approval, here or in another process, goes on with the same decision. A
    session started with no decision is decided here, with no settings.
    """

    name = MODEL_NAME

    def __init__(self, router: Router) -> None:
        self.router = router

    def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """[THOUGHT, ACTION] first; after the observation, the next call of a compound
        request or [FINAL_ANSWER]."""
        packed = ctx.metadata.get(DECISION_KEY)
        decision = unpack_decision(packed) if packed else self.router.decide(ctx.query)
        turn = [s for s in ctx.history if s.turn_id == ctx.turn_id]
        observation = next(
            (s for s in reversed(turn) if s.step_type == pb.STEP_TYPE_OBSERVATION), None
        )
        if observation is not None:
            units = ctx.metadata.get(UNITS_KEY, "metric")
            if len(decision.calls) < 2:
                return [self._answer(turn, observation, units, ctx.query)]
            done = sum(1 for s in turn if s.step_type == pb.STEP_TYPE_ACTION)
            if done < len(decision.calls) and observation.status == pb.OBSERVATION_STATUS_OK:
                call = decision.calls[done]
                return [action_step(call.tool, call.arguments)]
            return [self._answer_all(turn, units)]
        thought = decision_thought(decision)
        if decision.route != "edge":
            final = pb.ReactStep(
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content="That needs the cloud, which this loop cannot reach.",
                model=MODEL_NAME,
            )
            return [thought, final]
        if decision.tool is None:
            final = pb.ReactStep(
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content=smalltalk_answer(ctx.query),
                model=MODEL_NAME,
            )
            return [thought, final]
        return [thought, action_step(decision.tool, decision.arguments or {})]

    @classmethod
    def _answer_all(cls, turn: list[pb.ReactStep], units: str = "metric") -> pb.ReactStep:
        """One answer for the observations of a compound request, in order."""
        parts = [
            cls._answer(turn, s, units).content
            for s in turn
            if s.step_type == pb.STEP_TYPE_OBSERVATION
        ]
        return pb.ReactStep(
            step_type=pb.STEP_TYPE_FINAL_ANSWER, content=" ".join(parts), model=MODEL_NAME
        )

    @staticmethod
    def _answer(
        turn: list[pb.ReactStep],
        observation: pb.ReactStep,
        units: str = "metric",
        query: str = "",
    ) -> pb.ReactStep:
        action = next(
            (
                s
                for s in turn
                if s.step_type == pb.STEP_TYPE_ACTION and s.act_id == observation.act_id
            ),
            None,
        )
        tool = observation.tool or (action.tool if action else "")
        args = from_struct(action.arguments) if action is not None else {}
        if observation.status == pb.OBSERVATION_STATUS_OK:
            output = from_struct(observation.observation) or from_struct(observation.arguments)
            try:
                content = tool_answer(tool, args, output, units, query)
            except (KeyError, TypeError, ValueError):
                content = observation.content
        else:
            content = failure_answer(tool, observation.content, args)
        return pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content=content, model=MODEL_NAME)


def action_step(tool: str, arguments: dict[str, Any]) -> pb.ReactStep:
    """An ACTION the device's reasoner asks the loop to run."""
    return pb.ReactStep(
        step_type=pb.STEP_TYPE_ACTION, tool=tool, arguments=to_struct(arguments), model=MODEL_NAME
    )
