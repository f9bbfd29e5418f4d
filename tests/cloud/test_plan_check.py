"""The plan check (issue 25): side effects grounded in the words, counts as asked."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cloud_agent.planner.clauses import normalise
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.plan_check import check_call, check_plan
from cloud_agent.planner.said_times import listed_durations


def _words(query: str) -> str:
    return normalise(query)


def test_a_note_is_the_words_whole() -> None:
    words = _words("add a note soak ohdydzxtqd and set a timer for 10 minutes")
    assert not check_call("add_note", {"text": "soak"}, words).ok
    assert check_call("add_note", {"text": "soak ohdydzxtqd"}, words).ok
    assert not check_call("add_note", {"text": "soak the beans"}, words).ok


def test_a_note_never_swallows_another_request() -> None:
    words = _words("note that dinner cost 85 dollars and tell me the tip")
    verdict = check_call("add_note", {"text": "dinner cost 85 dollars and tell me the tip"}, words)
    assert not verdict.ok
    assert "tell me the tip" in verdict.part


def test_a_listed_note_may_drop_its_commas() -> None:
    words = _words("note down milk, eggs, bread and check the weather in Oslo")
    assert check_call("add_note", {"text": "milk and eggs and bread"}, words).ok


def test_timer_durations_come_from_the_words() -> None:
    words = _words("set a timer for seven and a half hours")
    assert check_call("set_timer", {"seconds": 27000}, words).ok
    assert not check_call("set_timer", {"seconds": 18000}, words).ok
    assert not check_call("set_timer", {"at": "02:00"}, _words("two dishes, a timer")).ok


def test_a_question_is_no_command() -> None:
    words = _words("is the plug on?")
    verdict = check_call("device_control", {"device": "plug", "action": "on"}, words)
    assert not verdict.ok
    assert check_call("device_control", {"device": "plug", "action": "on"}, "turn the plug on").ok
    assert not check_call("device_control", {"device": "fan", "action": "on"}, words).ok


def test_device_values_are_said() -> None:
    words = _words("set the thermostat to 21")
    assert check_call(
        "device_control", {"device": "thermostat", "action": "set", "value": 21}, words
    ).ok
    assert not check_call(
        "device_control", {"device": "thermostat", "action": "set", "value": 25}, words
    ).ok


def test_a_timer_for_each_counts() -> None:
    words = _words("rice and lentils, 18 and 25 minutes, a timer for each")
    assert listed_durations(words) == [1080, 1500]
    one = [("set_timer", {"seconds": 1080})]
    assert not check_plan(words, one).ok
    assert check_plan(words, [*one, ("set_timer", {"seconds": 1500})]).ok
    assert not check_plan(_words("a timer for 5 minutes"), [("set_timer", {"seconds": 300})] * 2).ok


@settings(deadline=None, max_examples=40)
@given(
    st.lists(st.integers(min_value=1, max_value=90), min_size=2, max_size=4, unique=True),
    st.sampled_from(["minutes", "seconds", "hours"]),
)
def test_for_each_plans_one_timer_per_duration(numbers: list[int], unit: str) -> None:
    listed = ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"
    plan = make_plan(f"{len(numbers)} pots on the stove, {listed} {unit}, a timer for each")
    factor = {"minutes": 60, "seconds": 1, "hours": 3600}[unit]
    assert [c.args for c in plan.calls] == [{"seconds": n * factor} for n in numbers]


def test_a_failing_plan_runs_nothing_and_names_the_part() -> None:
    plan = make_plan("add a note that dinner cost 85 dollars and tell me what the tip is")
    assert plan.calls == []
    assert plan.refusal is not None and "tell me what the tip is" in plan.refusal


# -- one policy: the plan check is the device's side-effect policy (understanding.policy) --

ONE_REQUEST: list[tuple[str, dict[str, Any], str]] = [
    ("device_control", {"device": "light", "action": "off"}, "turn off the lights if it rains"),
    ("device_control", {"device": "heater", "action": "on"}, "turn on the heater at 6:30"),
    ("device_control", {"device": "light", "action": "off"}, "don't turn off the lights"),
    ("device_control", {"device": "light", "action": "off"}, "turn off the lights every night"),
    ("device_control", {"device": "plug", "action": "on"}, "is the plug on?"),
    ("device_control", {"device": "thermostat", "action": "set", "value": 25}, "set it to 21"),
    ("device_control", {"device": "tv", "action": "off"}, "turn off the lights"),
    ("set_timer", {"seconds": 18000}, "set a timer for seven and a half hours"),
    ("set_timer", {"at": "02:00"}, "two dishes, a timer"),
    ("add_note", {"text": "soak"}, "add a note soak ohdydzxtqd"),
    ("add_note", {"text": "sunflower 42"}, "make a note that the wifi password is: sunflower 42"),
    ("remove_note", {"text": "dentist appointment"}, "remove my dentist appointment"),
]


def test_the_plan_check_refuses_what_the_device_refuses_for_the_same_reason() -> None:
    """One implementation: for a request said alone, the plan check's verdict and reason
    are the device policy's (``understanding.policy.check_call``)."""
    from understanding.policy import check_call as device_check

    for tool, arguments, said in ONE_REQUEST:
        words = _words(said)
        device = device_check(tool, arguments, words, 1.0, 0.0)
        planned = check_call(tool, arguments, words)
        assert device.action == "cloud", said
        assert not planned.ok, said
        assert planned.reason == device.reason, said


