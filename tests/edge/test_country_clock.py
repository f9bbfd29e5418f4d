"""The time in a country named on its own (issue 12): one clock answers, several do not.

A country whose every zone in the tz database keeps the same time all year ("india",
"zimbabwe", "argentina" with its 12 zones) is answered from that zone; one whose zones
differ ("spain" with the Canary Islands, "the united states") goes to the cloud with the
reason, never answered for its capital. The weather of a country stays the cloud's.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from edge_agent.cli import app
from understanding.arguments.builtin_slots import builtin_from_slots
from understanding.gazetteer import country_clock
from understanding.gazetteer.clocks import _country_zones
from understanding.gazetteer.regions import _countries
from understanding.settings import Settings
from understanding.slu.model import Slot
from understanding.tools import clock

HOME = Settings(home_city="london")
NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def test_countries_on_one_clock_and_on_several() -> None:
    assert country_clock("india").zone == "Asia/Kolkata"  # type: ignore[union-attr]
    assert country_clock("Zimbabwe").zone == "Africa/Harare"  # type: ignore[union-attr]
    assert country_clock("england").zone == "Europe/London"  # type: ignore[union-attr]
    # Several zones that always agree are one clock; zones that differ are none.
    argentina = country_clock("argentina")
    assert argentina is not None and len(argentina.zones) > 1 and argentina.zone is not None
    for several in ("spain", "united states", "russia", "australia", "ecuador"):
        found = country_clock(several)
        assert found is not None and found.zone is None, several
    # No country: a state, a city, an everyday two-letter code.
    for name in ("texas", "paris", "in", "us", "narnia"):
        assert country_clock(name) is None, name


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_countries())))
def test_a_country_clock_is_one_time_everywhere_in_it(code: str) -> None:
    """Property: a country's ``zone``, when it has one, is among its zones and shows the
    time of every one of them at any moment of the coming year."""
    name = next((n for n in _countries()[code] if len(n.strip(".")) > 2), None)
    found = country_clock(name) if name else None
    if found is None or found.zone is None:
        return
    zones = _country_zones().get(code, ())
    assert found.zone in zones
    moment = datetime.now(UTC)
    for zone in zones:
        assert (
            moment.astimezone(ZoneInfo(zone)).utcoffset()
            == moment.astimezone(ZoneInfo(found.zone)).utcoffset()
        )


def _fill(words: str, place: str | None) -> object:
    tokens = words.split()
    slots = []
    if place is not None:
        start = tokens.index(place.split()[0])
        slots.append(Slot("place_name", place, start, start + len(place.split())))
    filled = builtin_from_slots("world_clock", slots, words, HOME, NOW)
    return filled.arguments if filled.arguments is not None else ("cloud", filled.reason)


@pytest.mark.parametrize(
    ("words", "place", "expected"),
    [
        ("what is the time in zimbabwe right now", "zimbabwe", {"city": "zimbabwe"}),
        ("let me know the time in india", "india", {"city": "india"}),
        ("let me know the time in india", None, {"city": "india"}),  # no slot: the words
        ("what time is it in spain", "spain", ("cloud", "spain spans several time zones")),
        # A place asked about but not named is no home.
        ("what time is it in another city", None, ("cloud", "a place it does not name")),
    ],
)
def test_the_clock_reads_a_country(words: str, place: str | None, expected: object) -> None:
    got = _fill(words, place)
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and got[0] == "cloud" and expected[1] in got[1]
    else:
        assert got == expected


def test_the_clock_tool_answers_in_the_country_zone() -> None:
    run = clock.make_run(lambda: NOW)
    out = run({"city": "india"})
    assert out["city"] == "india" and out["timezone"] == "Asia/Kolkata"
    assert out["time"] == "01:30" and out["date"] == "2026-12-02"
    with pytest.raises(ValueError, match="several time zones"):
        run({"city": "spain"})


def _thought_and_answer(db: Path, query: str) -> tuple[dict[str, object], str]:
    result = CliRunner().invoke(app, ["ask", "--memory", str(db), "--json", query])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    return lines[0], str(lines[-1]["content"])


def test_country_time_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    thought, answer = _thought_and_answer(db, "let me know the time in india")
    assert thought["metadata"]["route"] == "edge"  # type: ignore[index]
    assert answer.startswith("It's ") and answer.endswith(" in India (Asia/Kolkata).")
    thought, _answer = _thought_and_answer(db, "what time is it in the united states")
    assert thought["metadata"]["route"] == "cloud"  # type: ignore[index]
    reason = str(thought["metadata"]["reason"])  # type: ignore[index]
    assert "several time zones" in reason or reason.startswith("low confidence"), reason
    # The weather of a country is still no one city's: the cloud's.
    thought, _answer = _thought_and_answer(db, "what's the weather in india")
    assert thought["metadata"]["reason"] == "india is not a city the device knows"  # type: ignore[index]
