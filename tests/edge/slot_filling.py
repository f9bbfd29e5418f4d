"""The tests' way to fill a built-in tool's arguments from slots placed in the words, as
the joint model's decoder gives them (shared by the slot, device-word, list and gate
tests)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from understanding.arguments.builtin_slots import builtin_from_slots
from understanding.settings import Settings
from understanding.slu.model import Slot


def slots(words: str, **spans: str | list[str]) -> list[Slot]:
    """Slots at their places in ``words`` (type=span or type=[span, ...])."""
    tokens = words.split()
    out = []
    for kind, value in spans.items():
        for span in [value] if isinstance(value, str) else value:
            parts = span.split()
            start = next(i for i in range(len(tokens)) if tokens[i : i + len(parts)] == parts)
            out.append(Slot(kind, span, start, start + len(parts)))
    return out


def arguments_or_cloud(
    tool: str, words: str, home: Settings | None, now: datetime, **spans: Any
) -> Any:
    """The tool's arguments from the slots, or ``("cloud", reason)``."""
    filled = builtin_from_slots(tool, slots(words, **spans), words, home, now)
    return filled.arguments if filled.arguments is not None else ("cloud", filled.reason)
