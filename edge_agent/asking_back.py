"""Asking back: a question for a missing argument ends the turn, and the next turn's
words answer it (or withdraw the request, or are asked again)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

from edge_agent.reasoner import MODEL_NAME, decision_thought
from edge_agent.sessions import Stamper, save_finished, save_waiting
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct, new_act_id, to_struct
from understanding.decision import RouteDecision
from understanding.tools import TOOL_NAMES

if TYPE_CHECKING:
    from edge_agent.decider import Decider
    from edge_agent.device_loop import DeviceLoop
    from edge_agent.handoff import CloudHandoff
    from react_kernel import ToolRegistry
    from sync.store import MemoryStore
    from understanding.settings import Settings

#: The decision recorded for a turn that answers the cloud's question.
_CLOUD_ANSWER = RouteDecision("cloud", None, None, 1.0, "the answer to the cloud's question")
_BUILTIN = frozenset(TOOL_NAMES)
#: The prefix of a question asked again.
_AGAIN = "Sorry, I didn't get that. "


class AskingBack:
    """Asks the person for what a request lacks, and reads their answer."""

    def __init__(
        self,
        memory: MemoryStore,
        tools: ToolRegistry,
        *,
        decider: Decider,
        device: DeviceLoop,
        handoff: CloudHandoff,
    ) -> None:
        self.memory = memory
        self.tools = tools
        self.decider = decider
        self.device = device
        self.handoff = handoff

    def open_question(self, session_id: str) -> pb.ReactStep | None:
        """The CLARIFICATION a session waits on (its last step), or None."""
        steps = self.memory.steps(session_id)
        if steps and steps[-1].step_type == pb.STEP_TYPE_CLARIFICATION:
            return steps[-1]
        return None

    def ask(
        self,
        query: str,
        decision: RouteDecision,
        session_id: str,
        turn_id: int = 0,
        answers: str = "",
    ) -> Iterator[pb.ReactStep]:
        """THOUGHT + CLARIFICATION: the question for the missing argument ends the turn;
        the session waits (``input_required``) for the next turn to answer it. ``answers``:
        the act id of the question this one asks again."""
        from understanding.asking import argument_schema, question_for

        stamp = Stamper(session_id, uuid.uuid4().hex)
        thought = decision_thought(decision)
        question = pb.ReactStep(
            step_type=pb.STEP_TYPE_CLARIFICATION,
            content=decision.question,
            tool=decision.tool or "",
            act_id=new_act_id(),
            missing_argument=decision.missing,
            model=MODEL_NAME,
        )
        question.arguments.CopyFrom(to_struct(decision.arguments or {}))
        spec = self.tools.get(decision.tool or "")
        if spec is not None:
            schema = argument_schema(spec.input_schema, decision.missing)
            question.argument_schema.CopyFrom(to_struct(schema))
        question.metadata["query"] = query  # the request the answer completes
        joiner = question_for(decision.tool or "", query)
        question.metadata["joiner"] = joiner.joiner if joiner else ""
        steps = [thought, question]
        for step in steps:
            stamp(step, local=True)
            step.turn_id = turn_id
            step.answers_act_id = answers
        save_waiting(self.memory, session_id, steps, query=query)
        yield from steps

    def answer(
        self,
        answer: str,
        question: pb.ReactStep,
        session_id: str,
        settings: Settings | None = None,
    ) -> Iterator[pb.ReactStep]:
        """The next turn of a session that asked back: the answer completes the request
        (or withdraws it); an answer that does not give the argument asks again."""
        from understanding.asking import fold, is_withdrawal

        turn = question.turn_id + 1
        asked = question.metadata.get("query", "")
        if question.origin == pb.ORIGIN_CLOUD:
            yield from self.handoff.run(
                answer, _CLOUD_ANSWER, session_id, turn_id=turn, settings=settings
            )
            return
        if is_withdrawal(answer):
            yield from self._final(session_id, turn, question, "Okay, I'll leave it.", asked)
            return
        # Free text is the answer, whole; a number, a time or a choice is read by the
        # router from the request completed by the answer.
        completed = fold(asked, question.metadata.get("joiner", ""), answer)
        decision = self._answer_as_text(question, answer) or self.decider.decide(
            completed, settings
        )
        arguments = decision.arguments or {}
        if (
            decision.route == "edge"
            and decision.tool == question.tool
            and question.missing_argument in arguments
        ):
            units = settings.units if settings else "metric"
            steps = []
            for step in self.device.run(
                completed, decision, units=units, session_id=session_id, turn_id=turn
            ):
                step.answers_act_id = question.act_id
                steps.append(step)
                yield step
            self.memory.save_steps(session_id, steps)  # again, with answers_act_id
            return
        again = RouteDecision(
            "ask",
            question.tool,
            from_struct(question.arguments),
            decision.confidence,
            f"the answer {answer!r} does not give {question.missing_argument!r}",
            question.tool,
            missing=question.missing_argument,
            question=f"Sorry, I didn't get that. {question.content.removeprefix(_AGAIN)}",
        )
        yield from self.ask(asked, again, session_id, turn, question.act_id)

    def _answer_as_text(self, question: pb.ReactStep, answer: str) -> RouteDecision | None:
        """The call an answer completes when the argument asked for is free text (a note's
        text, a list's name): the answer itself, whole, beside the arguments known, if the
        tool's schema and rules take it; None otherwise (numbers, times and choices are
        read by the router from the completed request, never taken as said)."""
        from understanding.asking import argument_schema

        spec = self.tools.get(question.tool)
        if spec is None:
            return None
        schema = argument_schema(spec.input_schema, question.missing_argument)
        kinds = schema.get("type")
        if (kinds != "string" and kinds != ["string"]) or {"enum", "pattern"} & schema.keys():
            return None
        arguments = {**from_struct(question.arguments), question.missing_argument: answer}
        from understanding.arguments import validate_arguments

        problem = (
            validate_arguments(question.tool, arguments) if question.tool in _BUILTIN else None
        )
        if problem is not None:
            return None
        return RouteDecision(
            "edge",
            question.tool,
            arguments,
            1.0,
            f"the answer gives {question.missing_argument!r}",
            question.tool,
        )

    def _final(
        self, session_id: str, turn: int, question: pb.ReactStep, text: str, query: str
    ) -> Iterator[pb.ReactStep]:
        """A turn that ends with one FINAL_ANSWER (a withdrawn request)."""
        final = pb.ReactStep(
            step_type=pb.STEP_TYPE_FINAL_ANSWER,
            content=text,
            model=MODEL_NAME,
            stop_reason=pb.STOP_REASON_FINAL_ANSWER,
            answers_act_id=question.act_id,
        )
        Stamper(session_id, question.trace_id)(final, local=True)
        final.turn_id = turn
        save_finished(
            self.memory, session_id, [final], query=query, final_answer=text, success=True
        )
        yield final
