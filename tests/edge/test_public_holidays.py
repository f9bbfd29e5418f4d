"""The weekday of a public holiday (issue 12): "what day of the week is christmas" reads
the date in the home country's calendar (the ``holidays`` package, the ``holidays``
extra); a name the calendar does not hold in full goes to the cloud."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from edge_agent.cli import app
from understanding.arguments.builtin_slots import builtin_from_slots
from understanding.arguments.public_holidays import holiday_date
from understanding.settings import Settings
from understanding.slu.model import Slot

pytest.importorskip("holidays")

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("span", "country", "expected"),
    [
        ("christmas", "GB", date(2026, 12, 25)),
        ("christmas day", "GB", date(2026, 12, 25)),
        ("boxing day", "GB", date(2026, 12, 26)),
        ("new year's", "GB", date(2027, 1, 1)),
        ("good friday", "GB", date(2027, 3, 26)),
        ("thanksgiving", "US", date(2027, 11, 25)),
        ("independence day", "US", date(2027, 7, 4)),
        # Not named in full, not a public holiday, not the country's, no country.
        ("easter", "GB", None),
        ("valentine's", "GB", None),
        ("thanksgiving", "GB", None),
        ("may", "GB", None),
        ("christmas", None, None),
    ],
)
def test_holiday_date(span: str, country: str | None, expected: date | None) -> None:
    assert holiday_date(span, date(2026, 12, 2), country) == expected


@settings(deadline=None, max_examples=30)
@given(st.dates(date(2026, 1, 1), date(2032, 12, 31)))
def test_christmas_is_the_next_25th_of_december(today: date) -> None:
    when = holiday_date("christmas", today, "GB")
    assert when is not None and (when.month, when.day) == (12, 25) and when >= today
    assert (when - today).days < 366


def _clock(words: str, span: str, home: Settings | None, kind: str = "date") -> object:
    start = words.split().index(span.split()[0])
    slots = [Slot(kind, span, start, start + len(span.split()))]
    filled = builtin_from_slots("world_clock", slots, words, home, NOW)
    return filled.arguments if filled.arguments is not None else ("cloud", filled.reason)


def test_the_clock_tells_the_weekday_of_a_holiday_of_the_home_country() -> None:
    home = Settings(home_city="london")
    assert _clock("what day of the week is christmas", "christmas", home) == {
        "city": "london",
        "date": "2026-12-25",
    }
    refused = _clock("what day of the week is easter", "easter", home)
    assert isinstance(refused, tuple) and refused[0] == "cloud"
    # No home: no country, no calendar (and no city to tell the time of): the cloud's.
    assert _clock("what day of the week is christmas", "christmas", None)[0] == "cloud"  # type: ignore[index]


def test_the_clock_reads_a_holiday_marked_as_an_event() -> None:
    """SLURP marks a holiday ``event_name`` (the shipped router learned it from SLURP's
    lines): the same date; an event that is no public holiday is the cloud's."""
    home = Settings(home_city="london")
    assert _clock("what day of the week is christmas", "christmas", home, "event_name") == {
        "city": "london",
        "date": "2026-12-25",
    }
    party = _clock("what time is the party", "party", home, "event_name")
    assert isinstance(party, tuple) and party[0] == "cloud"


def test_holiday_end_to_end(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    runner = CliRunner()
    assert (
        runner.invoke(app, ["config", "set", "home_city", "london", "--memory", db]).exit_code == 0
    )
    result = runner.invoke(app, ["ask", "--memory", db, "what day of the week is christmas"])
    assert result.exit_code == 0, result.output
    answer = result.output.strip()
    assert answer.startswith("December 25, ") and " is a " in answer
