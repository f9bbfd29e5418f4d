"""The planner backend: a deterministic, offline Reasoner for compound queries.

Each call to :meth:`PlannerReasoner.next_steps` rebuilds the plan from the query (plans are
cached) and looks at the turn's history to see how far it got: the next planned ACTION, or
the FINAL_ANSWER composed from the observations. Being stateless between calls, it can take
over a session that another backend started (fallback) or a resumed one.

Example:
    >>> from cloud_agent.tools import cloud_registry
    >>> from react_kernel import ReasoningContext
    >>> steps = PlannerReasoner().next_steps(ReasoningContext(
    ...     query="weather in Paris and Berlin", history=[], tools=cloud_registry(),
    ...     session_id="s"))
    >>> [pb.StepType.Name(s.step_type) for s in steps]
    ['STEP_TYPE_THOUGHT', 'STEP_TYPE_ACTION']
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner.answer import compose_answer, describe_call
from cloud_agent.planner.calls import PREV, Plan, PlannedCall
from cloud_agent.planner.declared import DeclaredPlanner
from cloud_agent.planner.plan import make_plan
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct, to_struct
from understanding.tools.catalogue import DEVICE_TOOLS

REFUSAL_KEY = "refusal"
HOME_CITY_KEY = "home_city"  # session metadata: the device's home city (cloud_agent.handler)
PLAN_CACHE_SIZE = 4096
MAX_ERRORS = 3


class PlannerReasoner:
    """Plans compound queries into tool calls; declines what needs an LLM."""

    name = "planner"
    blocking = False  # pure computation: the server runs its steps inline

    def __init__(
        self,
        extractor: it.Extractor | None = None,
        on_route: Callable[[str, str], None] | None = None,
        router: Any = None,
        *,
        split_with_model: bool = True,
        home: Any = None,
    ) -> None:
        self._extractor = extractor
        self._router = router
        # With a joint router, its parse of the query gives the clauses (see
        # ``cloud_agent.planner.model_split``); False keeps the clause rules.
        self._split_with_model = split_with_model
        self._home = home
        self._on_route = on_route
        self._plans: OrderedDict[tuple[str, str | None], Plan] = OrderedDict()
        self._declared = DeclaredPlanner()

    def plan(self, query: str, home_city: str | None = None) -> Plan:
        """The plan for ``query`` (cached), for a device at home in ``home_city`` when
        given (else the ``home`` the planner was built with)."""
        key = (query, home_city)
        found = self._plans.get(key)
        if found is not None:
            self._plans.move_to_end(key)
            return found
        home = self._home
        if home_city:
            from understanding.settings import Settings

            home = Settings(home_city=home_city)
        plan = make_plan(
            query,
            self._extractor,
            self._router,
            home=home,
            split_with_model=self._split_with_model,
        )
        if self._on_route is not None:
            if plan.refusal:
                self._on_route("refuse", "")
            for call in plan.calls:
                self._on_route("edge" if call.tool in DEVICE_TOOLS else "cloud", call.tool)
        self._plans[key] = plan
        if len(self._plans) > PLAN_CACHE_SIZE:
            self._plans.popitem(last=False)
        return plan

    def next_steps(self, ctx: Any) -> list[pb.ReactStep]:
        """The next steps for the context's query given the turn's history."""
        home_city = ctx.metadata.get(HOME_CITY_KEY) or None
        # The session's declared tools (cloud_agent.planner.declared), else the usual plan.
        plan = self._declared.plan(ctx, lambda text: self.plan(text, home_city))
        plan = plan or self.plan(ctx.query, home_city)
        if plan.refusal:
            return [_final(plan.refusal, refusal=plan.refusal_kind or "needs_llm")]
        missing = sorted({c.tool for c in plan.calls if ctx.tools.get(c.tool) is None})
        if missing:
            return [
                _final(
                    f"This needs the device to run {', '.join(missing)}; ask it through the "
                    "device (the Converse call), which runs device tools locally.",
                    refusal="needs_device",
                )
            ]
        done, errors = _progress(ctx)
        if errors >= MAX_ERRORS:
            return [_final(compose_answer(plan, done, gave_up=True))]
        if len(done) < len(plan.calls):
            index = len(done)
            call = _resolve(plan.calls[index], done)
            thought = pb.ReactStep(
                step_type=pb.STEP_TYPE_THOUGHT,
                content=f"Step {index + 1} of {len(plan.calls)}: {describe_call(call)}.",
                model=self.name,
            )
            action = pb.ReactStep(
                step_type=pb.STEP_TYPE_ACTION,
                tool=call.tool,
                arguments=to_struct(call.args),
                model=self.name,
            )
            return [thought, action]
        return [_final(compose_answer(plan, done))]


def load_edge_router(model_dir: str | None = None) -> Any:
    """The edge's router (the shipped one, or the one in ``model_dir``): a joint model's
    parse splits compound queries, an intent model places the clauses no cue word places.
    None when the shipped router is not built.

    Raises:
        ValueError: ``model_dir`` holds no router (a configuration error).
    """
    from understanding.errors import ModelFilesError
    from understanding.router import Router  # loads onnxruntime: only when asked

    try:
        return Router.load(model_dir)
    except ModelFilesError as exc:
        if model_dir is not None:
            raise ValueError(str(exc)) from exc
        return None


def _final(text: str, refusal: str | None = None) -> pb.ReactStep:
    step = pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content=text, model="planner")
    if refusal:
        step.metadata[REFUSAL_KEY] = refusal
    return step


def _progress(ctx: Any) -> tuple[list[tuple[pb.ReactStep, pb.ReactStep | None]], int]:
    """The turn's (ACTION, OBSERVATION) pairs in order, and the count of ERROR steps."""
    actions: list[pb.ReactStep] = []
    observations: dict[str, pb.ReactStep] = {}
    errors = 0
    for step in ctx.history:
        if step.turn_id != ctx.turn_id:
            continue
        if step.step_type == pb.STEP_TYPE_ACTION:
            actions.append(step)
        elif step.step_type == pb.STEP_TYPE_OBSERVATION:
            observations[step.act_id] = step
        elif step.step_type == pb.STEP_TYPE_ERROR:
            errors += 1
    return [(a, observations.get(a.act_id)) for a in actions], errors


