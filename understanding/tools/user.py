"""Your own device tools, for the intents of a router you trained (``edge-agent train``).

A router trained on your own labelled examples names your intents; a tool whose name is
an intent runs on the device when the router picks that intent. A tool is the kernel's
own :class:`react_kernel.ToolSpec` (name, description, input and observation JSON
Schemas, the function, optional business-rule validator, side-effect and approval flags);
:func:`device_tool` builds one with the device's defaults::

    from understanding.tools.user import device_tool

    def book_table(args):
        return {"booking_id": "b-1", "people": args["people"], "city": args["city"]}

    BOOK_TABLE = device_tool(
        "book_table",
        "Book a restaurant table for a number of people in a city.",
        {
            "type": "object",
            "properties": {
                "people": {"type": "integer", "minimum": 1, "maximum": 20},
                "city": {"type": "string"},
            },
            "required": ["people", "city"],
        },
        book_table,
        output_schema={"type": "object", "required": ["booking_id"]},
        side_effects=True,
    )

    router = Router.load("my-router", tools=[BOOK_TABLE])
    agent = EdgeAgent(memory, router)      # runs book_table for the book_table intent

Arguments are filled from the query by the device's own readers, chosen from each
property's schema (see ``understanding.arguments.schema``); a required argument they cannot
fill sends the query to the cloud, named in the reason, instead of guessing.

On the command line, ``--tools module:attr`` (repeatable) and the ``edgeloop.tools``
entry-point group name such tools: the attribute is a ToolSpec, an iterable of them, or a
function with no arguments that returns either.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from understanding.errors import UserToolError
from understanding.tools import TOOL_NAMES, idempotency_key

if TYPE_CHECKING:
    from react_kernel import ToolSpec

__all__ = [
    "ENTRY_POINT_GROUP",
    "UserToolError",
    "check_tool",
    "device_tool",
    "entry_point_tools",
    "load_tools",
]

ENTRY_POINT_GROUP = "edgeloop.tools"
_RESERVED = frozenset({"oos", "smalltalk"})  # the router's own labels, never a tool's


def device_tool(
    name: str,
    description: str,
    input_schema: dict[str, Any],
    func: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    output_schema: dict[str, Any] | None = None,
    validator: Callable[[dict[str, Any]], str | None] | None = None,
    side_effects: bool = False,
    needs_approval: bool = False,
    timeout_s: float | None = 2.0,
    confidence: float = 0.9,
    examples: Sequence[str] = (),
) -> ToolSpec:
    """A kernel ToolSpec for a tool that runs on the device.

    Args:
        name: the tool's name, which is also the intent the router names for it.
        description: one line for people and model prompts.
        input_schema: JSON Schema (draft 2020-12) of the arguments, an object.
        func: called with the schema-valid arguments; returns the observation (a dict).
        output_schema: JSON Schema the observation must satisfy (default: any object).
        validator: business rules beyond the schema; returns why arguments are wrong.
        side_effects: the tool changes the world; a retried ACTION in the same session
            replays the stored result (idempotency key over tool, session, arguments).
        needs_approval: every call waits for a person's yes (``APPROVAL_REQUEST``).
        timeout_s: the kernel's time limit for one call.
        confidence: the tool's own reliability, recorded with its observations.
        examples: a few requests the tool answers, as a person would say them; declared
            to the cloud with the tool, whose planner matches requests to them by meaning.

    Raises:
        UserToolError: the name or a schema is invalid, or the name is a built-in tool's.
    """
    from react_kernel import ToolSpec

    spec = ToolSpec(
        name=name,
        description=description,
        input_schema=input_schema,
        output_schema=output_schema if output_schema is not None else {"type": "object"},
        func=func,
        validator=validator,
        timeout_s=timeout_s,
        side_effects=side_effects,
        idempotency_key=idempotency_key(name) if side_effects else None,
        needs_approval=needs_approval,
        executor="edge",
        confidence=confidence,
        examples=tuple(examples),
    )
    check_tool(spec)
    return spec


def check_tool(spec: ToolSpec) -> None:
    """Raise :class:`UserToolError` unless ``spec`` can run on the device as a user tool."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    from react_kernel import ToolSpec
    from react_kernel.tools import normalize_tool_name

    if not isinstance(spec, ToolSpec):
        raise UserToolError(f"not a ToolSpec: {spec!r}")
    if not spec.name or normalize_tool_name(spec.name) != spec.name:
        raise UserToolError(
            f"invalid tool name {spec.name!r}: use lower-case letters, digits and '_'"
        )
    if spec.name in TOOL_NAMES or spec.name in _RESERVED:
        raise UserToolError(f"{spec.name!r} is a built-in tool; give yours another name")
    if spec.func is None or spec.executor != "edge":
        raise UserToolError(f"tool {spec.name!r} has no function to run on the device")
    for label, schema in (("input", spec.input_schema), ("output", spec.output_schema)):
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise UserToolError(
                f"tool {spec.name!r}: invalid {label} schema: {exc.message}"
            ) from None
    if spec.input_schema.get("type") != "object":
        raise UserToolError(f"tool {spec.name!r}: the input schema must be an object")


