"""Tools a device declares (``ReasonRequest.declared_tools``), checked before a session uses
them, and the calls it proposes (``ReasonRequest.proposed_calls``), bounded.

A car, a TV or a kiosk brings tools the cloud has never heard of. The cloud plans with them
for that session only, and the device runs them (a Converse ``device_action``), so what the
cloud must guard is its own: its tools' names (a declared tool never shadows one, even
spelt without its underscores), its memory and time (every part bounded), and the schemas
it checks calls and observations against (valid draft 2020-12 object schemas, nothing
fetched from elsewhere). Anything else is refused whole with INVALID_ARGUMENT, the message
naming the tool and the rule: a device learns at once what to fix, and no session runs on
half a declaration.

    >>> check_name("water_plants")
    >>> try:
    ...     check_name("get_weather")
    ... except InvalidRequestError as exc:
    ...     print(exc)
    declared tool 'get_weather': the name is one of the cloud's own tools (reserved)
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cloud_agent.errors import InvalidRequestError
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import AgentLoop, ToolSpec
from react_kernel.declarations import (
    MAX_DECLARATION_BYTES,
    MAX_DESCRIPTION_CHARS,
    MAX_EXAMPLE_CHARS,
    MAX_EXAMPLES,
    MAX_SCHEMA_BYTES,
    MAX_TOOLS,
    NAME_PATTERN,
    spec_of,
)
from react_kernel.steps import from_struct

__all__ = [
    "DECLARED_KEY",
    "MAX_DECLARATION_BYTES",
    "MAX_DESCRIPTION_CHARS",
    "MAX_EXAMPLES",
    "MAX_EXAMPLE_CHARS",
    "MAX_PROPOSALS",
    "MAX_SCHEMA_BYTES",
    "MAX_TOOLS",
    "NAME_PATTERN",
    "PROPOSED_KEY",
    "DeclaredLoops",
    "Proposal",
    "check_declarations",
    "check_name",
    "check_proposals",
    "declared_names",
    "proposals_of",
    "reserved_names",
    "session_metadata",
    "tool_schema",
    "with_declared",
]

MAX_PROPOSALS = 32
MAX_SPAN_CHARS = 4096
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

DECLARED_KEY = "declared_tools"
"""Session metadata: the names of the session's declared tools, comma-separated."""
PROPOSED_KEY = "proposed_calls"
"""Session metadata: the device's proposed calls, as JSON (:func:`proposals_of` reads it)."""


def reserved_names() -> frozenset[str]:
    """The names of every tool the cloud knows (its own and the built-in device tools)."""
    from understanding.tools import TOOL_NAMES
    from understanding.tools.catalogue import CLOUD_TOOLS, DEVICE_TOOLS

    return frozenset(TOOL_NAMES) | frozenset(CLOUD_TOOLS) | frozenset(DEVICE_TOOLS)


def _refuse(name: str, rule: str) -> InvalidRequestError:
    return InvalidRequestError(f"declared tool {name!r}: {rule}")


def check_name(name: str) -> None:
    """Refuse a name outside ``[a-z][a-z0-9_]{0,63}`` or one of the cloud's tools' (also
    without underscores: ``getweather`` would be matched to ``get_weather``)."""
    if not NAME_PATTERN.fullmatch(name):
        shown = name if len(name) <= 80 else name[:80] + "..."
        raise _refuse(
            shown, "a name is 1-64 lowercase letters, digits or underscores, starting with a letter"
        )
    squashed = name.replace("_", "")
    if any(squashed == known.replace("_", "") for known in reserved_names()):
        raise _refuse(name, "the name is one of the cloud's own tools (reserved)")


