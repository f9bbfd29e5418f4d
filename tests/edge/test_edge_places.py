"""A city followed by its country or region ("Cairo, Egypt"), and one that is another place.

The examples are written for these tests from general geography, not taken from any eval
set.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from understanding.arguments import extract_arguments
from understanding.arguments.places import one_city
from understanding.gazetteer import (
    find_cities,
    other_place,
    qualifiers_after,
    region_in,
    strip_qualifiers,
)
from understanding.router import DEFAULT_MODEL_DIR, Router


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("weather in Cairo, Egypt", "weather in Cairo"),
        ("what time is it in Lagos, Nigeria?", "what time is it in Lagos?"),
        ("forecast for Sydney Australia tomorrow", "forecast for Sydney tomorrow"),
        ("time in Vancouver, British Columbia, Canada", "time in Vancouver"),
        ("is it raining in Chicago, IL", "is it raining in Chicago"),
        ("is it raining in chicago, il", "is it raining in chicago"),
        ("weather in Seattle WA", "weather in Seattle"),
        ("how cold is it in Auckland (New Zealand)", "how cold is it in Auckland"),
        ("time in New York, NY right now", "time in New York right now"),
        ("weather in São Paulo, Brazil", "weather in São Paulo"),
        ("weather in Istanbul, Türkiye", "weather in Istanbul"),
        ("weather in Pariss, France", "weather in Pariss"),  # a typo in the city
        ("weather in londn uk", "weather in londn"),
        # Not qualifiers: an everyday word, an unknown city, two cities.
        ("weather in Toronto on Friday", "weather in Toronto on Friday"),
        ("weather in Chicago for us", "weather in Chicago for us"),
        ("time in Portland, Oregon", "time in Portland"),
        ("time in Portland, Maine", "time in Portland, Maine"),
        ("weather in Rome and Paris", "weather in Rome and Paris"),
        ("the capital of Egypt", "the capital of Egypt"),
    ],
)
def test_strip_qualifiers(text: str, plain: str) -> None:
    assert strip_qualifiers(text) == plain


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("weather in Paris, Texas", "Paris, Texas"),
        ("time in London Ontario", "London, Ontario"),
        ("is it sunny in Melbourne, Florida", "Melbourne, Florida"),
        ("what time is it in Rome, Georgia", "Rome, Georgia"),
        ("weather in Sydney, Nova Scotia", "Sydney, Nova Scotia"),
        ("time in Moscow, Idaho", "Moscow, Idaho"),
        ("weather in Cairo, Egypt", None),
        ("weather in Paris", None),
        ("time in Toronto, Ontario", None),
    ],
)
def test_other_place(text: str, place: str | None) -> None:
    assert other_place(text) == place


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("weather in Cairo, Egypt", "cairo"),
        ("time in Toronto, Ontario, Canada", "toronto"),
        ("in Sydney Australia", "sydney"),
        ("New York, USA", "new york"),
        ("Paris, France and Rome, Italy", None),  # two cities
        ("weather in Paris, Texas", "paris, texas"),  # another Paris
        ("weather in Portland, Oregon", "portland"),  # the biggest Portland
        ("weather in Portland, Maine", "portland, maine"),  # another Portland
        ("weather in Paris, Nevada", None),  # no Paris of 15,000 people in Nevada
        ("weather in Paris and Paris, Texas", None),  # two places
    ],
)
def test_one_city_reads_through_qualifiers(text: str, city: str | None) -> None:
    assert one_city(text) == city


def test_arguments_of_qualified_cities() -> None:
    assert extract_arguments("get_weather", "will it snow in Seoul, South Korea tomorrow") == {
        "city": "seoul",
        "day": "tomorrow",
    }
    assert extract_arguments("world_clock", "local time in Mumbai, Maharashtra, India") == {
        "city": "mumbai"
    }
    assert extract_arguments("get_weather", "weather in Berlin, New Hampshire") is None


@pytest.fixture(scope="module")
def shipped() -> Router:
    return Router.load()


def test_router_reads_the_query_without_the_qualifier(stub_router: Router) -> None:
    decision = stub_router.decide("what's the weather in Nairobi, Kenya")
    assert (decision.route, decision.tool, decision.arguments) == (
        "edge",
        "get_weather",
        {"city": "nairobi", "day": "today"},
    )
    decision = stub_router.decide("what's the time in Osaka, Japan")
    assert (decision.route, decision.tool, decision.arguments) == (
        "edge",
        "world_clock",
        {"city": "osaka"},
    )


def test_router_answers_another_city_of_the_name(stub_router: Router) -> None:
    decision = stub_router.decide("what's the weather in Paris, Texas")
    assert (decision.route, decision.arguments) == (
        "edge",
        {"city": "paris, texas", "day": "today"},
    )


def test_router_sends_a_place_it_does_not_know_to_the_cloud(stub_router: Router) -> None:
    decision = stub_router.decide("what's the weather in Paris, Nevada")
    assert decision.route == "cloud"
    assert decision.reason == "Paris, Nevada is not a city the device knows"


@pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "router.json").is_file(), reason="shipped router not built"
)
@pytest.mark.parametrize(
    ("text", "route", "args"),
    [
        ("weather in Cairo, Egypt", "edge", {"city": "cairo", "day": "today"}),
        ("what's the weather like in Madrid, Spain", "edge", {"city": "madrid", "day": "today"}),
        ("what time is it in Tokyo, Japan", "edge", {"city": "tokyo"}),
        ("weather in Paris, Texas", "edge", {"city": "paris, texas", "day": "today"}),
        ("what time is it in Portland, Maine", "edge", {"city": "portland, maine"}),
        ("weather in Paris, Nevada", "cloud", None),
    ],
)
def test_shipped_router_with_qualified_cities(
    shipped: Router, text: str, route: str, args: dict[str, str] | None
) -> None:
    decision = shipped.decide(text)
    assert (decision.route, decision.arguments) == (route, args), decision.reason


# -- lists, aliases and "<city> in <region>" (issues 5, 6) ------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [
        # A city part that ends in a list word, or a "region" that is a known city or the
        # start of one, is a list of cities, not a city and its region.
        ("weather in Hong Kong and Singapore", None),
        ("is Sao Paulo or Mexico City warmer", None),
        ("time in Buenos Aires, Singapore and Osaka", None),
        ("weather in Lagos, Mexico City", None),
        ("weather in Hong Kng or Canada", None),
        # An alias is as many words as written.
        ("weather in NYC, Texas", "NYC, Texas"),
        ("time in LA, Chile", "LA, Chile"),
        # "<city> in <region>".
        ("weather in Paris in Texas", "Paris, Texas"),
        ("is it cold in Sydney in Nova Scotia", "Sydney, Nova Scotia"),
        ("time in Seoul in South Korea", None),
    ],
)
def test_other_place_reads_lists_aliases_and_in(text: str, place: str | None) -> None:
    assert other_place(text) == place


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("weather in Seoul in South Korea", "weather in Seoul"),
        ("time in Melbourne in Australia tomorrow", "time in Melbourne tomorrow"),
        ("weather in Toronto (on)", "weather in Toronto"),
        # After "in", only a full name: "on" is a word here, "March" no region.
        ("weather in Toronto in on", "weather in Toronto in on"),
        ("weather in Rome in March", "weather in Rome in March"),
        ("time in Singapore, Singapore", "time in Singapore"),
        ("weather in Mexico City, Mexico", "weather in Mexico City"),
        ("weather in Hong Kong and Singapore", "weather in Hong Kong and Singapore"),
    ],
)
def test_strip_qualifiers_after_in_and_in_lists(text: str, plain: str) -> None:
    assert strip_qualifiers(text) == plain


def test_qualifiers_after_reads_a_chain() -> None:
    text = "weather in Moscow, Idaho, USA on Friday"
    chain = qualifiers_after(text, text.index(","))
    assert [(q.written, q.separator) for q in chain] == [("Idaho", ","), ("USA", ",")]
    assert text[chain[-1].end :] == " on Friday"
    # A lower-case abbreviation after a space is a word of the sentence.
    assert qualifiers_after("Toronto on Friday", len("Toronto")) == []
    assert [q.separator for q in qualifiers_after("Cairo in Egypt", 5)] == ["in"]
    assert qualifiers_after("Toronto in ON", len("Toronto")) == []


@pytest.mark.parametrize(
    ("text", "region"),
    [
        ("will it rain in Hong Kong or Texas", "Texas"),
        ("time in Osaka and Nova Scotia", "Nova Scotia"),
        ("time in Mexico City and Singapore", None),
        ("weather in Toronto on Friday", None),
    ],
)
def test_region_in(text: str, region: str | None) -> None:
    assert region_in(text) == region


def test_a_city_in_brackets_is_a_city() -> None:
    assert one_city("weather in Rome (Tokyo)") is None
    assert one_city("weather in Madrid (Spain)") == "madrid"


def test_router_on_lists_and_regions_after_in(stub_router: Router) -> None:
    decision = stub_router.decide("weather in Hong Kong and Singapore")
    assert decision.route == "cloud" and decision.arguments is None
    assert "Kong and" not in decision.reason
    decision = stub_router.decide("weather in Seoul in South Korea")
    assert (decision.route, decision.tool, decision.arguments) == (
        "edge",
        "get_weather",
        {"city": "seoul", "day": "today"},
    )
    decision = stub_router.decide("weather in Paris in Texas")
    assert (decision.route, decision.arguments) == (
        "edge",
        {"city": "paris, texas", "day": "today"},
    )
    decision = stub_router.decide("weather in Paris in Nevada")
    assert decision.route == "cloud"
    assert decision.reason == "Paris, Nevada is not a city the device knows"
    decision = stub_router.decide("weather in NYC, Texas")
    assert decision.reason == "NYC, Texas is not a city the device knows"
    decision = stub_router.decide("weather in Lagos or Alberta")
    assert decision.route == "cloud"
    assert decision.reason == "Alberta is not a city the device knows"


@pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "router.json").is_file(), reason="shipped router not built"
)
@pytest.mark.parametrize(
    ("text", "route", "args"),
    [
        ("weather in Hong Kong and Singapore", "cloud", None),
        ("is Sao Paulo or Mexico City warmer", "cloud", None),
        ("weather in Seoul in South Korea", "edge", {"city": "seoul", "day": "today"}),
        ("what time is it in Nairobi in Kenya", "edge", {"city": "nairobi"}),
        (
            "weather in Sydney in Nova Scotia",
            "edge",
            {"city": "sydney, nova scotia", "day": "today"},
        ),
        ("weather in Sydney in Manitoba", "cloud", None),
        ("what time is it in Toronto in Texas", "cloud", None),
        ("will it rain in Seoul or Texas tomorrow", "cloud", None),
        ("what time is it in Berlin (Tokyo)", "cloud", None),
    ],
)
def test_shipped_router_on_lists_and_regions_after_in(
    shipped: Router, text: str, route: str, args: dict[str, str] | None
) -> None:
    decision = shipped.decide(text)
    assert (decision.route, decision.arguments) == (route, args), decision.reason


# -- the GeoNames gazetteer (issue 12) --------------------------------------------------


def test_every_geonames_city_is_known_with_its_zone_and_place() -> None:
    from understanding.gazetteer import cities, place, resolve_city

    assert len(cities()) > 30_000
    oslo = place("oslo")
    assert oslo is not None and oslo.country == "NO" and oslo.timezone == "Europe/Oslo"
    assert abs(oslo.latitude - 59.9) < 0.2
    assert resolve_city("Tromsø") == "tromso"
    assert resolve_city("São Paulo") == "sao paulo"
    assert resolve_city("Reykjavík") == "reykjavik"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("weather in nice tomorrow", ["nice"]),
        ("the weather is nice today", []),  # an everyday word, where no place stands
        ("what time is it in reading", ["reading"]),
        ("what time is it", []),  # "Time" is a town in Norway
        ("turn on the lights in the kitchen", []),  # "turn" is no misspelt Turin
        ("will it rain in lisbon this week", ["lisbon"]),  # "this" is no Thies
        ("what's the weather like on Jupiter", []),  # no city is "on" a name
        ("weather in stokholm", ["stockholm"]),  # a big city's misspelling resolves
        ("weather in hong kong and new yrok", ["hong kong", "new york"]),
    ],
)
def test_cities_in_running_text(text: str, found: list[str]) -> None:
    assert [city for _, city in find_cities(text)] == found


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("weather in Portland, Maine", "Portland, Maine"),
        ("weather in Paris, TX", "Paris, TX"),
        ("is it sunny in Melbourne, Florida", "Melbourne, Florida"),  # a town is Florida too
        ("time in Houston, Texas", None),  # Houston's own state
        ("weather in Portland, Oregon", None),  # the biggest Portland's
        ("colder tomorrow, stockholm, or moscow", None),  # "or" is no Oregon in lower case
    ],
)
def test_regions_of_the_gazetteer(text: str, place: str | None) -> None:
    assert other_place(text) == place


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,?'", max_size=60))
@settings(max_examples=200, deadline=None)
def test_found_cities_are_known(text: str) -> None:
    from understanding.gazetteer import cities

    known = cities()
    assert all(city in known for _, city in find_cities(text))
