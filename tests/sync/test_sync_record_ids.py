"""Record ids: time-ordered, increasing within a process, carrying their creation time."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import sync.ids as store_module
from sync import MemoryStore
from sync.ids import new_record_id, record_time


def test_ids_made_in_one_millisecond_still_increase(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_last_id", [0, 0])
    monkeypatch.setattr(store_module.time, "time_ns", lambda: 1_700_000_000_123_000_000)
    ids = [new_record_id() for _ in range(1000)]
    assert ids == sorted(ids) and len(set(ids)) == 1000
    assert {record_time(i) for i in ids} == {"2023-11-14T22:13:20.123Z"}


def test_ids_keep_increasing_when_the_clock_steps_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_last_id", [0, 0])
    clock = iter([2_000_000_000_000_000_000, 1_000_000_000_000_000_000])
    monkeypatch.setattr(store_module.time, "time_ns", lambda: next(clock))
    first, second = new_record_id(), new_record_id()
    assert first < second and record_time(first) == record_time(second)


def test_a_note_is_stamped_with_its_ids_time(make_store: Callable[..., MemoryStore]) -> None:
    store = make_store("a")
    ids = [store.add_note(f"note {i}") for i in range(50)]
    notes = store.notes()
    assert [n["note_id"] for n in notes] == ids  # oldest first = id order
    assert all(n["created_at"] == record_time(n["note_id"]) for n in notes)
