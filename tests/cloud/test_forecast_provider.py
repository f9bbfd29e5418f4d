"""The Open-Meteo client against a real local HTTP server of the documented shape, the
synthetic provider, and the forecast's trip from the cloud into the device's cache."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from cloud_agent import forecast_provider as fp
from edge_agent.agent import EdgeAgent
from edge_agent.cloud_link import CloudLink
from edgeloop.v1 import agent_pb2 as pb
from examples.demo import load_router
from tests.cloud.open_meteo_standin import OpenMeteoStandIn
from understanding.forecast import FRESH_S, recall, remember_week
from understanding.gazetteer import place
from understanding.tools import weather

TODAY = date(2026, 12, 1)


@pytest.fixture
def service() -> Iterator[OpenMeteoStandIn]:
    with OpenMeteoStandIn(start=TODAY) as stand_in:
        yield stand_in


def oslo() -> Any:
    found = place("oslo")
    assert found is not None
    return found


def test_the_client_reads_the_documented_week(service: OpenMeteoStandIn) -> None:
    provider = fp.OpenMeteoProvider(service.url + "/")
    week = provider.week(oslo(), TODAY)
    assert list(week) == [(TODAY + timedelta(days=n)).isoformat() for n in range(7)]
    assert week["2026-12-01"] == {"temperature": 5, "condition": "windy"}  # dry, 45 km/h
    assert week["2026-12-02"]["condition"] == "cloudy"
    assert week["2026-12-03"]["condition"] == "rainy"
    assert week["2026-12-04"]["condition"] == "foggy"
    assert week["2026-12-05"]["condition"] == "snowy"
    (query,) = service.requests
    assert query["timezone"] == ["Europe/Oslo"] and query["forecast_days"] == ["7"]
    assert abs(float(query["latitude"][0]) - 59.91) < 0.1
    assert set(query["daily"][0].split(",")) == set(fp.DAILY)
    provider.week(oslo(), TODAY)  # a second question within the TTL makes no request
    assert len(service.requests) == 1
    provider.close()


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("error", "answered 400: Latitude must be in range"),
        ("down", "answered 503"),
        ("garbled", "no daily forecast"),
        ("slow", "did not answer in time"),
    ],
)
def test_errors_are_one_line_reasons(service: OpenMeteoStandIn, mode: str, message: str) -> None:
    service.mode, service.delay_s = mode, 1.0
    provider = fp.OpenMeteoProvider(service.url, timeout_s=0.2)
    with pytest.raises(fp.ForecastError, match=message):
        provider.week(oslo(), TODAY)
    provider.close()


def test_an_unreachable_service_is_an_error() -> None:
    provider = fp.OpenMeteoProvider("http://127.0.0.1:9", timeout_s=0.5)
    with pytest.raises(fp.ForecastError, match="cannot reach"):
        provider.week(oslo(), TODAY)


def test_the_tool_fails_on_a_service_error_and_never_guesses(service: OpenMeteoStandIn) -> None:
    service.mode = "error"
    run = weather.make_run(
        None, lambda: datetime(2026, 12, 1, 12, tzinfo=UTC), fp.OpenMeteoProvider(service.url)
    )
    with pytest.raises(ValueError, match="Latitude must be in range"):
        run({"city": "oslo"})


def test_weather_codes() -> None:
    assert fp.condition_of(0, 5.0) == "sunny"
    assert fp.condition_of(1, None) == "sunny"
    assert fp.condition_of(3, 50.0) == "windy"
    assert fp.condition_of(63, 50.0) == "rainy"
    assert fp.condition_of(96, None) == "rainy"
    assert fp.condition_of(75, None) == "snowy"
    assert fp.condition_of(48, None) == "foggy"
    assert fp.condition_of(42, None) == "unknown"


def test_configuration() -> None:
    assert isinstance(fp.provider_from_env({}), fp.SyntheticProvider)
    chosen = fp.provider_from_env({"EDGELOOP_FORECAST_URL": "http://127.0.0.1:1"})
    assert isinstance(chosen, fp.OpenMeteoProvider)
    with pytest.raises(ValueError, match="http"):
        fp.provider_from_env({"EDGELOOP_FORECAST_URL": "ftp://x"})
    week = fp.SyntheticProvider().week(oslo(), TODAY)
    assert len(week) == 7 and all(-60 <= r["temperature"] <= 50 for r in week.values())


@pytest.fixture
def configured(
    service: OpenMeteoStandIn, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OpenMeteoStandIn]:
    monkeypatch.setenv("EDGELOOP_FORECAST_URL", service.url)
    fp.configured_provider.cache_clear()
    yield service
    fp.configured_provider.cache_clear()


def test_the_forecast_reaches_the_device_cache_and_serves_offline(
    configured: OpenMeteoStandIn, make_cloud: Any, device_memory: Any
) -> None:
    configured.start = datetime.now(ZoneInfo("Europe/Oslo")).date()  # the days are Oslo's
    clock = {"now": datetime.now(UTC)}
    cloud = make_cloud()
    link = CloudLink(cloud.target, deadline_s=5, retries=1, backoff_s=0.01)
    agent = EdgeAgent(device_memory, load_router()[0], cloud=link, now=lambda: clock["now"])
    try:
        steps = list(agent.ask("what's the weather in Oslo"))
        assert steps[0].metadata["reason"] == "no fresh forecast for oslo on the device"
        observed = [s for s in steps if s.step_type == pb.STEP_TYPE_OBSERVATION]
        assert observed and observed[0].observation["source"] == "open-meteo"
        assert len(configured.requests) == 1
        # The week is in the device's memory now: the next question stays on the device.
        steps = list(agent.ask("what's the weather in Oslo"))
        assert steps[0].metadata["route"] == "edge"
        assert len(configured.requests) == 1
        # Hours later, with the cloud gone, the device answers from its old forecast and
        # says how old it is.
        cloud.stop()
        clock["now"] += timedelta(seconds=FRESH_S + 3600 + 120)
        steps = list(agent.ask("what's the weather in Oslo"))
        assert "forecast from 4 hours ago" in steps[-1].content
        assert not device_memory.pending()
    finally:
        link.close()


def test_a_city_a_region_picks_is_fetched_for_its_own_place(
    configured: OpenMeteoStandIn, make_cloud: Any, device_memory: Any
) -> None:
    """'Weather in Paris, Texas' online: the device asks the cloud, the planner plans Paris,
    Texas, the provider asks for its coordinates, and the device keeps it apart from Paris,
    France (issue 12)."""
    configured.start = datetime.now(ZoneInfo("America/Chicago")).date()  # Paris, Texas's
    cloud = make_cloud()
    link = CloudLink(cloud.target, deadline_s=5, retries=1, backoff_s=0.01)
    agent = EdgeAgent(device_memory, load_router()[0], cloud=link)
    try:
        steps = list(agent.ask("what's the weather in paris texas"))
        assert steps[0].metadata["reason"] == "no fresh forecast for paris, texas on the device"
        (asked,) = configured.requests
        texas = place("paris, texas")
        assert texas is not None
        assert float(asked["latitude"][0]) == pytest.approx(texas.latitude, abs=0.01)
        assert asked["timezone"] == ["America/Chicago"]
        assert "Paris, Texas" in steps[-1].content
        now = datetime.now(UTC)
        today = now.astimezone(ZoneInfo("America/Chicago")).date()
        assert recall(device_memory, "paris, texas", today, now) is not None
        assert recall(device_memory, "paris", today, now) is None
    finally:
        link.close()


def test_the_cache_keeps_a_week_per_city(device_memory: Any) -> None:
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    remember_week(
        device_memory,
        "lima",
        "open-meteo",
        now.isoformat(),
        {"2026-12-01": {"temperature": 22, "condition": "sunny"}},
    )
    cached = recall(device_memory, "lima", TODAY, now + timedelta(minutes=5))
    assert cached is not None and cached.fresh and cached.age_s == 300
    assert cached.reading == {"temperature": 22, "condition": "sunny"}
    assert recall(device_memory, "lima", TODAY + timedelta(days=1), now) is None
    run = weather.make_run(device_memory, lambda: now)
    assert run({"city": "lima"})["source"] == "open-meteo"
    assert run({"city": "lima", "day": "tomorrow"})["source"] == "synthetic"


def test_a_span_is_fetched_through_the_cloud_then_served_from_the_cache(
    configured: OpenMeteoStandIn, make_cloud: Any, device_memory: Any
) -> None:
    """'Will it rain in Oslo this week' with nothing cached: the device asks the cloud for
    the span in words, the cloud's provider answers the week, the device keeps it, and the
    weekend is then answered on the device (issue 12)."""
    configured.start = datetime.now(ZoneInfo("Europe/Oslo")).date()  # the days are Oslo's
    cloud = make_cloud()
    link = CloudLink(cloud.target, deadline_s=5, retries=1, backoff_s=0.01)
    agent = EdgeAgent(device_memory, load_router()[0], cloud=link)
    try:
        steps = list(agent.ask("will it rain in oslo this week"))
        assert steps[0].metadata["reason"] == "no fresh forecast for oslo on the device"
        (action,) = [s for s in steps if s.step_type == pb.STEP_TYPE_ACTION]
        assert action.tool == "get_weather" and action.arguments["day"] == "week"
        (observed,) = [s for s in steps if s.step_type == pb.STEP_TYPE_OBSERVATION]
        assert observed.observation["source"] == "open-meteo"
        assert len(observed.observation["days"]) == 7
        assert "Oslo this week: " in steps[-1].content
        assert "rainy on " in steps[-1].content  # the stand-in's third day is rainy
        steps = list(agent.ask("what's the weather in oslo this weekend"))
        assert steps[0].metadata["route"] == "edge"
        assert steps[-1].content.startswith("This weekend in Oslo: ")
        assert len(configured.requests) == 1
    finally:
        link.close()
