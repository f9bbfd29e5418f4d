"""The per-replica memory cache: a count and byte budget, idle eviction, leases that keep
an entry open while in use, one load per key; the SQLite per-user stores within it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from sync import MemoryStore, UserStores
from sync.cache import BudgetCache, CacheBudget


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_least_recently_used_goes_first_and_leased_entries_stay_open() -> None:
    closed: list[str] = []
    cache: BudgetCache[str, str] = BudgetCache(
        max_entries=2, max_bytes=1000, idle_s=60, close=closed.append
    )

    def size(value: str) -> int:
        return 10

    with cache.lease("a", lambda: "A", size):
        pass
    with cache.lease("b", lambda: "B", size):
        pass
    with cache.lease("a", lambda: "A2", size) as value:
        assert value == "A"  # a hit: not reloaded
    with cache.lease("c", lambda: "C", size), cache.lease("d", lambda: "D", size):
        # b went first (least recently used); c and d are leased, so a third entry
        # outlives the budget only while they are in use
        assert closed == ["B", "A"]
        assert len(cache) == 2
    assert len(cache) == 2
    assert cache.loads == 4
    cache.close()
    assert sorted(closed) == ["A", "B", "C", "D"]


def test_byte_budget_and_idle_eviction() -> None:
    clock = FakeClock()
    closed: list[str] = []
    cache: BudgetCache[str, str] = BudgetCache(
        max_entries=100, max_bytes=25, idle_s=30, close=closed.append, clock=clock
    )
    for key in "abc":
        with cache.lease(key, lambda k=key: k, lambda v: 10):
            pass
    assert closed == ["a"] and cache.bytes == 20
    clock.now = 20
    with cache.lease("c", lambda: "c", lambda v: 10):
        pass
    clock.now = 40  # b idle for 40 s, c for 20 s
    assert cache.evict_idle() == 1
    assert closed == ["a", "b"]
    assert "c" in cache


def test_a_key_loads_once_however_many_threads_ask() -> None:
    loads: list[int] = []
    cache: BudgetCache[str, int] = BudgetCache()

    def load() -> int:
        loads.append(1)
        time.sleep(0.05)
        return 42

    def use() -> None:
        with cache.lease("k", load, lambda v: 1) as value:
            assert value == 42

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1


def test_sqlite_user_stores_stay_within_the_budget_and_reload(tmp_path: Path) -> None:
    budget = CacheBudget(max_entries=2, max_mb=64, idle_s=3600)
    devices = {f"user{i}": MemoryStore(":memory:", node_id="phone") for i in range(6)}
    with UserStores(tmp_path / "cloud", budget=budget) as stores:
        for user, device in devices.items():
            device.add_note(f"note of {user}")
            memory = stores.memory(user)
            memory.apply_update(device.diff(memory.state_vector()))
            assert len(stores.cache) <= 2
        assert stores.cache.evictions >= 4
        for user, device in devices.items():
            assert stores.memory(user).document_json() == device.document_json()
            assert [h.text for h in stores.memory(user).search(f"note {user}")] == [
                f"note of {user}"
            ]
        assert len(stores.cache) <= 2
    for device in devices.values():
        device.close()
