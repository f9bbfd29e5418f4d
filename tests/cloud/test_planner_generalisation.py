"""The planner on phrasings its rules were not written against: sentence ends, more
connectives, small talk around the requests, arithmetic that is not two requests."""

from __future__ import annotations

import pytest

from cloud_agent.planner.clauses import is_chatter, split_clauses
from cloud_agent.planner.plan import make_plan


def calls(query: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in make_plan(query).calls]


def test_sentence_end_cuts_a_clause() -> None:
    got = calls("Turn off the kitchen lights. Lock the back door.")
    assert [(t, a["device"], a["action"]) for t, a in got] == [
        ("device_control", "light", "off"),
        ("device_control", "door_lock", "lock"),
    ]


def test_after_that_is_a_connective_not_a_back_reference() -> None:
    got = calls("unlock the door and after that turn the lights on in the hallway")
    assert got[1] == ("device_control", {"device": "light", "action": "on", "room": "hallway"})
    days = calls("will it snow in Moscow tmrw? after that tell me the weather in Beijing")
    assert [a["day"] for _, a in days] == ["tomorrow", "today"]


def test_plus_between_numbers_is_arithmetic() -> None:
    assert split_clauses("what is 18 plus 24 and what is 9 times 9") == [
        "what is 18 plus 24",
        "what is 9 times 9",
    ]
    assert [t for t, _ in calls("how cold will it be in Toronto tomorrow and what's 3 plus 4")] == [
        "get_weather",
        "calculator",
    ]


def test_small_talk_is_set_aside() -> None:
    assert is_chatter("hi there")
    assert is_chatter("thank you so much")
    assert is_chatter("so i'm heading out in a bit")
    assert not is_chatter("i'm wondering who wrote hamlet")
    got = calls(
        "Good morning! Could you please tell me the weather in Paris today, and also what "
        "time it is in Sydney? Thank you so much."
    )
    assert got == [
        ("get_weather", {"city": "paris", "day": "today"}),
        ("world_clock", {"city": "sydney"}),
    ]


def test_small_talk_alone_is_still_declined() -> None:
    plan = make_plan("hi there, thanks a lot")
    assert plan.refusal and not plan.calls


def test_places_listed_before_the_question() -> None:
    for query in (
        "between Paris and London, which one is warmer tomorrow?",
        "Tokyo, Seoul and Beijing: which is warmest",
    ):
        got = calls(query)
        assert {t for t, _ in got} == {"get_weather"} and len(got) >= 2
    assert [
        a["day"] for _, a in calls("between Paris and London, which one is warmer tomorrow")
    ] == [
        "tomorrow",
        "tomorrow",
    ]


def test_one_action_for_a_list_of_devices() -> None:
    for query, devices in (
        ("both the fan and the ac off please", ["fan", "ac"]),
        ("switch off: the heater, the fan", ["heater", "fan"]),
    ):
        got = calls(query)
        assert [(a["device"], a["action"]) for _, a in got] == [(d, "off") for d in devices]


def test_a_note_saying_and_a_timer_one() -> None:
    assert calls("timer for two and a half minutes plus a note saying tea is brewing") == [
        ("set_timer", {"seconds": 150}),
        ("add_note", {"text": "tea is brewing"}),
    ]
    assert calls("set a 2 hour timer and also a 30 minute one") == [
        ("set_timer", {"seconds": 7200}),
        ("set_timer", {"seconds": 1800}),
    ]


def test_what_is_it_like_outside_is_weather() -> None:
    assert calls("what's it like outside in Nairobi? and in Cairo?") == [
        ("get_weather", {"city": "nairobi", "day": "today"}),
        ("get_weather", {"city": "cairo", "day": "today"}),
    ]


def test_corrections_with_several_words() -> None:
    got = calls("which is colder tmrw, oslo... no wait, stockholm, or helsinki... no, moscow")
    assert [a["city"] for _, a in got] == ["stockholm", "moscow"]


def test_two_letters_swapped_in_short_words() -> None:
    got = calls("tun off the lihgts and lcok the door")
    assert got[1] == ("device_control", {"device": "door_lock", "action": "lock"})


def test_states_as_participles() -> None:
    got = calls("so basically I want the lights off, the door locked and the heater set to 21")
    assert [(a["device"], a["action"]) for _, a in got] == [
        ("light", "off"),
        ("door_lock", "lock"),
        ("heater", "set"),
    ]


