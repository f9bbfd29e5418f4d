"""HTML rendering: Jinja2 templates (autoescaped) and the filters that show steps.

The cloud's page adds its own template folder and reuses these filters and partials
(steps, sessions, receipts), so a session looks the same on both sides.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from google.protobuf.json_format import MessageToDict
from jinja2 import ChoiceLoader, Environment, PackageLoader, select_autoescape

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import STEP_KINDS

#: Route metadata shown first, in this order; any other key of the THOUGHT follows.
ROUTE_KEYS = ("route", "intent", "intents", "confidence", "tool", "slots", "calls", "reason")


def step_kind(step: pb.ReactStep) -> str:
    """thought, action, observation, answer, error or approval."""
    return STEP_KINDS.get(step.step_type, "step")


def origin_name(value: int) -> str:
    """edge or cloud ("" when unset)."""
    names: dict[int, str] = {pb.ORIGIN_EDGE: "edge", pb.ORIGIN_CLOUD: "cloud"}
    return names.get(value, "")


def status_name(step: pb.ReactStep) -> str:
    """An observation's status (ok, error, rejected...), "" for other steps."""
    if step.step_type != pb.STEP_TYPE_OBSERVATION:
        return ""
    name: str = pb.ObservationStatus.Name(step.status)
    return name.removeprefix("OBSERVATION_STATUS_").lower()


def compact_json(value: Any) -> str:
    """A struct, dict or value as one line of JSON ("" when empty)."""
    if hasattr(value, "DESCRIPTOR"):
        value = MessageToDict(value)
    if value in (None, {}, [], ""):
        return ""
    if isinstance(value, str):  # JSON text keeps its own order (intents by score)
        try:
            return json.dumps(json.loads(value), ensure_ascii=False)
        except ValueError:
            return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def device_action(step: pb.ReactStep) -> bool:
    """True for an ACTION the cloud asked the device to run."""
    return (
        step.step_type == pb.STEP_TYPE_ACTION
        and step.origin == pb.ORIGIN_CLOUD
        and step.executor == pb.ORIGIN_EDGE
    )


def route_items(metadata: dict[str, str]) -> list[tuple[str, str]]:
    """The route decision's fields, the known ones first."""
    known = [(k, metadata[k]) for k in ROUTE_KEYS if metadata.get(k)]
    rest = sorted((k, v) for k, v in metadata.items() if k not in ROUTE_KEYS and v)
    return known + rest


def clock(epoch_s: float | None) -> str:
    """A local wall-clock time (HH:MM:SS), or "never"."""
    if epoch_s is None:
        return "never"
    return time.strftime("%H:%M:%S", time.localtime(epoch_s))


def short_time(value: Any) -> str:
    """An ISO-8601 time as it is read at a glance."""
    if not isinstance(value, str) or "T" not in value:
        return "" if value is None else str(value)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def cell(value: Any) -> str:
    """A memory cell: objects and JSON text as one line of JSON, times shortened."""
    if isinstance(value, dict | list):
        return compact_json(value)
    if isinstance(value, str) and value[:1] in "{[":
        return compact_json(value)
    if isinstance(value, str) and len(value) >= 19 and value[4:5] == "-" and "T" in value:
        return short_time(value)
    return "" if value is None else str(value)


def make_environment(*packages: str) -> Environment:
    """The templates of ``packages`` (searched first) and of this package, with the filters."""
    loaders = [PackageLoader(name, "templates") for name in (*packages, "webui")]
    env = Environment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        kind=step_kind,
        origin=origin_name,
        status=status_name,
        json=compact_json,
        clock=clock,
        when=short_time,
        cell=cell,
        short=lambda text, n=8: str(text)[:n],
    )
    env.globals.update(device_action=device_action, route_items=route_items)
    return env
