"""The timer ringer: each due timer rings once, whoever looks (several ringers on one
memory file, restarts), a late one is "missed", a scheduled command runs through the
device's tools, and a ringing timer can be dismissed or snoozed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_agent.device_events import EventHub
from edge_agent.ringer import TimerRinger
from edge_agent.runtime import DeviceRuntime
from edgeloop.v1 import agent_pb2 as pb
from sync.store import MemoryStore
from sync.views import iso


def _timer(store: MemoryStore, fires_at: datetime, label: str = "") -> str:
    """A timer due at ``fires_at`` (written as the store writes one)."""
    timer = store.add_timer(60, label)
    data = store.get_record("timers", timer["timer_id"]) or {}
    store.put_record("timers", timer["timer_id"], {**data, "fires_at": iso(fires_at)})
    return str(timer["timer_id"])


def _ringer(store: MemoryStore, now: datetime, **options: Any) -> tuple[TimerRinger, list[Any]]:
    hub = EventHub()
    heard: list[pb.DeviceEvent] = []
    hub.subscribe(heard.append)
    return TimerRinger(store, hub, now=lambda: now, **options), heard


NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


def test_a_due_timer_rings_once_with_its_label(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "edge.db") as store:
        _timer(store, NOW + timedelta(seconds=5), "pasta")
        ringer, heard = _ringer(store, NOW)
        assert ringer.tick() == []  # not before its time
        ringer._now = lambda: NOW + timedelta(seconds=6)
        rung = ringer.tick()
        assert [e.kind for e in rung] == [pb.DEVICE_EVENT_KIND_TIMER_FIRED]
        assert "the pasta timer is done" in rung[0].text
        assert "1 minute" in rung[0].text  # the duration in words, never seconds
        assert ringer.tick() == []
        assert heard == rung


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    due=st.lists(st.integers(min_value=-30, max_value=30), min_size=1, max_size=6),
    order=st.lists(st.integers(min_value=0, max_value=2), min_size=1, max_size=12),
)
def test_several_ringers_on_one_file_ring_each_timer_once(
    tmp_path_factory: Any, due: list[int], order: list[int]
) -> None:
    path = tmp_path_factory.mktemp("ring") / "edge.db"
    stores = [MemoryStore(path) for _ in range(3)]  # three processes' connections
    try:
        ids = [_timer(stores[0], NOW + timedelta(seconds=s)) for s in due]
        ringers = [_ringer(store, NOW)[0] for store in stores]
        rung: list[str] = []
        for which in [*order, 0, 1, 2]:
            rung.extend(e.timer_id for e in ringers[which].tick())
        expected = sorted(i for i, s in zip(ids, due, strict=True) if s <= 0)
        assert sorted(rung) == expected  # every due one, each once
    finally:
        for store in stores:
            store.close()


def test_a_timer_found_late_was_missed_and_an_old_one_is_only_marked(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "edge.db") as store:
        _timer(store, NOW - timedelta(minutes=3), "eggs")
        _timer(store, NOW - timedelta(days=3), "last week")
        ringer, _heard = _ringer(store, NOW)
        rung = ringer.tick()
        assert [e.kind for e in rung] == [pb.DEVICE_EVENT_KIND_TIMER_MISSED]
        assert "eggs" in rung[0].text and "Missed" in rung[0].text
        assert ringer.tick() == []
        assert [r["label"] for r in ringer.ringing()] == ["eggs"]


def test_a_scheduled_command_runs_through_the_device_tools(tmp_path: Path) -> None:
    from edge_agent.agent import EdgeAgent
    from understanding.router import Router

    with MemoryStore(tmp_path / "edge.db") as store:
        agent = EdgeAgent(store, Router.load())
        runtime = DeviceRuntime(agent)
        timer_id = _timer(store, datetime.now(UTC) - timedelta(seconds=1), "lights out")
        command = {
            "tool": "device_control",
            "arguments": {"device": "light", "action": "off", "room": "kitchen"},
        }
        runtime.ringer.action_of = lambda tid: command if tid == timer_id else None
        heard: list[pb.DeviceEvent] = []
        runtime.hub.subscribe(heard.append)
        store.set_device_state("light", "kitchen", {"state": "on"})
        runtime.ringer.tick()
        assert (store.get_device_state("light", "kitchen") or {})["state"] == "off"
        assert heard[0].details["tool"] == "device_control"
        assert "light off in the kitchen" in heard[0].text
        # A command found late is not run late: a wrong action is worse than none.
        late = _timer(store, datetime.now(UTC) - timedelta(minutes=5))
        runtime.ringer.action_of = lambda tid: command if tid == late else None
        store.set_device_state("light", "kitchen", {"state": "on"})
        runtime.ringer.tick()
        assert (store.get_device_state("light", "kitchen") or {})["state"] == "on"
        assert "was not run" in heard[-1].text


def test_snooze_rings_again_later_and_dismiss_stops_it(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "edge.db") as store:
        first = _timer(store, NOW - timedelta(seconds=1), "tea")
        ringer, heard = _ringer(store, NOW)
        ringer.tick()
        text, again = ringer.settle(first[:6], "snooze", 120)
        assert text.startswith("Snoozed the tea timer for 2 minutes")
        assert ringer.ringing() == []
        ringer._now = lambda: datetime.now(UTC) + timedelta(minutes=3)
        assert [e.timer_id for e in ringer.tick()] == [again]
        assert ringer.settle("last", "dismiss")[0] == "Dismissed the tea timer."
        assert ringer.ringing() == []
        assert heard[-1].kind == pb.DEVICE_EVENT_KIND_TIMER_DISMISSED


def test_a_timed_command_stored_by_the_tool_comes_back_when_its_timer_rings(
    tmp_path: Path,
) -> None:
    """End to end, no stand-ins: ``device_control`` with ``for`` stores its restore as a
    timer carrying an action; the runtime's ringer, at the due time, runs that action
    through the device's tools and the speaker is unmuted."""
    from edge_agent.agent import EdgeAgent
    from edge_agent.runtime import action_runner
    from understanding.router import Router
    from understanding.tools import builtin_tools

    with MemoryStore(tmp_path / "edge.db") as store:
        agent = EdgeAgent(store, Router.load())
        tools = builtin_tools(store)
        spec = tools.get("device_control")
        assert spec is not None and spec.func is not None
        spec.func({"device": "speaker", "action": "mute", "for": 60})
        assert (store.get_device_state("speaker", None) or {}).get("muted") is True
        (timer,) = [t for t in store.timers() if t.get("action")]
        due = datetime.fromisoformat(str(timer["fires_at"])) + timedelta(seconds=1)
        ringer, heard = _ringer(store, due, run_action=action_runner(agent))
        ringer.tick()
        assert (store.get_device_state("speaker", None) or {}).get("muted") is False
        assert heard and heard[0].details["tool"] == "device_control"


