"""Tool specs and the registry: names, schemas (compiled once), tolerant name matching."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from react_kernel.errors import ToolRegistryError
from react_kernel.schema_check import FastCheck, compile_fast_check, surely_valid_schema

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = ["ToolRegistry", "ToolSpec", "edit_distance", "normalize_tool_name"]

ToolFunc = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(slots=True)
class ToolSpec:
    """What the kernel knows about one tool.

    A tool raises :class:`~react_kernel.TransientToolError` for a retryable failure and
    any other exception for a permanent one. ``func`` may be None for a tool that the
    other side runs (``executor``): the loop then pauses for ``provide_observation``.

    Example:
        >>> spec = ToolSpec(
        ...     name="calculator",
        ...     description="Evaluate arithmetic.",
        ...     input_schema={"type": "object", "properties": {"expression": {"type": "string"}},
        ...                   "required": ["expression"]},
        ...     func=lambda args: {"value": 4},
        ... )
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] = field(default_factory=dict)
    func: ToolFunc | None = None
    validator: Callable[[dict[str, Any]], str | None] | None = None
    timeout_s: float | None = None
    max_calls: int | None = None
    side_effects: bool = False
    idempotency_key: Callable[[str, dict[str, Any]], str] | None = None
    needs_approval: bool = False
    executor: Literal["edge", "cloud"] = "edge"
    confidence: float = 1.0
    #: A few requests the tool answers, as a person would say them: declared to the cloud
    #: with the tool (``react_kernel.declarations``), where a planner matches by meaning.
    examples: tuple[str, ...] = ()


@functools.lru_cache(maxsize=4096)
def normalize_tool_name(name: str) -> str:
    """Lower-case, strip quotes/backticks and call syntax, map separators to ``_``.

    >>> normalize_tool_name(" `Get Weather`() ")
    'get_weather'
    """
    text = name.strip().strip("`'\"*").strip()
    text = re.sub(r"^(?:functions|tools?)[.:/]", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\(\s*\)$", "", text)
    text = re.sub(r"[\s\-.]+", "_", text.lower())
    text = re.sub(r"[^a-z0-9_]", "", text)
    return text.strip("_")


def edit_distance(a: str, b: str, limit: int | None = None) -> int:
    """Levenshtein distance (with adjacent transpositions counted as one edit).

    With ``limit``, returns ``limit + 1`` as soon as the distance is known to exceed it.
    """
    if a == b:
        return 0
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if limit is not None and min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1] if limit is None else min(prev[-1], limit + 1)