def observation_values(step: pb.ReactStep | None) -> dict[str, Any]:
    """An observation's structured output as a dict (empty when none)."""
    if step is None:
        return {}
    if step.HasField("observation"):
        return from_struct(step.observation)
    return {}


def _resolve(
    call: PlannedCall, done: list[tuple[pb.ReactStep, pb.ReactStep | None]]
) -> PlannedCall:
    """Fill ``{prev}`` with the value of the previous observation."""
    if call.args.get("value") == PREV:
        value = _previous_value(done)
        return PlannedCall(call.tool, {**call.args, "value": round(value, 6)})
    seconds = call.args.get("seconds")
    if isinstance(seconds, str) and seconds.startswith(PREV):
        factor = float(seconds.removeprefix(PREV).lstrip("*") or 1)
        return PlannedCall(call.tool, {"seconds": round(_previous_value(done) * factor)})
    expression = call.args.get("expression")
    if not isinstance(expression, str) or PREV not in expression:
        return call
    return PlannedCall(
        call.tool, {"expression": expression.replace(PREV, f"{_previous_value(done):g}")}
    )


def _previous_value(done: list[tuple[pb.ReactStep, pb.ReactStep | None]]) -> float:
    previous = observation_values(done[-1][1]) if done else {}
    value = previous.get("value", previous.get("temperature"))
    if not isinstance(value, int | float):
        numbers = re.findall(
            r"-?\d+(?:\.\d+)?", done[-1][1].content if done and done[-1][1] else ""
        )
        value = float(numbers[-1]) if numbers else 0
    return float(value)
