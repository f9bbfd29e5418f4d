"""The planner on places outside the 44 cities: declined by name, never dropped in silence."""

from __future__ import annotations

import pytest

from cloud_agent.evaluation import run_query, scratch_memory
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.reasoner import PlannerReasoner
from cloud_agent.tools import local_registry


def calls(query: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in make_plan(query).calls]


@pytest.mark.parametrize(
    ("query", "places"),
    [
        ("what's the weather in Narnia and in Rome tomorrow", ["Narnia"]),
        ("weather in berlin and narnia", ["Narnia"]),
        ("weather in narnia, rome and paris", ["Narnia"]),
        ("is Gondolin colder than Moscow today", ["Gondolin"]),
        ("which is warmer, Rome or Mordor", ["Mordor"]),
        ("Gotham weather tomorrow", ["Gotham"]),
        ("weather in Paris and what about Hogsmeade", ["Hogsmeade"]),
        ("weather in Rome today and Westeros tomorrow", ["Westeros"]),
        ("how hot is Lilliput today", ["Lilliput"]),
        ("weather in Madrid, Rivendell and Neverland", ["Rivendell", "Neverland"]),
        ("turn off the lights and what's the weather in Wakanda", ["Wakanda"]),
        ("weather in emerald city and paris", ["Emerald City"]),
        ("what's the temperature in Brigadoon in fahrenheit", ["Brigadoon"]),
    ],
)
def test_an_unknown_place_declines_the_request_by_name(query: str, places: list[str]) -> None:
    plan = make_plan(query)
    assert plan.calls == []
    assert plan.refusal_kind == "unknown_place"
    assert plan.refusal is not None
    assert f"a forecast for {' and '.join(places)}" in plan.refusal
    assert "cities of GeoNames" in plan.refusal


@pytest.mark.parametrize(
    ("query", "place"),
    [
        ("what time is it in Narnia", "Narnia"),
        ("what's the time in asgard and in london", "Asgard"),
        ("time in Camelot vs Tokyo", "Camelot"),
        ("what time is it in Emerald City", "Emerald City"),
        ("whats the time in xanadu rn", "Xanadu"),
    ],
)
def test_an_unknown_place_for_the_clock(query: str, place: str) -> None:
    plan = make_plan(query)
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    assert f"the local time in {place}" in (plan.refusal or "")


def test_the_message_says_whether_the_rest_was_left_unanswered() -> None:
    alone = make_plan("weather in Narnia").refusal or ""
    assert "I won't guess" in alone and "rest of the request" not in alone
    mixed = make_plan("weather in Narnia and Rome").refusal or ""
    assert "rest of the request" in mixed


def test_a_near_miss_below_the_cut_off_is_named_not_guessed() -> None:
    plan = make_plan("weather in narnia and rom tomorrow")
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    assert "Narnia and Rom" in (plan.refusal or "")
    assert "Rome for Rom?" in (plan.refusal or "")


@pytest.mark.parametrize(
    ("query", "cities"),
    [
        ("weather in Pariss and Tokio", ["paris", "tokyo"]),
        ("what time is it in Tokio", ["tokyo"]),
        ("is Berln colder than Moscow today", ["berlin", "moscow"]),
        ("weather in Sydny and Melbourne", ["sydney", "melbourne"]),
        ("weather in nyc and la tomorrow", ["new york", "los angeles"]),
        ("how's the weather in Bombay", ["mumbai"]),
        ("weather in Mexico City and Buenos Aires", ["mexico city", "buenos aires"]),
    ],
)
def test_misspelt_and_other_names_of_known_cities_still_resolve(
    query: str, cities: list[str]
) -> None:
    plan = make_plan(query)
    assert plan.refusal is None
    assert [c.args["city"] for c in plan.calls] == cities


@pytest.mark.parametrize(
    "query",
    [
        "what's the weather like in Paris for the game on friday",
        "is it going to rain in London at lunchtime",
        "weather in Seattle in celsius",
        "what's the weather like at the beach in Sydney",
        "is it raining in Madrid at the moment",
        "how cold is it in Moscow at night",
        "weather for biking tomorrow in london",
        "what's the weather in Berlin Germany",
        "weather in paris or somewhere else",
        "colder than usual in moscow",
        "check the Rome forecast for tomorrow",
        "what's the weather in Berlin and will Tom need an umbrella",
    ],
)
def test_days_units_and_everyday_words_are_not_places(query: str) -> None:
    plan = make_plan(query)
    assert plan.refusal is None and plan.calls


def test_rooms_and_free_text_are_not_places() -> None:
    assert calls("turn on the lights in the office and what's the weather in Rome") == [
        ("device_control", {"device": "light", "action": "on", "room": "office"}),
        ("get_weather", {"city": "rome", "day": "today"}),
    ]
    got = calls("add a note: flight to Narnia on Friday, and the weather in Rome")
    assert [t for t, _ in got] == ["add_note", "get_weather"]
    got = calls("what's the weather in Paris, and search my notes for Narnia trip")
    assert got[1] == ("search_notes", {"query": "Narnia trip"})  # as written


def test_a_corrected_place_is_not_unknown() -> None:
    got = calls("gimme the weather in Narnia... i mean Stockholm, and Amsterdam")
    assert [a["city"] for _, a in got] == ["stockholm", "amsterdam"]