def test_what_the_device_allows_the_plan_check_allows() -> None:
    from understanding.policy import check_call as device_check

    allowed: list[tuple[str, dict[str, Any], str]] = [
        ("device_control", {"device": "heater", "action": "on", "at": "06:30"}, "heat on at 6:30"),
        ("device_control", {"device": "fan", "action": "on", "for": 2700}, "fan on for 45 min"),
        ("set_timer", {"seconds": 5400}, "set a timer for an hour and a half"),
        (
            "add_note",
            {"text": "call the bank, ask about the rate"},
            "note: call the bank, ask about the rate",
        ),
    ]
    for tool, arguments, said in allowed:
        words = _words(said)
        assert device_check(tool, arguments, words, 1.0, 0.0).action == "allow", said
        assert check_call(tool, arguments, words).ok, said


def test_a_call_is_checked_against_the_words_of_its_own_request() -> None:
    # "for 10 minutes" is the timer's; the TV command is not asked to carry it.
    words = _words("set a timer for 10 minutes and turn off the tv")
    assert check_plan(
        words,
        [("set_timer", {"seconds": 600}), ("device_control", {"device": "tv", "action": "off"})],
    ).ok
    # "at 6:30" is the heater's: a command without it is the one the device refuses.
    words = _words("what's the weather in Oslo and turn on the heater at 6:30")
    heater = {"device": "heater", "action": "on"}
    assert not check_plan(words, [("get_weather", {"city": "oslo"}), ("device_control", heater)]).ok
    assert check_plan(
        words, [("get_weather", {"city": "oslo"}), ("device_control", {**heater, "at": "06:30"})]
    ).ok


def test_a_condition_anywhere_rules_over_every_side_effect() -> None:
    words = _words("if it rains in London tomorrow, close the blinds")
    verdict = check_plan(
        words,
        [
            ("get_weather", {"city": "london"}),
            ("device_control", {"device": "blinds", "action": "close"}),
        ],
    )
    assert not verdict.ok and "condition 'if'" in verdict.reason
    # A read on the same words runs: "check if" is whether, and reads change nothing.
    assert check_plan(
        _words("check if it's raining in Oslo"), [("get_weather", {"city": "oslo"})]
    ).ok


def test_a_request_no_call_answers_stops_a_plan_that_acts() -> None:
    words = _words("set a timer for 10 minutes and preheat the oven")
    verdict = check_plan(words, [("set_timer", {"seconds": 600, "label": "oven"})])
    assert not verdict.ok
    verdict = check_plan(words, [("set_timer", {"seconds": 600})])
    assert not verdict.ok and verdict.part == "preheat the oven"


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=1, max_value=9),
    st.sampled_from([("a half", 0.5), ("a quarter", 0.25)]),
    st.sampled_from([("hours", 3600), ("minutes", 60)]),
)
def test_fractions_of_a_unit_are_read_whole(
    whole: int, fraction: tuple[str, float], unit: tuple[str, int]
) -> None:
    """ "N and a half hours" is N.5 hours, never N: the grounding refuses the rounded one."""
    words = _words(f"set a timer for {whole} and {fraction[0]} {unit[0]} and turn on the fan")
    right = round((whole + fraction[1]) * unit[1])
    assert check_call("set_timer", {"seconds": right}, words).ok
    assert not check_call("set_timer", {"seconds": whole * unit[1]}, words).ok


def test_a_plans_words_that_are_no_qualifiers() -> None:
    """ "check if" asks whether, "before I forget" frames a note, "at 60 percent" is a
    level: read so by the plan check alone (the device keeps its own reading)."""
    from cloud_agent.planner.plan_check import plan_words
    from understanding.arguments.qualifiers import find_qualifiers

    for said in (
        "check if the door is locked and turn on the light",
        "right, before i forget, note that the car needs a service",
        "turn on the lights at 60 percent",
    ):
        assert not find_qualifiers(plan_words(_words(said))), said
    assert [q.kind for q in find_qualifiers(plan_words("close the blinds if it rains"))] == [
        "condition"
    ]
    words = _words("right, before I forget, note that the car needs a service, and lock the door")
    assert check_plan(
        words,
        [
            ("add_note", {"text": "the car needs a service"}),
            ("device_control", {"device": "door_lock", "action": "lock"}),
        ],
    ).ok
