"""Planning with the tools a device declares (``cloud_agent.declared_tools``).

The planner knows its own tools by their words; a declared tool it knows only by what the
device says of it. So a part of the query goes to a declared tool in one of two ways:

1. **The device's proposed call** (``ProposedCall``): its span must be words of the query
   holding one request (a span over two would leave the other unplanned), its arguments
   must fit the declared input schema, and a tool with side effects must
   have every argument in the span's own words (the plan check's rule: nothing is done
   that the person did not say). A proposal that fails any of these is ignored, never run.
2. **By meaning**, when no proposal covers a clause: the clause is compared with the
   tool's example requests by the device's sentence encoder (``understanding.encoder``);
   above :data:`SIMILARITY_FLOOR`, clear of the other declared tools by :data:`MARGIN`,
   and not a clause the planner's own readers give one of its tools (then which one is
   meant is a guess, and the query is declined), the clause is the tool's. Its arguments
   are read from the clause by the schema's readers (``understanding.arguments.schema``);
   one free-text argument (a string no reader serves, "plant") takes the clause's words
   that are none of the examples' words, when they are one run. Anything else unfilled
   declines the query naming the argument: a wrong action is worse than asking.

The rest of the query is planned as always, and the two are put back in the order of the
words; the whole plan then passes the plan check or nothing of it runs. The device's
proposals of the cloud's own tools (a Python device sends its router's reading of each
clause) are planned as proposed when, with the declared tools' parts, they cover every
request of the query, each in the query's words, fitting its schema and passing the plan
check: the cloud need not read the query again. Otherwise the cloud reads those words
itself, as a clause read alone may lack what another lends it ("weather in Paris and
Berlin": "Berlin" alone is no request).

    >>> grounded({"plant": "fern", "ml": 200}, "water the fern with 200 ml")
    True
    >>> grounded({"plant": "basil", "ml": 200}, "water the fern with 200 ml")
    False
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cloud_agent.declared_tools import Proposal, declared_names, proposals_of
from cloud_agent.planner import interpret as it
from cloud_agent.planner import plan_check
from cloud_agent.planner.calls import Plan, PlannedCall
from cloud_agent.planner.clauses import is_chatter, normalise, split_clauses
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolSpec
from react_kernel.steps import from_struct

log = logging.getLogger(__name__)

__all__ = [
    "MARGIN",
    "SIMILARITY_FLOOR",
    "DeclaredPlanner",
    "fill_declared",
    "grounded",
    "guard_declared",
    "plan_with_declared",
]

SIMILARITY_FLOOR = 0.5
"""The least cosine similarity between a clause and a tool's closest example for the
clause to be the tool's (all-MiniLM-L6-v2: a paraphrase scores 0.55-0.8, another request
0.1-0.4)."""
MARGIN = 0.05
"""How far the best declared tool must be ahead of the next one; closer is a guess."""
UNFILLED = "declared_unfilled"
AMBIGUOUS = "declared_ambiguous"
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the my our your his her their its to for with of on in at into onto and please "
        "some me us i it that this these those can could would you kindly just",
    )
)
_WORD = re.compile(r"[\w']+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _numbers(text: str) -> list[float]:
    from understanding.arguments.numbers import find_numbers, tokenize

    return [float(span.value) for span in find_numbers(tokenize(text))]


def grounded(arguments: dict[str, Any], words: str) -> bool:
    """Whether every argument is in ``words``: a string's words all said, a number said."""
    said = set(_words(words))
    numbers = _numbers(words)
    for value in arguments.values():
        if isinstance(value, bool) or value is None:
            return False
        if isinstance(value, int | float):
            if not any(abs(float(value) - n) < 1e-9 for n in numbers):
                return False
        elif isinstance(value, str):
            if not value.strip() or not set(_words(value.replace("_", " "))) <= said:
                return False
        else:
            return False
    return True


@dataclass(frozen=True)
class _Claim:
    """A part of the (normalised) query that goes to a declared tool."""

    start: int
    end: int
    call: PlannedCall


