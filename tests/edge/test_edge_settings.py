"""Device settings: stored as synced facts, checked on the way in, used as home defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from edge_agent.agent import EdgeAgent
from edge_agent.cli import app
from sync.store import MemoryStore
from understanding.router import Router
from understanding.settings import (
    Settings,
    SettingsError,
    check_setting,
    complete_arguments,
    load_settings,
    save_setting,
)

runner = CliRunner()


def test_values_are_checked_and_canonical() -> None:
    assert check_setting("home_city", " NYC ") == "new york"
    assert check_setting("default_room", "Living  Room") == "living room"
    assert check_setting("units", "IMPERIAL") == "imperial"
    assert check_setting("history_days", " 030 ") == "30"
    for key, value in [
        ("home_city", "narnia"),
        ("units", "furlongs"),
        ("default_room", "room 101"),
        ("colour", "red"),
        ("history_days", "0"),
        ("history_days", "-5"),
        ("history_days", "1.5"),
        ("history_days", "thirty"),
        ("history_days", "\uff13\uff10"),  # full-width digits: not a plain number
        ("history_days", "36501"),
    ]:
        with pytest.raises(SettingsError):
            check_setting(key, value)


def test_settings_are_facts_that_sync(memory: MemoryStore, tmp_path: Path) -> None:
    assert load_settings(memory) == Settings()
    save_setting(memory, "home_city", "tokio")
    save_setting(memory, "default_room", "kitchen")
    with pytest.raises(SettingsError):
        save_setting(memory, "units", "cubits")
    settings = load_settings(memory)
    assert settings == Settings(home_city="tokyo", default_room="kitchen", units="metric")
    assert settings.timezone == "Asia/Tokyo"
    # Another replica gets them through the ordinary CRDT exchange.
    other = MemoryStore(tmp_path / "other.db")
    try:
        other.apply_update(memory.diff(other.state_vector()))
        assert load_settings(other) == settings
    finally:
        other.close()


def test_a_foreign_value_is_ignored(memory: MemoryStore) -> None:
    memory.add_fact("device", "home_city", "narnia")
    memory.add_fact("device", "units", 42)
    assert load_settings(memory) == Settings()


def test_home_defaults_fill_only_what_the_query_leaves_out() -> None:
    home = Settings(home_city="oslo", default_room="kitchen")
    assert complete_arguments(home, "get_weather", "what's the weather", None) == {
        "city": "oslo",
        "day": "today",
    }
    assert complete_arguments(home, "world_clock", "what time is it", None) == {"city": "oslo"}
    # A named place is never replaced by home, known or not.
    assert complete_arguments(home, "get_weather", "weather in Paris and Rome", None) is None
    assert complete_arguments(home, "get_weather", "weather in Paris, Texas", None) is None
    assert complete_arguments(home, "world_clock", "what time is it in Texas", None) is None
    # Another date is no question about now.
    assert complete_arguments(home, "world_clock", "what day is december 13th", None) is None
    # The clock answers the clock's own questions, not when something else happens.
    assert complete_arguments(home, "world_clock", "what's the date today", None) == {
        "city": "oslo"
    }
    for other in ("what time is the meeting with john", "what time does the train leave"):
        assert complete_arguments(home, "world_clock", other, None) is None
    # Weather needs a weather word: "what does my morning look like" is the calendar's.
    assert complete_arguments(home, "get_weather", "do i need an umbrella", None) == {
        "city": "oslo",
        "day": "today",
    }
    assert complete_arguments(home, "get_weather", "what does my day look like", None) is None
    assert complete_arguments(home, "get_weather", "weather next week", None) is None
    lights = {"device": "light", "action": "on"}
    assert complete_arguments(home, "device_control", "lights on", lights) == {
        **lights,
        "room": "kitchen",
    }
    named = {"device": "light", "action": "on", "room": "bedroom"}
    assert complete_arguments(home, "device_control", "x", named) == named
    assert complete_arguments(None, "world_clock", "what time is it", None) is None
    assert complete_arguments(Settings(), "world_clock", "what time is it", None) is None


def test_agent_answers_for_home(memory: MemoryStore, stub_router: Router) -> None:
    agent = EdgeAgent(memory, stub_router)
    answer = [s.content for s in agent.ask("what's the weather like")][-1]
    assert "saved your question" in answer  # no home: the cloud's, kept pending
    save_setting(memory, "home_city", "berlin")
    steps = list(agent.ask("what's the weather like"))
    assert "Berlin" in steps[-1].content


def test_config_cli(tmp_path: Path) -> None:
    db = str(tmp_path / "edge.db")
    result = runner.invoke(app, ["config", "set", "home_city", "Londn", "--memory", db])
    assert result.exit_code == 0, result.output
    assert "home_city = london" in result.output
    result = runner.invoke(app, ["config", "set", "units", "kelvin", "--memory", db])
    assert result.exit_code == 2
    assert result.output.startswith("error: units are")
    result = runner.invoke(app, ["config", "show", "--json", "--memory", db])
    assert json.loads(result.output) == {
        "home_city": "london",
        "timezone": "Europe/London",
        "default_room": None,
        "units": "metric",
        "history_days": None,
    }


def test_eval_home(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", str(tmp_path / "x.jsonl"), "--home", "narnia"])
    assert result.exit_code == 2
    assert "--home: unknown city" in result.output


def test_run_eval_as_a_device_at_home(tmp_path: Path, stub_router: Router) -> None:
    from edge_agent.evaluation import load_cases, run_eval

    path = tmp_path / "home.jsonl"
    line = {
        "query": "what's the weather",
        "route": "edge",
        "tool": "get_weather",
        "args": {"city": "london", "day": "today"},
        "expected_value": None,
    }
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    cases = load_cases(path)
    assert run_eval(stub_router, cases).metrics["tool_accuracy"] == 0.0
    at_home = run_eval(stub_router, cases, Settings(home_city="london")).metrics
    assert at_home["tool_accuracy"] == 1.0
    assert at_home["args_accuracy"] == 1.0


def _old_session(store: MemoryStore, session_id: str, age_days: float) -> None:
    """A session with one step and a receipt, written ``age_days`` ago by the real clock."""
    import time

    from google.protobuf.timestamp_pb2 import Timestamp

    from edgeloop.v1 import agent_pb2 as pb
    from sync.views import iso_ms

    ms = int((time.time() - age_days * 86_400) * 1000)
    when = Timestamp(seconds=ms // 1000)
    step = pb.ReactStep(
        session_id=session_id,
        step_index=0,
        step_type=pb.STEP_TYPE_FINAL_ANSWER,
        content=f"answer of {session_id}",
        created_at=when,
    )
    with store.batch():
        store.save_steps(session_id, [step])
        store.record_session(session_id, query="q", state="completed", created_at=iso_ms(ms))
        store.save_receipt(
            pb.DecisionReceipt(receipt_id=f"r-{session_id}", session_id=session_id, answer="a",
                               created_at=when)
        )  # fmt: skip


def test_history_days_takes_old_history_out_of_the_document(tmp_path: Path) -> None:
    db = tmp_path / "edge.db"
    store = MemoryStore.device(db)
    _old_session(store, "old", age_days=45)
    _old_session(store, "recent", age_days=3)
    store.close()
    result = runner.invoke(app, ["config", "set", "history_days", "30", "--memory", str(db)])
    assert result.exit_code == 0, result.output
    assert "history_days = 30" in result.output
    assert "1 receipts, 1 sessions, 1 steps" in result.output
    store = MemoryStore.device(db)
    try:
        held = {r for r in store.doc.record_ids("sessions") if store.doc.holds("sessions", r)}
        assert held == {"recent"}
        assert store.get_session("old") is not None  # the tables keep the archive
        assert load_settings(store).history_days == 30
    finally:
        store.close()
    result = runner.invoke(app, ["config", "set", "history_days", "0", "--memory", str(db)])
    assert result.exit_code == 2
    assert result.output.startswith("error: history_days is a whole number")


def test_agent_keeps_the_devices_horizon(memory: MemoryStore, stub_router: Router) -> None:
    agent = EdgeAgent(memory, stub_router)
    list(agent.ask("what's 2 plus 2"))
    assert memory.history_days != 12.0
    save_setting(memory, "history_days", "12")
    list(agent.ask("what's 2 plus 2"))
    assert memory.history_days == 12.0


def test_every_command_opens_memory_with_the_devices_horizon(tmp_path: Path) -> None:
    """ask, pending, sync, timers and config open the store one way: a sync run by any of
    them retires history with the device's horizon, not the default."""
    from edge_agent.cli import _device_store

    db = str(tmp_path / "edge.db")
    store = _device_store(db)
    assert store.history_days == 90.0  # MemoryStore.device's default
    save_setting(store, "history_days", "12")
    store.close()
    store = _device_store(db)
    try:
        assert store.history_days == 12.0
    finally:
        store.close()
