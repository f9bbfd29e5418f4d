"""The planner on a city followed by its country or region ("Cairo, Egypt"): one place, read
with the edge's gazetteer; a region where another city of the name lies picks it ("Paris,
Texas": the call's city is "paris, texas"); a known name in a region with no such city
("Paris, Nevada") is declined by name, never taken for the city the tools know."""

from __future__ import annotations

import pytest

from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.qualifiers import read_qualifiers


def calls(query: str) -> list[tuple[str, dict[str, object]]]:
    plan = make_plan(query)
    assert plan.refusal is None, plan.refusal
    return [(c.tool, c.args) for c in plan.calls]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("weather in Cairo, Egypt", [("get_weather", {"city": "cairo", "day": "today"})]),
        ("time in Nairobi, Kenya", [("world_clock", {"city": "nairobi"})]),
        (
            "Lagos, Nigeria weather tomorrow",
            [("get_weather", {"city": "lagos", "day": "tomorrow"})],
        ),
        ("what time is it in Vancouver, BC", [("world_clock", {"city": "vancouver"})]),
        (
            "forecast for Auckland (New Zealand)",
            [("get_weather", {"city": "auckland", "day": "today"})],
        ),
        ("weather in Madrid Spain tmrw", [("get_weather", {"city": "madrid", "day": "tomorrow"})]),
        ("weather in Seoul in South Korea", [("get_weather", {"city": "seoul", "day": "today"})]),
        # A chain of qualifiers is one place.
        ("what's the time in Toronto, Ontario, Canada", [("world_clock", {"city": "toronto"})]),
        (
            "weather in San Francisco, California, USA tomorrow",
            [("get_weather", {"city": "san francisco", "day": "tomorrow"})],
        ),
    ],
)
def test_a_city_with_its_country_or_region_is_that_city(
    query: str, expected: list[tuple[str, dict[str, object]]]
) -> None:
    assert calls(query) == expected


def test_compound_queries_still_split_into_their_parts() -> None:
    assert calls("weather in Stockholm, Sweden and convert 3 kg to pounds") == [
        ("get_weather", {"city": "stockholm", "day": "today"}),
        ("unit_convert", {"value": 3, "from_unit": "kg", "to_unit": "lb"}),
    ]
    assert calls("time in Osaka, Japan, then set a timer for 4 minutes") == [
        ("world_clock", {"city": "osaka"}),
        ("set_timer", {"seconds": 240}),
    ]
    assert calls("is Melbourne, Australia warmer than Delhi, India today") == [
        ("get_weather", {"city": "melbourne", "day": "today"}),
        ("get_weather", {"city": "delhi", "day": "today"}),
    ]
    assert calls("weather in Chicago, IL and the time in Istanbul, Turkey") == [
        ("get_weather", {"city": "chicago", "day": "today"}),
        ("world_clock", {"city": "istanbul"}),
    ]


def test_cities_listed_after_a_city_are_not_its_region() -> None:
    # A region that is also a known city reads as the list it more likely is.
    got = calls("weather in Amsterdam, New York and Tokyo")
    assert [a["city"] for _, a in got] == ["amsterdam", "new york", "tokyo"]
    got = calls("weather in Berlin, Singapore and Wuhan")
    assert [a["city"] for _, a in got] == ["berlin", "singapore", "wuhan"]
    got = calls("is Sao Paulo or Mexico City warmer")
    assert [a["city"] for _, a in got] == ["sao paulo", "mexico city"]
    got = calls("time in Hong Kong and Singapore and in Cairo, Egypt")
    assert [a["city"] for _, a in got] == ["hong kong", "singapore", "cairo"]