def test_polite_preambles() -> None:
    for query in (
        "could you do me a favour and check the weather in Lagos",
        "If it's not too much trouble, what's the weather in Lagos?",
        "Okay, here's what I need: the weather in Lagos",
    ):
        assert calls(query) == [("get_weather", {"city": "lagos", "day": "today"})]


@pytest.mark.parametrize(
    "query",
    [
        "translate 'turn off the lights' into French",
        "what time zone should I pick for my meeting with the Tokyo team",
        "write a poem about the weather in Paris",
        "explain why it rains",
    ],
)
def test_tool_words_inside_an_open_request(query: str) -> None:
    plan = make_plan(query)
    assert plan.refusal and not plan.calls


def test_places_named_before_their_tool_word() -> None:
    assert calls("check both the Paris and the Rome weather") == [
        ("get_weather", {"city": "paris", "day": "today"}),
        ("get_weather", {"city": "rome", "day": "today"}),
    ]


def test_a_question_on_results_makes_no_new_call() -> None:
    assert calls("what's the time in Cairo and Nairobi, which one is later?") == [
        ("world_clock", {"city": "cairo"}),
        ("world_clock", {"city": "nairobi"}),
    ]


def test_there_keeps_the_room_and_timers_share_a_unit() -> None:
    got = calls("turn off the heater in the nursery and turn on the fan there")
    assert got[1] == ("device_control", {"device": "fan", "action": "on", "room": "nursery"})
    assert calls("set timers for 10 and 20 minutes") == [
        ("set_timer", {"seconds": 600}),
        ("set_timer", {"seconds": 1200}),
    ]


def test_a_second_search_and_a_context_heading() -> None:
    got = calls("search my notes for recipes as well as anything about pasta")
    assert [(t, a["query"]) for t, a in got] == [
        ("search_notes", "recipes"),
        ("search_notes", "pasta"),
    ]
    got = calls("Before bed: lock the front door and set a timer for 30 minutes.")
    assert [t for t, _ in got] == ["device_control", "set_timer"]


def test_opinion_about_a_place_is_declined() -> None:
    plan = make_plan("is it rude to call someone in Tokyo at night")
    assert plan.refusal and not plan.calls


def test_a_number_after_on_or_to_sets_the_device() -> None:
    assert calls("put the heater on 25 and turn the fan off")[0] == (
        "device_control",
        {"device": "heater", "action": "set", "value": 25},
    )
    assert calls("bump the thermostat up to 23")[0][1]["action"] == "set"


def test_arithmetic_on_a_converted_quantity() -> None:
    plan = make_plan("what's 10 kg in pounds plus 5")
    assert [c.tool for c in plan.calls] == ["unit_convert", "calculator"]
    assert plan.calls[1].args["expression"] == "{prev} + 5"


def test_quarter_hours_and_all_places() -> None:
    assert calls("set a timer for an hour and a quarter and turn off the oven light")[0] == (
        "set_timer",
        {"seconds": 4500},
    )
    got = calls("weather in Istanbul and Cairo and also the time in both")
    assert [(t, a["city"]) for t, a in got][2:] == [
        ("world_clock", "istanbul"),
        ("world_clock", "cairo"),
    ]


def test_sunset_is_not_a_clock_reading() -> None:
    plan = make_plan("what time does the sun set in Paris")
    assert plan.refusal and not plan.calls


def test_what_about_another_day_keeps_both_days() -> None:
    assert calls("what's the weather in Paris? and what about tomorrow?") == [
        ("get_weather", {"city": "paris", "day": "today"}),
        ("get_weather", {"city": "paris", "day": "tomorrow"}),
    ]


def test_converting_an_earlier_result() -> None:
    plan = make_plan("twenty percent of 80 and then convert the answer from kg to lb")
    assert [c.tool for c in plan.calls] == ["calculator", "unit_convert"]
    assert plan.calls[1].args == {"value": "{prev}", "from_unit": "kg", "to_unit": "lb"}


def test_context_with_a_day_is_still_small_talk() -> None:
    got = calls("I'm cooking tonight, so please set a timer for 25 minutes")
    assert got == [("set_timer", {"seconds": 1500})]


@pytest.mark.parametrize(
    "query",
    [
        "what's a good time to call Tokyo from London",
        "how should I dress for the weather in Moscow",
        "what's the weather usually like in Paris in April",
    ],
)
def test_advice_and_climate_are_declined(query: str) -> None:
    plan = make_plan(query)
    assert plan.refusal and not plan.calls