def test_a_ringing_timer_is_snoozed_and_stopped_by_voice(tmp_path: Path) -> None:
    from edge_agent.agent import EdgeAgent
    from understanding.router import Router

    with MemoryStore(tmp_path / "edge.db") as store:
        runtime = DeviceRuntime(EdgeAgent(store, Router.load()))
        agent = runtime.agent
        _timer(store, datetime.now(UTC) - timedelta(seconds=1), "pasta")
        runtime.ringer.tick()
        said = list(agent.ask("snooze it for 10 minutes"))[-1].content
        assert said.startswith("Snoozed the pasta timer for 10 minutes")
        assert [t["label"] for t in store.timers(active_only=True)] == ["pasta"]
        assert runtime.ringer.ringing() == []
        # "stop" with nothing ringing is no timer request: the router reads it as usual.
        assert "Dismissed" not in list(agent.ask("stop"))[-1].content
        _timer(store, datetime.now(UTC) - timedelta(seconds=1), "tea")
        runtime.ringer.tick()
        assert list(agent.ask("stop the alarm"))[-1].content == "Dismissed the tea timer."
        assert runtime.ringer.ringing() == []


def test_a_sync_by_another_process_is_announced_once(tmp_path: Path) -> None:
    import time

    from edge_agent.agent import EdgeAgent
    from understanding.router import Router

    with MemoryStore(tmp_path / "edge.db") as store:
        runtime = DeviceRuntime(EdgeAgent(store, Router.load()))
        heard: list[pb.DeviceEvent] = []
        runtime.hub.subscribe(heard.append)
        runtime.start()
        try:
            with MemoryStore(tmp_path / "edge.db") as other:  # `edge-agent sync`
                other.note_synced(1, 120, 340)
            deadline = time.monotonic() + 20
            while not heard and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1.5)  # another look or two: still once
        finally:
            runtime.stop()
    assert [e.kind for e in heard] == [pb.DEVICE_EVENT_KIND_SYNC_DONE]
    assert "340 received" in heard[0].text