def _as_specs(value: Any, where: str) -> list[ToolSpec]:
    from react_kernel import ToolSpec

    if callable(value) and not isinstance(value, ToolSpec):
        value = value()
    specs = [value] if isinstance(value, ToolSpec) else value
    if isinstance(specs, (str, bytes)) or not isinstance(specs, Iterable):
        raise UserToolError(f"{where} is not a ToolSpec nor an iterable of ToolSpecs")
    found = list(specs)
    for spec in found:
        if not isinstance(spec, ToolSpec):
            raise UserToolError(f"{where} holds {spec!r}, not a ToolSpec")
        check_tool(spec)
    return found


def load_tools(reference: str) -> list[ToolSpec]:
    """The tools named by ``module:attr`` (a ToolSpec, an iterable, or a factory of either).

    Raises:
        UserToolError: the reference is malformed, cannot be imported, or is not tools.
    """
    module_name, sep, attr = reference.partition(":")
    if not sep or not module_name or not attr:
        raise UserToolError(f"--tools takes MODULE:ATTR, not {reference!r}")
    try:
        module = _import(module_name)
    except Exception as exc:  # any import-time failure of the user's module: one line
        raise UserToolError(f"cannot import {module_name!r}: {exc}") from None
    value: Any = module
    for part in attr.split("."):
        if not hasattr(value, part):
            raise UserToolError(f"{module_name!r} has no attribute {attr!r}")
        value = getattr(value, part)
    return _as_specs(value, reference)


def _import(module_name: str) -> Any:
    """The module of a ``--tools`` reference: a file (``path/to/tools.py``), a module on
    the path (the working directory's included), or one of the project's own folders
    (``examples.booking_tools`` of a clone, from whatever folder the command runs in)."""
    if module_name.endswith(".py"):
        from pathlib import Path

        path = Path(module_name).expanduser()
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise ModuleNotFoundError(f"no file {module_name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        from pathlib import Path

        root = Path(__file__).resolve().parents[2]  # the checkout holding edge_agent/
        top = module_name.split(".")[0]
        if exc.name != top or not ((root / top).is_dir() or (root / f"{top}.py").is_file()):
            raise
        sys.path.append(str(root))
        return importlib.import_module(module_name)


def entry_point_tools() -> list[ToolSpec]:
    """The tools of every installed ``edgeloop.tools`` entry point, in name order.

    Raises:
        UserToolError: an entry point cannot be loaded or does not name tools.
    """
    from importlib.metadata import entry_points

    specs: list[ToolSpec] = []
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        where = f"entry point {point.name!r} ({point.value})"
        try:
            value = point.load()
        except Exception as exc:  # a broken plug-in: say which one
            raise UserToolError(f"cannot load {where}: {exc}") from None
        specs.extend(_as_specs(value, where))
    return specs
