"""The cloud's tool registry: which tools the cloud runs itself and which it asks the device for.

Weather, the world clock, the calculator and unit conversion need nothing private, so the
cloud runs them itself with the edge's own implementations; weather asks the configured
forecast provider (``cloud_agent.forecast_provider``: Open-Meteo, or the synthetic one).
Device control, timers and notes touch the user's home and memory: the cloud plans them
and the device runs them (``executor="edge"``: the kernel pauses in
``awaiting_observation`` for the edge's answer).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from cloud_agent.forecast_provider import configured_provider
from understanding.tools import ToolMemory, builtin_specs
from understanding.tools.catalogue import CLOUD_TOOLS, DEVICE_TOOLS

if TYPE_CHECKING:
    from react_kernel import ToolSpec


class _NoMemory:
    """Stands in for the device's memory where the cloud never runs memory tools."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("device tools run on the device, not in the cloud")

    add_note = search = add_timer = set_device_state = get_device_state = _refuse
    add_fact = get_record = notes = delete_note = _refuse
    timers = forget = device_states = _refuse


def cloud_registry(device_tools: Iterable[str] = (), extra: Iterable[ToolSpec] = ()) -> Any:
    """Cloud tools run here; the named device tools are planned here and run on the device.

    ``device_tools`` empty (the ``Reason`` RPC): the cloud can only use its own tools.
    ``extra``: more tools the cloud runs itself (its MCP servers' tools, ``--mcp``).
    """
    from react_kernel.tools import ToolRegistry

    wanted = {name for name in device_tools if name in DEVICE_TOOLS}
    registry = ToolRegistry()
    for spec in builtin_specs(_NoMemory(), forecast_provider=configured_provider()):
        if spec.name in CLOUD_TOOLS:
            # Pure, bounded functions (the calculator caps length and exponents): run them
            # inline instead of on a watchdog thread, which would cost more than the tool.
            registry.register(dataclasses.replace(spec, executor="cloud", timeout_s=None))
        elif spec.name in wanted:
            registry.register(dataclasses.replace(spec, executor="edge", func=None))
    for spec in extra:
        registry.register(spec)
    return registry


def local_registry(memory: ToolMemory) -> Any:
    """Every tool run in-process against ``memory`` (the planner's eval on scratch memory)."""
    from react_kernel.tools import ToolRegistry

    registry = ToolRegistry()
    for spec in builtin_specs(memory, forecast_provider=configured_provider()):
        registry.register(dataclasses.replace(spec, executor="cloud"))
    return registry