def _overlaps(claim: _Claim, others: Sequence[_Claim]) -> bool:
    return any(c.start < claim.end and claim.start < c.end for c in others)


def _several_requests(span: str) -> bool:
    """Whether the words hold more than one clause that is not small talk: one call read
    from them would leave the others unplanned, silently."""
    return sum(not is_chatter(piece) for piece in split_clauses(span)) > 1


def _proposal_claim(
    proposal: Proposal, spec: ToolSpec, words: str, input_errors: Callable[..., list[Any]]
) -> _Claim | None:
    """The claim of one proposed call; None (ignored) when its span is not in the words or
    its arguments fail the schema or, for a tool with side effects, the words."""
    span = normalise(proposal.span)
    start = words.find(span) if span else -1
    if start < 0:
        log.info("proposed %s ignored: its span is not in the query", proposal.tool)
        return None
    if _several_requests(span):
        log.info("proposed %s ignored: its span holds more than one request", proposal.tool)
        return None
    if input_errors(spec.name, proposal.arguments):
        log.info("proposed %s ignored: its arguments fail the schema", proposal.tool)
        return None
    if spec.side_effects and not grounded(proposal.arguments, span):
        log.info("proposed %s ignored: arguments not in the span's words", proposal.tool)
        return None
    return _Claim(start, start + len(span), PlannedCall(spec.name, dict(proposal.arguments)))


@functools.lru_cache(maxsize=1)
def _encoder() -> Any:
    """The device's sentence encoder (loaded once); None when its files are missing."""
    from understanding.encoder import Encoder
    from understanding.errors import ModelFilesError

    try:
        return Encoder.load()
    except ModelFilesError as exc:
        log.warning("declared tools are matched by proposals only: %s", exc)
        return None


def _closest(clause: str, specs: Sequence[ToolSpec]) -> tuple[ToolSpec | None, float]:
    """The declared tool whose examples the clause is closest to, if clearly so."""
    with_examples = [s for s in specs if s.examples]
    encoder = _encoder() if with_examples else None
    if encoder is None:
        return None, 0.0
    vector = encoder.embed(clause)
    scores = sorted(
        ((max(float(encoder.embed(e) @ vector) for e in s.examples), s) for s in with_examples),
        key=lambda pair: -pair[0],
    )
    best, spec = scores[0]
    if best < SIMILARITY_FLOOR:
        return None, best
    if len(scores) > 1 and scores[1][0] > best - MARGIN:
        return None, best
    return spec, best


def _residue(clause: str, spec: ToolSpec) -> str | None:
    """The clause's words that are none of the examples' (nor the tool name's, nor small
    words or numbers), when they are one run of at most four words; else None."""
    known = set(_STOP) | set(_words(spec.name.replace("_", " ")))
    for example in spec.examples:
        known |= set(_words(example))
    tokens = _words(clause)
    kept = [i for i, t in enumerate(tokens) if t not in known and not re.fullmatch(r"[\d.,]+", t)]
    if not kept or len(kept) > 4 or kept[-1] - kept[0] != len(kept) - 1:
        return None
    return " ".join(tokens[i] for i in kept)


def fill_declared(spec: ToolSpec, clause: str) -> tuple[dict[str, Any] | None, str]:
    """The arguments of ``spec`` read from ``clause``, or None with what is missing."""
    from understanding.arguments.schema import fill_from_schema, filler_of, types_of, validated

    schema = spec.input_schema
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required = [str(n) for n in schema.get("required") or []]
    free = [
        name
        for name, sub in properties.items()
        if filler_of(name, sub) is None and (not types_of(sub) or "string" in types_of(sub))
    ]
    if len(free) > 1 and set(free) & set(required):
        return None, f"several free-text arguments ({', '.join(free)})"
    reduced = {
        **schema,
        "properties": {n: s for n, s in properties.items() if n not in free},
        "required": [n for n in required if n not in free],
    }
    filled = fill_from_schema(reduced, clause)
    if filled.arguments is None:
        return None, filled.reason
    args = dict(filled.arguments)
    if free:
        value = _residue(clause, spec)
        if value is not None:
            args[free[0]] = value
        elif free[0] in required:
            return None, f"no value for {free[0]!r} in the words"
    checked = validated(args, schema)
    return checked.arguments, checked.reason


