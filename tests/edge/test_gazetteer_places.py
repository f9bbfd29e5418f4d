"""Cities that share a name: the bare name is the most populous, a region picks another.

"Paris, Texas", "London, Ontario", "Vancouver, Washington", "Springfield, Illinois" are
places of the gazetteer (GeoNames' cities over 15,000 people); the device answers for
them with their own time zone, coordinates and forecast cache entry, and names them so.
The examples are written for these tests from general geography, not taken from any
eval set.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sync.store import MemoryStore
from understanding.arguments.places import one_city
from understanding.forecast import recall, remember_observation
from understanding.gazetteer import (
    ALIASES,
    NAMESAKE_OVER_LIST,
    Place,
    other_place,
    place,
    read_places,
    reads_as_region,
    region_names,
    resolve_city,
    resolve_place,
)
from understanding.gazetteer.fuzzy import _fuzzy, find_cities
from understanding.gazetteer.index import _index, _record
from understanding.gazetteer.qualifiers import _may_name_a_qualifier, _qualifier, _qualifier_pattern
from understanding.gazetteer.regions import _regions
from understanding.router import DEFAULT_MODEL_DIR, Router
from understanding.settings import check_setting
from understanding.tools import clock, weather

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("written", "key", "country", "zone"),
    [
        ("Paris", "paris", "FR", "Europe/Paris"),
        ("Paris, Texas", "paris, texas", "US", "America/Chicago"),
        ("paris tx", "paris, texas", "US", "America/Chicago"),
        ("Paris (TX)", "paris, texas", "US", "America/Chicago"),
        ("Paris, Texas, USA", "paris, texas", "US", "America/Chicago"),
        ("paris in the us", "paris, texas", "US", "America/Chicago"),
        ("London Ontario", "london, ontario", "CA", "America/Toronto"),
        ("london in canada", "london, ontario", "CA", "America/Toronto"),
        ("london ont", "london, ontario", "CA", "America/Toronto"),
        ("London, England", "london", "GB", "Europe/London"),
        ("Vancouver, Washington", "vancouver, washington", "US", "America/Los_Angeles"),
        ("Vancouver, BC", "vancouver", "CA", "America/Vancouver"),
        ("Springfield, Illinois", "springfield, illinois", "US", "America/Chicago"),
        ("springfield il", "springfield, illinois", "US", "America/Chicago"),
        ("Perth, Scotland", "perth, united kingdom", "GB", "Europe/London"),
        ("Sydney, Nova Scotia", "sydney, nova scotia", "CA", "America/Glace_Bay"),
        ("Londn, Ontario", "london, ontario", "CA", "America/Toronto"),  # a typo still resolves
    ],
)
def test_a_region_picks_the_city_of_the_name_there(
    written: str, key: str, country: str, zone: str
) -> None:
    assert resolve_place(written) == key
    found = place(key)
    assert found is not None and (found.key, found.country, found.timezone) == (key, country, zone)


@pytest.mark.parametrize(
    "written",
    [
        "Paris, Nevada",  # no Paris of 15,000 people there
        "NYC, Texas",
        "Sydney, Manitoba",
        "Texas",  # a region alone is no city
        "Ontario, Canada",
    ],
)
def test_a_name_in_a_region_without_it_is_no_place(written: str) -> None:
    assert resolve_place(written) is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("what's the weather in Paris, Texas tomorrow", "paris, texas"),
        ("time in London Ontario", "london, ontario"),
        ("time in London, Ontario and London", None),  # two places
        ("weather in Paris and Paris, Texas", None),
        ("is it cold in Toronto on friday", "toronto"),  # "on" is a word here, no Ontario
        ("weather in Paris, Nevada", None),
        ("weather in Amsterdam, New York and Tokyo", None),  # a list: "New York" is a city
        ("weather in Vancouver, Washington", "vancouver, washington"),  # a big namesake there
    ],
)
def test_one_place_in_running_text(text: str, key: str | None) -> None:
    assert one_city(text) == key


def test_lower_case_codes_that_are_words_stay_words() -> None:
    # "or" is Oregon only in capitals; "me" is Maine only in capitals.
    assert read_places("is it colder in paris or rome").picked == ()
    assert read_places("time in portland me").picked == ()
    assert read_places("time in Portland ME").picked == (("portland", "portland, maine"),)


def test_the_planners_reading_is_unchanged() -> None:
    # The cloud planner reads a name with another region as a place it does not know.
    assert other_place("weather in Paris, Texas") == "Paris, Texas"
    assert other_place("weather in Paris, France") is None


def test_home_city_may_be_a_qualified_place() -> None:
    assert check_setting("home_city", "London, Ontario") == "london, ontario"
    assert check_setting("home_city", "paris tx") == "paris, texas"


def test_clock_answers_with_the_places_own_zone() -> None:
    run = clock.make_run(lambda: NOW)
    texas = run({"city": "paris, texas"})
    france = run({"city": "paris"})
    assert (texas["city"], texas["timezone"], texas["time"]) == (
        "paris, texas",
        "America/Chicago",
        "07:00",
    )
    assert (france["timezone"], france["time"]) == ("Europe/Paris", "14:00")
    assert run({"city": "Paris, TX"})["city"] == "paris, texas"  # written otherwise, same key
    with pytest.raises(ValueError, match="unknown city"):
        run({"city": "paris, nevada"})


class _Provider:
    """A provider that answers from the place's own coordinates, and counts its calls."""

    source = "test-provider"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def week(self, found: Place, today: object) -> dict[str, dict[str, object]]:
        self.asked.append(found.key)
        from datetime import date, timedelta

        assert isinstance(today, date)
        temperature = round(found.latitude) // 2  # Paris FR 24, Paris TX 16
        return {
            (today + timedelta(days=d)).isoformat(): {
                "temperature": temperature,
                "condition": "sunny",
            }
            for d in range(7)
        }