def _cutoff(name: str) -> int:
    """How many edits a name of this length may have: 0 below 4 chars, then 1 per 4."""
    return 0 if len(name) < 4 else min(3, max(1, len(name) // 4))


@dataclass(slots=True)
class _Entry:
    spec: ToolSpec
    # One-sided fast checks (True: surely valid); None: always use the validator.
    input_check: FastCheck | None = None
    output_check: FastCheck | None = None
    # jsonschema's validators, built the first time a fast check is not sure (importing
    # jsonschema costs a cold command 60 ms that a valid tool call never needs).
    _validators: tuple[Draft202012Validator, Draft202012Validator | None] | None = None

    def validators(self) -> tuple[Draft202012Validator, Draft202012Validator | None]:
        if self._validators is None:
            from jsonschema import Draft202012Validator

            output = self.spec.output_schema
            self._validators = (
                Draft202012Validator(self.spec.input_schema),
                Draft202012Validator(output) if output else None,
            )
        return self._validators


def _check_schemas(spec: ToolSpec) -> None:
    """Raise ToolRegistryError unless the spec's schemas are valid Draft 2020-12 schemas.

    Schemas of the usual subset are checked without ``jsonschema`` (one-sided: anything
    the pre-check is not sure of goes to ``check_schema``, which gives the verdict).
    """
    schemas = [spec.input_schema] + ([spec.output_schema] if spec.output_schema else [])
    if all(surely_valid_schema(schema) for schema in schemas):
        return
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        for schema in schemas:
            Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ToolRegistryError(f"tool {spec.name!r}: invalid schema: {exc.message}") from None


class ToolRegistry:
    """The tools one side can offer the reasoner.

    Input and output schemas are checked and compiled once, when a tool is registered;
    jsonschema's validators are built the first time a fast check is not sure.

    Example:
        >>> registry = ToolRegistry([spec])  # doctest: +SKIP
        >>> registry.match("Calculater")  # doctest: +SKIP
        'calculator'
    """

    def __init__(self, specs: list[ToolSpec] | None = None) -> None:
        self._entries: dict[str, _Entry] = {}
        self._by_norm: dict[str, str] = {}
        self._by_squashed: dict[str, str] = {}
        self._match_cache: dict[str, str | None] = {}
        for spec in specs or []:
            self.register(spec)

    def register(self, spec: ToolSpec) -> None:
        """Add a tool; raise :class:`ToolRegistryError` on a duplicate or invalid schema."""
        norm = normalize_tool_name(spec.name)
        if not norm:
            raise ToolRegistryError(f"invalid tool name {spec.name!r}")
        if spec.name in self._entries or norm in self._by_norm:
            raise ToolRegistryError(f"tool {spec.name!r} is already registered")
        _check_schemas(spec)
        self._entries[spec.name] = _Entry(
            spec,
            compile_fast_check(spec.input_schema),
            compile_fast_check(spec.output_schema) if spec.output_schema else None,
        )
        self._by_norm[norm] = spec.name
        self._by_squashed[norm.replace("_", "")] = spec.name
        self._match_cache.clear()

    def get(self, name: str) -> ToolSpec | None:
        """The spec registered under exactly ``name``, or None."""
        entry = self._entries.get(name)
        return entry.spec if entry is not None else None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[ToolSpec]:
        return (entry.spec for entry in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        """Registered tool names, in registration order."""
        return list(self._entries)

    def input_validator(self, name: str) -> Draft202012Validator:
        """The compiled input-schema validator of a registered tool."""
        return self._entries[name].validators()[0]

    def output_validator(self, name: str) -> Draft202012Validator | None:
        """The compiled observation-schema validator of a registered tool, if it has one."""
        return self._entries[name].validators()[1]

    def input_errors(self, name: str, args: Any) -> list[Any]:
        """The input-schema errors of ``args`` (jsonschema's, in its order); [] when valid.

        Instances the compiled fast check surely accepts skip ``jsonschema`` entirely.
        """
        entry = self._entries[name]
        check = entry.input_check
        if check is not None and check(args):
            return []
        return list(entry.validators()[0].iter_errors(args))

    def output_errors(self, name: str, output: Any) -> list[Any]:
        """The observation-schema errors of ``output``; [] when valid or without a schema."""
        entry = self._entries[name]
        if not entry.spec.output_schema:
            return []
        check = entry.output_check
        if check is not None and check(output):
            return []
        validator = entry.validators()[1]
        assert validator is not None  # the spec has an output schema
        return list(validator.iter_errors(output))

    def match(self, name: str) -> str | None:
        """The registered tool that ``name`` means, tolerating case, spaces, underscores
        and small typos; None when nothing is close enough or two tools are equally close.

        Edits allowed grow with the name's length (1 per 4 characters, at most 3); the best
        candidate must beat the runner-up by at least 2 edits, so it never guesses.
        """
        if name in self._entries:
            return name
        cached = self._match_cache.get(name, "")
        if cached != "":
            return cached
        result = self._match(name)
        if len(self._match_cache) < 4096:
            self._match_cache[name] = result
        return result

    def match_kind(self, name: str) -> tuple[str | None, str]:
        """Like :meth:`match`, also saying how: ``exact``, ``normalized``, ``fuzzy``, ``none``."""
        if name in self._entries:
            return name, "exact"
        norm = normalize_tool_name(name)
        if norm in self._by_norm:
            return self._by_norm[norm], "normalized"
        squashed = norm.replace("_", "")
        if squashed in self._by_squashed:
            return self._by_squashed[squashed], "normalized"
        found = self.match(name)
        return found, ("fuzzy" if found else "none")

    def _match(self, name: str) -> str | None:
        norm = normalize_tool_name(name)
        if not norm:
            return None
        if norm in self._by_norm:
            return self._by_norm[norm]
        squashed = norm.replace("_", "")
        if squashed in self._by_squashed:
            return self._by_squashed[squashed]
        # Candidates: tools within their own cut-off. The best must beat every other
        # candidate by two edits; a tie or a near tie is a guess, and we never guess.
        scored: list[tuple[int, str]] = []
        for cand_squashed, real in self._by_squashed.items():
            limit = _cutoff(cand_squashed)
            if limit == 0:
                continue
            dist = edit_distance(squashed, cand_squashed, limit)
            if dist <= limit:
                scored.append((dist, real))
        if not scored:
            return None
        scored.sort()
        best_dist, best = scored[0]
        if len(scored) > 1 and scored[1][0] < best_dist + 2:
            return None
        return best

    def schemas(self) -> list[dict[str, Any]]:
        """Tool descriptions for an LLM prompt: ``{"name", "description", "input_schema"}``."""
        return [
            {
                "name": e.spec.name,
                "description": e.spec.description,
                "input_schema": e.spec.input_schema,
            }
            for e in self._entries.values()
        ]