def _foreign_ref(schema: Any) -> str | None:
    """The first ``$ref``/``$dynamicRef`` that points outside the schema itself, if any."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str) and value[:1] != "#":
                return value
            found = _foreign_ref(value)
            if found is not None:
                return found
    elif isinstance(schema, list):
        for item in schema:
            found = _foreign_ref(item)
            if found is not None:
                return found
    return None


# A quantified group holding a quantifier ("(a+)+", "(x*y)*"): the shape of the regular
# expressions that take exponential time on a near miss. The cloud checks a declared
# schema's patterns on its own threads, so it refuses them (a heuristic, with a length
# bound beside it; overlapping alternations are not caught).
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]")
MAX_PATTERN_CHARS = 256


def _risky_pattern(schema: Any) -> str | None:
    """The first ``pattern`` (or ``patternProperties`` key) that is too long or nests
    quantifiers, if any."""
    if isinstance(schema, list):
        return next((p for item in schema if (p := _risky_pattern(item)) is not None), None)
    if not isinstance(schema, dict):
        return None
    patterns = [schema["pattern"]] if isinstance(schema.get("pattern"), str) else []
    if isinstance(schema.get("patternProperties"), dict):
        patterns += list(schema["patternProperties"])
    for pattern in patterns:
        if len(pattern) > MAX_PATTERN_CHARS or _NESTED_QUANTIFIER.search(pattern):
            return str(pattern)
    return next((p for v in schema.values() if (p := _risky_pattern(v)) is not None), None)


def _check_schema(name: str, field: str, struct: Any) -> dict[str, Any]:
    """A declared schema as a dict: at most 8 KiB serialized, a valid draft 2020-12 schema
    of an object, referring to nothing outside itself."""
    size = struct.ByteSize()
    if size > MAX_SCHEMA_BYTES:
        raise _refuse(name, f"{field} is {size} bytes serialized; at most {MAX_SCHEMA_BYTES}")
    schema = from_struct(struct)
    if schema.get("type") != "object":
        raise _refuse(name, f'{field} must be an object schema ("type": "object")')
    declared_draft = schema.get("$schema")
    if declared_draft is not None and declared_draft != DRAFT_2020_12:
        raise _refuse(name, f"{field} must be draft 2020-12 ($schema {DRAFT_2020_12})")
    foreign = _foreign_ref(schema)
    if foreign is not None:
        raise _refuse(name, f"{field} refers outside itself ({foreign!r}); only '#...' refs")
    risky = _risky_pattern(schema)
    if risky is not None:
        raise _refuse(
            name,
            f"{field} has a pattern over {MAX_PATTERN_CHARS} characters or with nested "
            f"quantifiers ({risky[:40]!r})",
        )
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise _refuse(name, f"{field} is no valid draft 2020-12 schema: {exc.message}") from None
    return schema


@functools.lru_cache(maxsize=128)
def _checked(data: bytes) -> ToolSpec:
    """One serialized declaration checked (cached: a device sends the same ones again)."""
    return _check_one(pb.ToolDeclaration.FromString(data))


def _check_one(declaration: pb.ToolDeclaration) -> ToolSpec:
    name = declaration.name
    check_name(name)
    if len(declaration.description) > MAX_DESCRIPTION_CHARS:
        raise _refuse(
            name,
            f"the description has {len(declaration.description)} characters; "
            f"at most {MAX_DESCRIPTION_CHARS}",
        )
    if len(declaration.examples) > MAX_EXAMPLES:
        raise _refuse(name, f"{len(declaration.examples)} examples; at most {MAX_EXAMPLES}")
    for example in declaration.examples:
        if not example.strip() or len(example) > MAX_EXAMPLE_CHARS:
            raise _refuse(name, f"an example must have 1-{MAX_EXAMPLE_CHARS} characters")
    _check_schema(name, "input_schema", declaration.input_schema)
    if declaration.HasField("observation_schema") and declaration.observation_schema.fields:
        _check_schema(name, "observation_schema", declaration.observation_schema)
    return spec_of(declaration)


def check_declarations(declarations: Sequence[pb.ToolDeclaration]) -> list[ToolSpec]:
    """The declared tools as specs the device runs; raise InvalidRequestError naming the
    tool and the rule for anything over the bounds, malformed or reserved."""
    if len(declarations) > MAX_TOOLS:
        raise InvalidRequestError(
            f"declared_tools: {len(declarations)} tools declared; at most {MAX_TOOLS}"
        )
    total = sum(d.ByteSize() for d in declarations)
    if total > MAX_DECLARATION_BYTES:
        raise InvalidRequestError(
            f"declared_tools: {total} bytes serialized; at most {MAX_DECLARATION_BYTES}"
        )
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    for declaration in declarations:
        spec = _checked(declaration.SerializeToString(deterministic=True))
        if spec.name in seen:
            raise _refuse(spec.name, "declared twice")
        seen.add(spec.name)
        specs.append(spec)
    return specs


@dataclass(frozen=True)
class Proposal:
    """One call the device's model read from the query (``ProposedCall``)."""

    tool: str
    arguments: dict[str, Any]
    span: str
    confidence: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "span": self.span,
            "confidence": self.confidence,
        }