def test_an_abbreviation_that_is_an_everyday_word_is_not_a_region() -> None:
    assert calls("time in Toronto on a weekday") == [("world_clock", {"city": "toronto"})]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "what's the weather in Paris, Texas",
            [("get_weather", {"city": "paris, texas", "day": "today"})],
        ),
        (
            "weather in Moscow, Idaho tomorrow",
            [("get_weather", {"city": "moscow, idaho", "day": "tomorrow"})],
        ),
        ("weather in Rome (Georgia)", [("get_weather", {"city": "rome, georgia", "day": "today"})]),
        (
            "weather in Melbourne Florida",
            [("get_weather", {"city": "melbourne, florida", "day": "today"})],
        ),
        ("time in London, Ontario", [("world_clock", {"city": "london, ontario"})]),
        ("weather in Paris, TX", [("get_weather", {"city": "paris, texas", "day": "today"})]),
        (
            "weather in Vancouver, Washington and time in Springfield, Illinois",
            [
                ("get_weather", {"city": "vancouver, washington", "day": "today"}),
                ("world_clock", {"city": "springfield, illinois"}),
            ],
        ),
        (
            "weather in Paris, Texas and in Paris",  # the two Parises, each its own
            None,
        ),
    ],
)
def test_a_region_where_another_city_of_the_name_lies_picks_it(
    query: str, expected: list[tuple[str, dict[str, object]]] | None
) -> None:
    plan = make_plan(query)
    if expected is None:  # written bare and with a region: which is which is no guess
        assert plan.calls == [] and plan.refusal_kind == "unknown_place"
        assert "Paris, Texas" in (plan.refusal or "")
        return
    assert [(c.tool, c.args) for c in plan.calls] == expected, plan.refusal


@pytest.mark.parametrize(
    ("query", "place", "city"),
    [
        ("weather in Paris, Nevada", "Paris, Nevada", "Paris"),
        ("Dubai, Ohio weather", "Dubai, Ohio", "Dubai"),
        ("weather in Berlin, Vermont, USA", "Berlin, Vermont", "Berlin"),
    ],
)
def test_a_known_name_in_another_region_is_declined_by_name(
    query: str, place: str, city: str
) -> None:
    plan = make_plan(query)
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    refusal = plan.refusal or ""
    assert f"a forecast for {place}:" in refusal
    assert f"{place} is not the {city} I know." in refusal
    assert "Did you mean" not in refusal


def test_the_clock_and_compound_requests_with_another_place_are_declined_whole() -> None:
    plan = make_plan("time in Toronto, Texas")
    assert plan.refusal_kind == "unknown_place"
    assert "the local time in Toronto, Texas" in (plan.refusal or "")
    plan = make_plan("weather in Delhi, Louisiana and in Tokyo, Japan")
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    assert "a forecast for Delhi, Louisiana:" in (plan.refusal or "")
    assert "rest of the request" in (plan.refusal or "")
    plan = make_plan("turn off the fan and tell me the weather in Toronto, Ohio")
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    assert "Toronto, Ohio" in (plan.refusal or "")


def test_another_place_in_free_text_is_kept_as_written() -> None:
    assert calls("add a note: call Ana in Paris, Texas on Monday") == [
        ("add_note", {"text": "call ana in paris, texas on monday"})
    ]


def test_read_qualifiers() -> None:
    read = read_qualifiers("time in Toronto, ON and in Paris, Kentucky, USA please")
    assert read.text == "time in Toronto and in Elsewhereqa please"
    assert read.others == {"elsewhereqa": "Paris, Kentucky"}
    assert read.restore("notes on elsewhereqa") == "notes on paris, kentucky"
    plain = read_qualifiers("weather in Narnia, Norway")
    assert plain.text == "weather in Narnia, Norway" and plain.others == {}
    assert read_qualifiers("weather in Oslo, Norway").text == "weather in Oslo"
    assert read_qualifiers("colder tomorrow, stockholm, or moscow").others == {}
    picked = read_qualifiers("weather in Paris, TX")
    assert (picked.text, picked.others, picked.picked) == (
        "weather in Paris",
        {},
        {"paris": "paris, texas"},
    )
    assert picked.restore("notes on paris") == "notes on paris, tx"
    assert read_qualifiers("weather in Paris, TX", pick=False).others == {
        "elsewhereqa": "Paris, TX"
    }
