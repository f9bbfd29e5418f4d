"""The plan check (issue 25): side effects grounded in the words, counts as asked."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cloud_agent.planner.clauses import normalise
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.plan_check import check_call, check_plan, listed_durations


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