@pytest.mark.parametrize(
    ("query", "places"),
    [
        # Issue 6: a place written right after a known city, with no separator.
        ("weather in Rome Xanadu", ["Xanadu"]),
        ("weather in Berlin Erewhon tomorrow", ["Erewhon"]),
        ("weather in madrid elbonia", ["Elbonia"]),
        ("weather in berlin utopia and rome", ["Utopia"]),
        ("turn off the fan and weather in Chicago Bedrock", ["Bedrock"]),
        ("weather in Rome Agrabah Paris", ["Agrabah"]),
        ("is it sunny in Dubai Lilliput", ["Lilliput"]),
    ],
)
def test_a_place_right_after_a_known_city_is_not_dropped(query: str, places: list[str]) -> None:
    plan = make_plan(query)
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    assert f"a forecast for {' and '.join(places)}" in (plan.refusal or "")


@pytest.mark.parametrize(
    ("query", "written"),
    [
        ("weather in Seoul Paris Nevada", "Paris, Nevada"),
        ("weather in Rome London in Manitoba", "London, Manitoba"),
        ("weather in Madrid Sydney Alberta tomorrow", "Sydney, Alberta"),
    ],
)
def test_a_known_name_in_another_region_after_a_known_city_is_named(
    query: str, written: str
) -> None:
    plan = make_plan(query)
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    assert f"a forecast for {written}" in (plan.refusal or "")


@pytest.mark.parametrize(
    ("query", "cities"),
    [
        ("weather in Seoul Paris Texas", ["seoul", "paris, texas"]),
        ("weather in Rome London in Ontario", ["rome", "london, ontario"]),
        ("weather in Madrid Sydney Nova Scotia tomorrow", ["madrid", "sydney, nova scotia"]),
    ],
)
def test_a_city_a_region_picks_after_a_known_city_is_planned(query: str, cities: list[str]) -> None:
    plan = make_plan(query)
    assert [c.args["city"] for c in plan.calls] == cities, plan.refusal


def test_a_place_right_after_a_known_city_on_the_clock() -> None:
    plan = make_plan("what time is it in Tokyo Xanadu")
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"
    assert "the local time in Xanadu" in (plan.refusal or "")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("weather in Madrid Cairo", [("get_weather", "madrid"), ("get_weather", "cairo")]),
        ("time in Berlin Sydney now", [("world_clock", "berlin"), ("world_clock", "sydney")]),
        ("weather in Cairo Egypt tomorrow", [("get_weather", "cairo")]),
        ("weather in Berlin thx", [("get_weather", "berlin")]),
        ("is it dark in sydney already", [("world_clock", "sydney")]),
        ("weather in madrid tomorrow morning", [("get_weather", "madrid")]),
        (
            "weather in seoul together with the weather in berlin",
            [("get_weather", "seoul"), ("get_weather", "berlin")],
        ),
    ],
)
def test_known_cities_and_words_after_them_still_plan(
    query: str, expected: list[tuple[str, str]]
) -> None:
    plan = make_plan(query)
    assert plan.refusal is None
    assert [(c.tool, c.args["city"]) for c in plan.calls] == expected


def test_open_knowledge_about_a_place_stays_an_llm_request() -> None:
    plan = make_plan("what's the best time to visit Narnia")
    assert plan.calls == [] and plan.refusal_kind == "needs_llm"


def test_the_final_answer_carries_the_refusal_kind() -> None:
    reasoner = PlannerReasoner()
    with scratch_memory() as memory:
        tools = local_registry(memory)
        query = "what's the weather in Narnia and in Rome tomorrow"
        outcome = run_query(reasoner, tools, query, "s")
        assert outcome.refused and outcome.calls == []
        assert "Narnia" in outcome.answer
        known = run_query(reasoner, tools, "weather in Pariss and in Rome tomorrow", "t")
        assert not known.refused
        assert [a["city"] for _, a in known.calls] == ["paris", "rome"]
    step = reasoner.next_steps(_Context("what time is it in Narnia"))[0]
    assert step.metadata["refusal"] == "unknown_place"
    step = reasoner.next_steps(_Context("Who wrote War and Peace?"))[0]
    assert step.metadata["refusal"] == "needs_llm"


class _Context:
    """The little of a ReasoningContext a declined query reads."""

    def __init__(self, query: str) -> None:
        self.query = query
        self.history: list[object] = []
        self.turn_id = ""
        self.tools: dict[str, object] = {}
        self.metadata: dict[str, str] = {}


@pytest.mark.parametrize(
    ("query", "day"),
    [
        ("what's the weather like in Paris the weekend after next", "the weekend after next"),
        ("will it rain in lisbon next week", "next week"),
        ("weather in Oslo yesterday", "yesterday"),
        ("weather in Rome next friday", "next friday"),
    ],
)
def test_a_day_the_forecast_cannot_serve_is_declined_by_name(query: str, day: str) -> None:
    plan = make_plan(query)
    assert plan.calls == [] and plan.refusal_kind == "unserved_day"
    assert f"a forecast for {day}:" in (plan.refusal or "")


def test_weekdays_within_the_week_are_planned() -> None:
    assert calls("weather in Oslo on friday and in Lima on sunday") == [
        ("get_weather", {"city": "oslo", "day": "friday"}),
        ("get_weather", {"city": "lima", "day": "sunday"}),
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "What's the forecast for Marseille on Tuesday and Nice on Thursday?",
            [("marseille", "tuesday"), ("nice", "thursday")],
        ),
        (
            "weather in rome tomorrow, and reading on friday",
            [("rome", "tomorrow"), ("reading", "friday")],
        ),
        ("weather in paris today and nice of you to ask", [("paris", "today")]),
    ],
)
def test_a_list_of_places_may_name_a_city_by_an_everyday_word(
    query: str, expected: list[tuple[str, str]]
) -> None:
    """The next place of a list, each with its own day, is a city even when its name is an
    everyday word ("Nice", "Reading"); words that only follow the list are not."""
    assert [(c["city"], c["day"]) for _, c in calls(query)] == expected