def _example_claims(
    words: str, specs: Sequence[ToolSpec], taken: list[_Claim]
) -> tuple[list[_Claim], Plan | None]:
    """Claims by meaning for the clauses no proposal covers; or the plan that declines."""
    claims: list[_Claim] = []
    cursor = 0
    for clause in split_clauses(words):
        start = words.find(clause, cursor)
        if start < 0:
            continue
        end = cursor = start + len(clause)
        if _overlaps(_Claim(start, end, PlannedCall("", {})), taken):
            continue
        spec, score = _closest(clause, specs)
        if spec is None:
            continue
        own = it.read_clause(clause, None).tool
        if own is not None:
            message = (
                f"I can't tell whether {clause!r} is for your {spec.name} or for my {own}: "
                "I won't guess. Could you say it another way?"
            )
            return [], _declined(words, message, AMBIGUOUS)
        args, missing = fill_declared(spec, clause)
        if args is None:
            message = (
                f"I'd use your {spec.name} for {clause!r}, but I can't tell its arguments "
                f"({missing}): I won't guess. Could you say it with them?"
            )
            return [], _declined(words, message, UNFILLED)
        log.info("%r matched %s by its examples (%.2f)", clause, spec.name, score)
        claims.append(_Claim(start, end, PlannedCall(spec.name, args)))
    return claims, None


def _declined(query: str, message: str, kind: str) -> Plan:
    return Plan(query=query, refusal=message, refusal_kind=kind)


_JOINERS = re.compile(
    r"^(?:\s*(?:and|then|also|plus|after\s+that|[;,.]))+|(?:(?:and|then|[;,.])\s*)+$"
)


def _rest(words: str, claims: Sequence[_Claim]) -> str:
    """The words no claim covers, joiners at either end dropped."""
    pieces, cursor = [], 0
    for claim in sorted(claims, key=lambda c: c.start):
        pieces.append(words[cursor : claim.start])
        cursor = max(cursor, claim.end)
    pieces.append(words[cursor:])
    rest = " ; ".join(p.strip() for p in pieces if p.strip())
    return _JOINERS.sub("", rest).strip(" ;,.")


def _known_claim(proposal: Proposal, words: str, tools: Any) -> _Claim | None:
    """The claim of a proposed call of one of the cloud's own tools (in this session's
    registry): its span in the words, its arguments fit, and the plan check passes."""
    spec = tools.get(proposal.tool)
    span = normalise(proposal.span)
    start = words.find(span) if span and spec is not None else -1
    if start < 0 or _several_requests(span) or tools.input_errors(spec.name, proposal.arguments):
        return None
    if not plan_check.check_call(spec.name, proposal.arguments, words).ok:
        return None
    return _Claim(start, start + len(span), PlannedCall(spec.name, dict(proposal.arguments)))


def _claims(
    words: str, specs: Sequence[ToolSpec], proposals: Sequence[Proposal], tools: Any
) -> tuple[list[_Claim], list[_Claim], Plan | None]:
    """The declared tools' claims (proposed, then by meaning), the claims of the proposals
    of the cloud's own tools, or the plan that declines."""
    by_name = {spec.name: spec for spec in specs}
    claims: list[_Claim] = []
    for proposal in proposals:
        spec = by_name.get(proposal.tool)
        claim = _proposal_claim(proposal, spec, words, tools.input_errors) if spec else None
        if claim is not None and not _overlaps(claim, claims):
            claims.append(claim)
    more, declined = _example_claims(words, specs, claims)
    claims = sorted(claims + more, key=lambda c: c.start)
    known: list[_Claim] = []
    for proposal in proposals:
        if proposal.tool in by_name:
            continue
        claim = _known_claim(proposal, words, tools)
        if claim is not None and not _overlaps(claim, claims + known):
            known.append(claim)
    return claims, known, declined


