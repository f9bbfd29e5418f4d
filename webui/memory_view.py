"""What a memory store holds, as the pages show it (the device's page and the cloud's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sync.store import MemoryStore

MEMORY_ROWS = 50
CELL_CHARS = 200
"""How much of one value (a note's text) the page shows: a memory of long notes must not
make every page of it megabytes."""


def _cell(value: Any) -> Any:
    if isinstance(value, str) and len(value) > CELL_CHARS:
        return value[:CELL_CHARS] + "…"
    return value


def _table(rows: list[dict[str, Any]], columns: tuple[str, ...], newest: str) -> dict[str, Any]:
    shown = [c for c in columns if any(c in row for row in rows)] or list(columns)
    ordered = sorted(rows, key=lambda row: str(row.get(newest) or ""), reverse=True)
    return {
        "count": len(rows),
        "columns": shown,
        "rows": [{c: _cell(row.get(c)) for c in shown} for row in ordered[:MEMORY_ROWS]],
    }


def read_memory(
    store: MemoryStore,
    timer_rows: Callable[[MemoryStore], list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """What a memory store holds, per kind (notes and lists, timers, device states, facts
    and settings, pending queries): the count, the columns and the newest rows. Only the
    store's public, locked reads: safe beside a sync in another thread. ``timer_rows`` reads
    the timers as a person does (``understanding.tools.timers.timer_rows``: lengths in
    words, local clock times, whether each rang); without it, the stored fields."""
    return {
        "notes": _table(store.notes(), ("text", "list", "created_at"), "created_at"),
        "timers": (
            _table(timer_rows(store), ("label", "length", "goes off", "state"), "fires_at")
            if timer_rows is not None
            else _table(store.timers(), ("label", "seconds", "fires_at"), "fires_at")
        ),
        "device_state": _table(
            list(store.records("device_state").values()),
            ("device", "room", "state", "updated_at"),
            "updated_at",
        ),
        "facts": _table(store.facts(), ("entity", "attribute", "value"), "created_at"),
        "pending": _table(
            list(store.records("pending").values()),
            ("query", "status", "answer", "created_at"),
            "created_at",
        ),
    }
