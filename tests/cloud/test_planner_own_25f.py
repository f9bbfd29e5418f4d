"""Kinds of misplanning found by the sixth own compound set (examples/compound_own_25f
.jsonl, written before any change for it): a timer called off, a timer's name, a part no
tool serves swallowed by the model's one intent, a device word that is a thing bought
(issue 25)."""

from __future__ import annotations

import pytest

from cloud_agent.planner.plan import make_plan
from understanding.arguments.timer_labels import timer_label


def calls(planner_router: object, words: str, *, model: bool = True) -> list[tuple[str, object]]:
    plan = make_plan(words, router=planner_router, split_with_model=model)
    return [(c.tool, c.args) for c in plan.calls]


@pytest.mark.parametrize("model", [True, False])
def test_a_timer_called_off_is_cancelled_not_set(planner_router: object, model: bool) -> None:
    assert calls(
        planner_router, "cancel the pasta timer and whats the time in rome", model=model
    ) == [
        ("cancel_timer", {"label": "pasta"}),
        ("world_clock", {"city": "rome"}),
    ]
    assert calls(planner_router, "cancel the next timer and then set a new one for 8 minutes") == [
        ("cancel_timer", {"next": True}),
        ("set_timer", {"seconds": 480}),
    ]


@pytest.mark.parametrize(
    ("words", "label"),
    [
        ("set a tea timer for 4 minutes", "tea"),
        ("set a new pasta timer for 12 minutes", "pasta"),
        ("set a 3 minute timer called eggs", "eggs"),
        ("and a garlic bread one for 8", "garlic bread"),
        ("set an 8 hour alarm called wake up", "wake up"),
        ("set a timer for 10 minutes", None),
        ("set a ten minute timer", None),
        ("set a new one for 8 minutes", None),
        ("set the kitchen timer for 5", None),
    ],
)
def test_a_timer_is_named_by_the_words_around_it(words: str, label: str | None) -> None:
    assert timer_label(words) == label


def test_a_planned_timer_keeps_its_name(planner_router: object) -> None:
    planned = calls(
        planner_router, "set a tea timer for 4 minutes, then whats the weather in london"
    )
    assert ("set_timer", {"seconds": 240, "label": "tea"}) in planned


@pytest.mark.parametrize(
    "words",
    [
        "set a 40 minute timer and give me directions to the airport",
        "give me a recipe for banana bread and add bananas to my shopping list",
        "add eggs and spinach to the shopping list and tell me how to make a frittata",
        "buy more coffee pods on amazon and add coffee pods to the shopping list",
    ],
)
@pytest.mark.parametrize("model", [True, False])
def test_a_part_no_tool_serves_stops_the_plan_that_acts(
    planner_router: object, words: str, model: bool
) -> None:
    plan = make_plan(words, router=planner_router, split_with_model=model)
    assert plan.calls == [] and plan.refusal


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (
            "my rent is 900 a month, what is that per year, and add pay rent to my to do list",
            [("calculator", None), ("add_note", {"text": "pay rent", "list": "to do"})],
        ),
        (
            "i earn 52000 a year whats that per week and whats the weather in seattle",
            [("calculator", None), ("get_weather", {"city": "seattle", "day": "today"})],
        ),
        (
            "the bill is 96 and there are 4 of us, what does each person pay, and set a timer "
            "for 5 minutes",
            [("calculator", None), ("set_timer", {"seconds": 300})],
        ),
    ],
)
def test_a_stated_number_and_its_question_beside_other_requests(
    planner_router: object, words: str, expected: list[tuple[str, object]]
) -> None:
    planned = calls(planner_router, words)
    assert [(tool, None if tool == "calculator" else args) for tool, args in planned] == expected


def test_a_share_of_a_sum_never_drops_the_request_beside_it() -> None:
    from cloud_agent.planner.shapes import per_person_calls

    words = "the bill is 96 and there are 4 of us, what does each person pay, and set a timer"
    assert per_person_calls(words) is None
    assert per_person_calls("the bill is 96 and there are 4 of us, what does each person pay")


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (
            "clear the shopping list and then add rice and beans",
            [
                ("clear_list", {"list": "shopping"}),
                ("add_note", {"text": "rice", "list": "shopping"}),
                ("add_note", {"text": "beans", "list": "shopping"}),
            ],
        ),
        (
            "take eggs off the shopping list and add oat milk instead",
            [
                ("remove_note", {"text": "eggs", "list": "shopping"}),
                ("add_note", {"text": "oat milk", "list": "shopping"}),
            ],
        ),
        (
            "whats on my shopping list? also add coffee beans",
            [
                ("search_notes", {"list": "shopping"}),
                ("add_note", {"text": "coffee beans", "list": "shopping"}),
            ],
        ),
    ],
)
def test_an_addition_naming_no_list_goes_on_the_list_just_named(
    planner_router: object, words: str, expected: list[tuple[str, object]]
) -> None:
    assert calls(planner_router, words) == expected