def plan_with_declared(
    query: str,
    specs: Sequence[ToolSpec],
    proposals: Sequence[Proposal],
    tools: Any,
    plan_rest: Callable[[str], Plan],
) -> Plan | None:
    """The plan of ``query`` with the declared ``specs`` and the device's ``proposals``
    (checked against ``tools``, the session's registry); None when no part of it is for a
    declared tool and the proposals do not cover it all (the usual plan then serves).
    ``plan_rest`` plans the other words.

    The proposals of the cloud's own tools are used only when, with the declared tools'
    claims, they cover every request of the query (the device read it all, and the cloud
    need not read it again); otherwise the cloud reads those words itself, as a clause
    read alone may lack what the others lend it ("weather in Paris and Berlin")."""
    words = normalise(query)
    claims, known, declined = _claims(words, specs, proposals, tools)
    if declined is not None:
        declined.query = query
        return declined
    rest = _rest(words, claims)
    covered = _rest(words, claims + known)
    if known and (not covered or is_chatter(covered)):
        claims, rest = sorted(claims + known, key=lambda c: c.start), ""
    if not claims:
        return None
    plan = Plan(query=query)
    later: list[PlannedCall] = []
    if rest and not is_chatter(rest):
        rest_plan = plan_rest(rest)
        if rest_plan.refusal:
            return _declined(query, rest_plan.refusal, rest_plan.refusal_kind or "needs_llm")
        plan.compare = rest_plan.compare
        at = words.find(rest.split(" ; ")[0])
        before = [c.call for c in claims if c.start < at]
        later = [c.call for c in claims if c.start >= at]
        plan.calls = before + list(rest_plan.calls)
    else:
        later = [c.call for c in claims]
    plan.calls += later
    verdict = plan_check.check_plan(words, [(c.tool, c.args) for c in plan.calls])
    if not verdict.ok:
        return _declined(query, plan_check.refusal_message(verdict), plan_check.PLAN_CHECK)
    return plan


class DeclaredPlanner:
    """The planner's hook for sessions with declared tools: plans cached per query and
    declaration (a planner's steps ask for the same plan once per step)."""

    def __init__(self, size: int = 1024) -> None:
        self._plans: OrderedDict[str, Plan | None] = OrderedDict()
        self._size = size

    def plan(self, ctx: Any, plan_rest: Callable[[str], Plan]) -> Plan | None:
        """The plan for the context's query with its session's declared tools and proposed
        calls (None: neither serves it, :func:`plan_with_declared`)."""
        names = declared_names(ctx.metadata)
        specs = [spec for name in sorted(names) if (spec := ctx.tools.get(name)) is not None]
        proposals = proposals_of(ctx.metadata)
        if not specs and not proposals:
            return None
        key = json.dumps(
            [
                ctx.query,
                ctx.metadata.get("home_city", ""),
                [p.to_dict() for p in proposals],
                [[s.name, list(s.examples), s.input_schema, s.side_effects] for s in specs],
            ],
            sort_keys=True,
            default=str,
        )
        if key in self._plans:
            self._plans.move_to_end(key)
            return self._plans[key]
        plan = plan_with_declared(ctx.query, specs, proposals, ctx.tools, plan_rest)
        self._plans[key] = plan
        if len(self._plans) > self._size:
            self._plans.popitem(last=False)
        return plan


def guard_declared(ctx: Any, step: pb.ReactStep) -> pb.ReactStep:
    """A language model's ACTION of a declared tool with side effects, checked as the plan
    check checks the cloud's own (every argument in the person's words): an ERROR naming
    why when it is not, which the model sees as the call's result. Any other step as is."""
    spec = ctx.tools.get(step.tool) if step.step_type == pb.STEP_TYPE_ACTION else None
    if spec is None or not spec.side_effects or step.tool not in declared_names(ctx.metadata):
        return step
    if grounded(from_struct(step.arguments), normalise(ctx.query)):
        return step
    refused = pb.ReactStep(
        step_type=pb.STEP_TYPE_ERROR,
        content=(
            f"{step.tool} was not run: its arguments are not all in the person's words. "
            "Use the person's own words for its arguments, or answer without it."
        ),
    )
    refused.metadata["refused_tool"] = step.tool
    return refused