def test_weather_and_its_cache_key_on_the_place(tmp_path: Path) -> None:
    provider = _Provider()
    cloud = weather.make_run(now=lambda: NOW, provider=provider)
    texas = cloud({"city": "paris, texas"})
    france = cloud({"city": "paris"})
    assert provider.asked == ["paris, texas", "paris"]
    assert texas["temperature"] != france["temperature"]
    memory = MemoryStore(tmp_path / "m.db")
    try:
        assert remember_observation(memory, texas) and remember_observation(memory, france)
        kept = recall(memory, "paris, texas", NOW.date(), NOW)
        assert kept is not None and kept.reading["temperature"] == texas["temperature"]
        device = weather.make_run(memory=memory, now=lambda: NOW)
        assert device({"city": "Paris, TX"})["temperature"] == texas["temperature"]
        assert device({"city": "paris"})["temperature"] == france["temperature"]
    finally:
        memory.close()


# -- every city of the table written with its region resolves to itself ---------------


@cache
def _region_words() -> frozenset[str]:
    own, other = _regions()
    return frozenset(w for n in (*other, *(x for v in own.values() for x in v)) for w in n.split())


_LIST_WORDS = frozenset({"in", "the", "of", "and", "or", "at", "for", "to"})


@cache
def _nameable() -> list[Place]:
    """The cities a name and region single out: the most populous of the name in their
    state, province (US, Canada, Australia) or else country, whose name is letters and at
    most three words, no alias and holds no region's name ("La Virginia"); not a small
    namesake in a region whose name is a city's ("Amsterdam, New York" lists two)."""
    found: list[Place] = []
    names = _index().names
    for name in dict.fromkeys(names):
        if (
            not re.fullmatch(r"[a-z][a-z -]*", name)
            or len(name.split()) > 3
            or name in ALIASES
            or any(w in _region_words() or w in _LIST_WORDS for w in name.split())
        ):
            continue
        for number, line in enumerate(_index().lines(name)):
            city = _record(line, name if number == 0 else "")
            region = _region_of(city)
            best = place(f"{name}, {region}")
            listed = (
                number > 0
                and resolve_city(region) is not None
                and not reads_as_region(region)
                and city.population < NAMESAKE_OVER_LIST
            )  # "Amsterdam, New York" lists two cities
            if best is not None and best == city and not listed:
                found.append(city)
    return found


def _region_of(city: Place) -> str:
    from understanding.gazetteer.regions import _countries

    return (region_names(city.country, city.region) or _countries()[city.country])[0]


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_any_city_written_with_its_region_resolves_to_itself(data: st.DataObject) -> None:
    city = data.draw(st.sampled_from(_nameable()))
    title = " ".join(w.capitalize() for w in city.name.split())
    region = _region_of(city).title()
    sep = data.draw(st.sampled_from([", ", " in ", " "]))
    key = one_city(f"weather in {title}{sep}{region}")
    assert key == city.key
    found = place(key)
    assert found is not None and (found.latitude, found.longitude) == (
        city.latitude,
        city.longitude,
    )


# -- end to end through the CLI -------------------------------------------------------


@pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "router.json").is_file(), reason="shipped router not built"
)
@pytest.mark.parametrize(
    ("query", "tool", "city", "said"),
    [
        ("weather in paris texas", "get_weather", "paris, texas", "Paris, Texas"),
        ("what time is it in london ontario", "world_clock", "london, ontario", "London, Ontario"),
        (
            "what's the weather in Vancouver, Washington",
            "get_weather",
            "vancouver, washington",
            "Vancouver, Washington",
        ),
    ],
)
def test_ask_answers_for_the_place_it_names(
    tmp_path: Path, query: str, tool: str, city: str, said: str
) -> None:
    env = {**os.environ, "EDGELOOP_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "edge_agent", "ask", query, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    steps = [json.loads(line) for line in result.stdout.splitlines()]
    action = next(step for step in steps if step["stepType"] == "STEP_TYPE_ACTION")
    assert (action["tool"], action["arguments"]["city"]) == (tool, city)
    assert steps[-1]["stepType"] == "STEP_TYPE_FINAL_ANSWER"
    assert said in steps[-1]["content"]


def test_shipped_router_picks_the_place(tmp_path: Path) -> None:
    if not (DEFAULT_MODEL_DIR / "router.json").is_file():
        pytest.skip("shipped router not built")
    router = Router.load()
    decision = router.decide("will it rain in springfield illinois tomorrow")
    assert (decision.route, decision.arguments) == (
        "edge",
        {"city": "springfield, illinois", "day": "tomorrow"},
    )


def _qualifier_words() -> list[str]:
    own, other = _regions()
    return sorted({n for names in own.values() for n in names} | other)


_SEPARATORS = [" ", " ", ", ", ",", " (", ") ", " in ", "  ", ". ", "? ", "\t", " - "]
_WORDS = ["in", "the", "on", "or", "new", "us", "weather", "time", "and", "paris", "toronto",
          "new york", "hong kong", "tromsø", "é", "it's", "u.s.", "Saint", "wales"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_SEPARATORS),
            st.sampled_from(_qualifier_words()) | st.sampled_from(_WORDS) | st.text(max_size=4),
            st.sampled_from([str.lower, str.upper, str.title, str.capitalize]),
        ),
        max_size=6,
    )
)
def test_the_qualifier_look_up_never_skips_a_region(
    parts: list[tuple[str, str, object]],
) -> None:
    """Where the cheap look-up says no name of a region starts in the text, the pattern
    finds none that reads as a qualifier, and no region's full name (only codes that
    count in capitals, in lower case), so skipping the pattern changes nothing."""
    text = "weather" + "".join(sep + case(word) for sep, word, case in parts)  # type: ignore[operator]
    if _may_name_a_qualifier(text):
        return
    for match in _qualifier_pattern().finditer(text):
        found = _qualifier(match)
        assert found.is_code and not found.reads_as_qualifier, (text, found)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(_index().big)) | st.sampled_from(["tokio", "pariss", "londn", "x"]),
    st.lists(st.tuples(st.integers(0, 30), st.sampled_from("aeiourstn -")), max_size=3),
    st.sampled_from([0.6, 0.7, 0.8]),
)
def test_the_fuzzy_match_is_difflibs_over_the_whole_pool(
    name: str, edits: list[tuple[int, str]], cutoff: float
) -> None:
    """The pools by length leave out only names difflib itself drops at its first test."""
    import difflib

    chunk = name
    for at, letter in edits:
        chunk = chunk[:at] + letter + chunk[at + 1 :]
    several = " " in chunk
    pool = [
        big
        for big in _index().big
        if (" " in big) == several and (big[:1] == chunk[:1] or big[1:2] == chunk[1:2])
    ]
    best = difflib.get_close_matches(chunk, pool, n=1, cutoff=cutoff)
    if chunk not in _index().near_misses:
        assert _fuzzy(chunk, several, cutoff) == (best[0] if best else None)


@pytest.mark.parametrize(
    ("written", "key"),
    [
        ("Cologne", "cologne"),
        ("Köln", "cologne"),
        ("koeln", "cologne"),
        ("Seville", "seville"),
        ("Sevilla", "seville"),
        ("Ghent", "ghent"),
        ("Bruges", "bruges"),
        ("Basle", "basel"),
        ("Oporto", "porto"),
    ],
)
def test_a_city_has_its_english_name_and_its_own(written: str, key: str) -> None:
    """A city argument is the English name; the city's own name reads as it too."""
    assert resolve_city(written) == key
    assert place(key) is not None


@pytest.mark.parametrize(
    ("text", "cities"),
    [
        ("is lisbon or porto warmer", ["lisbon", "porto"]),
        ("zurich or geneva tomorrow", ["zurich", "geneva"]),
        ("rome, nice and paris", ["rome", "nice", "paris"]),
        ("is it warmer in lisbon than porto", ["lisbon", "porto"]),
        ("is seattle wetter than portland", ["seattle", "portland"]),
        ("is it wetter in trier than in bonn", ["trier", "bonn"]),
        ("the weather is nice and sunny", []),
        ("reading or writing", []),
        ("is rome warmer on friday than on monday", ["rome"]),
        ("marseille on tuesday and nice on thursday", ["marseille", "nice"]),
        ("paris tomorrow or nice", ["paris", "nice"]),
        ("rome on friday and reading on sunday", ["rome", "reading"]),
    ],
)
def test_a_list_of_places_is_all_places(text: str, cities: list[str]) -> None:
    """A city whose name is an everyday word counts when a list joins it to a city, and a
    comparative ("wetter") or the words around a name ("than on") are no city."""
    assert [city for _, city in find_cities(text)] == cities