def test_an_addition_with_no_list_before_it_is_no_list_item(planner_router: object) -> None:
    planned = calls(planner_router, "set a timer for 5 minutes and add bread")
    assert all(args.get("list") is None for _tool, args in planned if isinstance(args, dict))


def test_a_real_word_is_never_corrected_into_a_tool_word() -> None:
    from cloud_agent.planner.clauses import normalise
    from understanding.arguments.spelling import correct, is_english

    assert is_english("showing") and not is_english("wetaher")
    assert "snowing" not in normalise("buy two tickets for the 8pm showing of dune")
    assert normalise("whats the wether tomorow") == "what is the weather tomorrow"
    assert correct("calcualte 45 tims 3") == "calculate 45 times 3"


@pytest.mark.parametrize(
    "words",
    [
        "schedule a haircut for saturday morning and turn off the hallway light",
        "buy two tickets for the 8pm showing of dune and set a timer for 2 hours",
    ],
)
def test_a_time_of_day_said_is_no_question_of_the_clock(planner_router: object, words: str) -> None:
    from understanding.settings import Settings

    plan = make_plan(words, router=planner_router, home=Settings(home_city="london"))
    assert plan.calls == [] and plan.refusal


def test_a_time_of_day_in_a_city_still_asks_the_clock() -> None:
    from cloud_agent.planner.interpret import tool_cue

    assert tool_cue("is it morning in tokyo") == "world_clock"
    assert tool_cue("a haircut for saturday morning") is None


def test_timers_listed_in_one_clause_each_take_their_name(planner_router: object) -> None:
    words = "timers for the pasta 11 minutes and for the garlic bread 8 minutes"
    assert calls(planner_router, words) == [
        ("set_timer", {"seconds": 660, "label": "pasta"}),
        ("set_timer", {"seconds": 480, "label": "garlic bread"}),
    ]
    assert calls(planner_router, "set timers for 10 and 20 minutes") == [
        ("set_timer", {"seconds": 600}),
        ("set_timer", {"seconds": 1200}),
    ]


def test_a_command_on_it_keeps_the_room_of_the_device_before(planner_router: object) -> None:
    assert calls(planner_router, "unmute the kitchen speaker and turn it up a bit") == [
        ("device_control", {"device": "speaker", "action": "unmute", "room": "kitchen"}),
        ("device_control", {"device": "speaker", "action": "volume_up", "room": "kitchen"}),
    ]


@pytest.mark.parametrize(
    ("words", "cities"),
    [
        ("hey is it gonna be warmer here or in barcelona tomorrow", ["london", "barcelona"]),
        ("is it already tomorrow in auckland? whats the time here", ["auckland", "london"]),
        ("how many hours ahead of me is singapore", ["london", "singapore"]),
        ("is it colder in oslo than here", ["oslo", "london"]),
        ("will tomorrow be any cooler than today here in madrid", ["madrid", "madrid"]),
    ],
)
def test_here_is_the_devices_home_beside_the_places_named(
    planner_router: object, words: str, cities: list[str]
) -> None:
    from understanding.settings import Settings

    plan = make_plan(words, router=planner_router, home=Settings(home_city="london"))
    assert [c.args["city"] for c in plan.calls] == cities


@pytest.mark.parametrize(
    "words",
    [
        "gotham city weather",
        "gotham city - local time plus the forecast for tonight please",
        "narnia - whats the time",
    ],
)
def test_a_place_the_tagger_marks_that_no_gazetteer_knows_is_never_the_home(
    planner_router: object, words: str
) -> None:
    from understanding.settings import Settings

    plan = make_plan(words, router=planner_router, home=Settings(home_city="london"))
    assert plan.calls == [] and plan.refusal_kind == "unknown_place"


def test_a_slot_that_points_back_names_no_unknown_place(planner_router: object) -> None:
    words = "Look up the weather in Vienna today and the local time in that city."
    assert calls(planner_router, words) == [
        ("get_weather", {"city": "vienna", "day": "today"}),
        ("world_clock", {"city": "vienna"}),
    ]


@pytest.mark.parametrize(
    ("words", "planned"),
    [
        ("whats the time in japan", [("world_clock", {"city": "japan"})]),
        ("weather in nice in france", [("get_weather", {"city": "nice", "day": "today"})]),
        (
            "whats the weather in reading in berkshire",
            [("get_weather", {"city": "reading", "day": "today"})],
        ),
        ("time in california and the weather in tokyo", []),
    ],
)
def test_a_region_is_never_read_as_the_home_or_the_next_place(
    planner_router: object, words: str, planned: list[tuple[str, object]]
) -> None:
    from understanding.settings import Settings

    plan = make_plan(words, router=planner_router, home=Settings(home_city="london"))
    assert [(c.tool, c.args) for c in plan.calls] == planned


def test_running_the_vacuum_is_its_on_never_the_off_before_it(planner_router: object) -> None:
    assert calls(planner_router, "lights off in the hallway and run the vacuum for 45 minutes") == [
        ("device_control", {"device": "light", "action": "off", "room": "hallway"}),
        ("device_control", {"device": "vacuum", "action": "on", "for": 2700}),
    ]