def check_proposals(calls: Sequence[pb.ProposedCall]) -> list[Proposal]:
    """The device's proposed calls, bounded (at most 32, each tool name and span bounded,
    arguments at most 8 KiB): over the bounds is INVALID_ARGUMENT. Whether a call is used
    is the planner's to decide (``cloud_agent.planner.declared``): one whose span is not
    in the query or whose arguments fail is ignored, never run."""
    if len(calls) > MAX_PROPOSALS:
        raise InvalidRequestError(f"proposed_calls: {len(calls)} calls; at most {MAX_PROPOSALS}")
    proposals = []
    for index, call in enumerate(calls):
        where = f"proposed_calls[{index}]"
        if len(call.tool) > 64 or len(call.span) > MAX_SPAN_CHARS:
            raise InvalidRequestError(
                f"{where}: a tool name of at most 64 characters and a span of at most "
                f"{MAX_SPAN_CHARS}"
            )
        if call.arguments.ByteSize() > MAX_SCHEMA_BYTES:
            raise InvalidRequestError(f"{where}: arguments over {MAX_SCHEMA_BYTES} bytes")
        if not 0.0 <= call.confidence <= 1.0:
            raise InvalidRequestError(f"{where}: confidence must be within 0-1")
        proposals.append(
            Proposal(call.tool, from_struct(call.arguments), call.span, call.confidence)
        )
    return proposals


def declared_names(metadata: dict[str, str]) -> frozenset[str]:
    """The session's declared tools' names (from its metadata)."""
    return frozenset(n for n in metadata.get(DECLARED_KEY, "").split(",") if n)


def proposals_of(metadata: dict[str, str]) -> list[Proposal]:
    """The session's proposed calls (from its metadata; none when it has none)."""
    text = metadata.get(PROPOSED_KEY)
    if not text:
        return []
    return [Proposal(**item) for item in json.loads(text)]


def session_metadata(specs: Iterable[ToolSpec], proposals: Iterable[Proposal]) -> dict[str, str]:
    """What a session keeps of its declared tools and proposed calls, for its reasoner."""
    metadata: dict[str, str] = {}
    names = [spec.name for spec in specs]
    if names:
        metadata[DECLARED_KEY] = ",".join(names)
    items = [p.to_dict() for p in proposals]
    if items:
        metadata[PROPOSED_KEY] = json.dumps(items, sort_keys=True, default=str)
    return metadata


def tool_schema(spec: ToolSpec, *, declared: bool = False) -> pb.ToolSchema:
    """What ListTools says of one tool (``declared``: the device declared it)."""
    schema = pb.ToolSchema(
        name=spec.name,
        description=spec.description,
        executor=pb.ORIGIN_EDGE if spec.executor == "edge" else pb.ORIGIN_CLOUD,
        side_effects=spec.side_effects,
        requires_approval=spec.needs_approval,
        declared=declared,
    )
    schema.input_schema.update(spec.input_schema)
    if spec.output_schema:
        schema.observation_schema.update(spec.output_schema)
    return schema


def with_declared(loop: AgentLoop, specs: Sequence[ToolSpec]) -> AgentLoop:
    """A loop for one session: ``loop``'s reasoner, tools and policies, and the declared
    tools (run by the device). Built per session: a declaration is the session's alone."""
    from react_kernel import ToolRegistry, ToolRegistryError

    try:
        registry = ToolRegistry([*loop.tools, *specs])
    except ToolRegistryError as exc:  # the checks above make this a bug, but never a 500
        raise InvalidRequestError(f"declared_tools: {exc}") from None
    return AgentLoop(
        loop.reasoner,
        registry,
        origin=loop.origin,
        guards=loop.guards,
        safety=loop.safety,
        approval_policy=loop.approval_policy,
    )


class DeclaredLoops:
    """The loops of sessions with declared tools, one per base loop and declaration (the
    same device declares the same tools on every call), the least recently used first out.

    A loop holds only the tools of the exact declaration it was built for, so sharing it
    between sessions declaring the same bytes shows no session another's tools.
    """

    def __init__(self, size: int = 128) -> None:
        self._loops: OrderedDict[tuple[int, str], tuple[AgentLoop, AgentLoop]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def loop(
        self,
        base: AgentLoop,
        declarations: Sequence[pb.ToolDeclaration],
        specs: Sequence[ToolSpec],
    ) -> AgentLoop:
        """``base`` with the declared ``specs`` (checked from ``declarations``)."""
        digest = hashlib.sha256()
        for declaration in declarations:
            data = declaration.SerializeToString(deterministic=True)
            digest.update(len(data).to_bytes(4, "big") + data)
        key = (id(base), digest.hexdigest())
        with self._lock:
            found = self._loops.get(key)
            if found is not None and found[0] is base:  # the base itself, not a namesake id
                self._loops.move_to_end(key)
                return found[1]
        loop = with_declared(base, specs)
        with self._lock:
            self._loops[key] = (base, loop)
            if len(self._loops) > self._size:
                self._loops.popitem(last=False)
        return loop