def test_how_far_ahead_is_a_clock_question() -> None:
    got = calls("how far ahead is Auckland compared with Sydney")
    assert [t for t, _ in got] == ["world_clock", "world_clock"]


def test_hours_difference_is_a_clock_question() -> None:
    got = calls("how many hours difference between Sydney and Auckland")
    assert [(t, a["city"]) for t, a in got] == [
        ("world_clock", "sydney"),
        ("world_clock", "auckland"),
    ]


def test_room_temperature_is_the_thermostat() -> None:
    assert calls("set the living room temperature to 21")[0] == (
        "device_control",
        {"device": "thermostat", "action": "set", "room": "living room", "value": 21},
    )


def test_volume_belongs_to_a_tv_or_speaker_only() -> None:
    got = calls("raise the blinds and lower the volume to 10")
    assert got[1] == ("device_control", {"device": "speaker", "action": "set", "value": 10})


def test_a_room_said_once_for_two_devices() -> None:
    got = calls("turn on the heater and the lights in the basement")
    assert [a.get("room") for _, a in got] == ["basement", "basement"]


def test_conditions_and_restated_lists() -> None:
    # A write on a condition the device cannot wait for is declined, as on the device
    # (``understanding.policy``): an unconditional note is not what was asked.
    plan = make_plan("any notes about the cat? if not, add one saying feed the cat at 6")
    assert not plan.calls and plan.refusal_kind == "plan_check"
    assert "condition 'if'" in str(plan.refusal)
    got = calls("plz check weather in berlin n munich... i mean, berlin n rome")
    assert [a["city"] for _, a in got] == ["berlin", "rome"]


def test_what_about_a_place_and_day_lends_nothing_back() -> None:
    assert calls("is it windy in Chicago? what about Seattle tomorrow?") == [
        ("get_weather", {"city": "chicago", "day": "today"}),
        ("get_weather", {"city": "seattle", "day": "tomorrow"}),
    ]


def test_announcing_the_requests_is_small_talk() -> None:
    assert is_chatter("i'd like to know 3 things")
    assert is_chatter("hope you're having a good day")
    got = calls(
        "I'd like to know three things: the weather in Rome, the time in Sydney and what 17 "
        "times 3 is"
    )
    assert [t for t, _ in got] == ["get_weather", "world_clock", "calculator"]


def test_fun_things_to_do_are_declined() -> None:
    plan = make_plan("what's a fun thing to do when it's raining in Seattle")
    assert plan.refusal and not plan.calls


def test_device_with_a_state_word_and_a_bare_greeting() -> None:
    assert calls("lights out in the kids room and lock up please") == [
        ("device_control", {"device": "light", "action": "off", "room": "kids room"}),
        ("device_control", {"device": "door_lock", "action": "lock"}),
    ]
    got = calls("Morning! Weather in Berlin, time in New York")
    assert got == [
        ("get_weather", {"city": "berlin", "day": "today"}),
        ("world_clock", {"city": "new york"}),
    ]


def test_yes_or_no_and_casual_tomorrow() -> None:
    assert [t for t, _ in calls("is Delhi warmer than Mumbai tomorrow, yes or no")] == [
        "get_weather",
        "get_weather",
    ]
    got = calls("hiya, wots the wether like in londun n paris 2moro")
    assert [a["day"] for _, a in got] == ["tomorrow", "tomorrow"]


def test_summarising_notes_is_an_llm_job() -> None:
    plan = make_plan("summarize my notes about the project")
    assert plan.refusal and not plan.calls


def test_weather_comparatives() -> None:
    got = calls("which city is chillier right now: Stockholm, Moscow or Berlin?")
    assert [(t, a["city"]) for t, a in got] == [
        ("get_weather", "stockholm"),
        ("get_weather", "moscow"),
        ("get_weather", "berlin"),
    ]


def test_misspelt_connectives_and_interjections() -> None:
    assert [a["device"] for _, a in calls("lock the door thn turn off the lights")] == [
        "door_lock",
        "light",
    ]
    got = calls("oh and what's the time in Dubai, and the weather in Dubai as well")
    assert [t for t, _ in got] == ["world_clock", "get_weather"]


def test_two_durations_of_one_unit_are_two_timers() -> None:
    assert calls("two timers please: 6 minutes and 12 minutes") == [
        ("set_timer", {"seconds": 360}),
        ("set_timer", {"seconds": 720}),
    ]
    assert calls("set a timer for 2 hours and 15 minutes") == [("set_timer", {"seconds": 8100})]
