"""A later part no device tool does is a second request, even when it points back at the
first ("... and text it to my sister"), and algebra is no arithmetic (issue 24: a part
dropped is a wrong answer)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from understanding.arguments.expressions import calculator_expression, is_algebra
from understanding.structure import (
    compound_reason,
    request_reason,
    second_request,
    unserved_request,
)

# One lookup request each, as people say them.
LOOKUPS = [
    ("what is 1.5 kms in m", "unit_convert"),
    ("how many oz is 3 grams", "unit_convert"),
    ("square root of 328", "calculator"),
    ("what's 15% of 80", "calculator"),
    ("what's the weather in Rome tomorrow", "get_weather"),
    ("what time is it in Tokyo", "world_clock"),
    ("find my note about the wifi password", "search_notes"),
]
JOINERS = [" and ", " and then ", ", then ", " then ", " and after that ", ", ", ". "]
POLITE = ["", "please ", "can you ", "could you ", "now "]
# What no device tool does, with and without a back-reference.
UNSERVED = [
    "text it to my sister",
    "send that to Sam",
    "post it in the family chat",
    "email the result to my boss",
    "write a short summary of it",
    "show me the steps",
    "explain it",
    "translate that into French",
    "share it on whatsapp",
    "tell my wife",
    "call mum",
    "plot it",
    "walk me through it",
]


@given(
    st.sampled_from(LOOKUPS),
    st.sampled_from(JOINERS),
    st.sampled_from(POLITE),
    st.sampled_from(UNSERVED),
)
def test_a_later_part_no_tool_does_is_a_second_request(
    lookup: tuple[str, str], joiner: str, polite: str, tail: str
) -> None:
    text, intent = lookup
    said = f"{text}{joiner}{polite}{tail}"
    assert second_request(said, intent)
    assert compound_reason(said, intent) is not None
    assert request_reason(said, intent) is not None  # the joint model's path


@given(st.sampled_from(LOOKUPS), st.sampled_from(["", " please", ", thanks", " right now"]))
def test_one_lookup_alone_is_one_request(lookup: tuple[str, str], tail: str) -> None:
    text, intent = lookup
    assert not unserved_request(text + tail, intent)
    assert request_reason(text + tail, intent) is None


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # A note's text and a reminder's label may hold any verb: the policy reads them.
        ("add a note: call the plumber and text him the address", "add_note"),
        ("remind me to buy milk and send the parcel", "set_timer"),
        # The same request going on, or words of a device tool.
        ("what's the weather in Rome and is it going to rain", "get_weather"),
        ("set a timer for 10 minutes and call it pasta", "set_timer"),
        ("what's 2x3", "calculator"),
    ],
)
def test_what_is_no_unserved_request(text: str, intent: str) -> None:
    assert not unserved_request(text, intent)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # Pointing back at the first with another device tool's request is a second one.
        ("convert 5 miles to km and then write it down", "unit_convert"),
        ("what's 15% of 80 and note it down", "calculator"),
    ],
)
def test_a_back_reference_with_another_tool_is_a_second_request(text: str, intent: str) -> None:
    assert second_request(text, intent)


@pytest.mark.parametrize(
    "text",
    [
        "solve x squared plus 2x equals 8",
        "what's the limit of 8x + 33 as x goes to infinity",
        "differentiate x cubed minus 5x",
        "find x if 7x + 35 equals 35",
    ],
)
def test_algebra_is_no_arithmetic(text: str) -> None:
    assert is_algebra(text)
    assert calculator_expression(text) is None


@pytest.mark.parametrize(
    ("text", "expression"),
    [("what's 2x3", "2 * 3"), ("what is 5 x 4", "5 * 4"), ("12 times 3", "12 * 3")],
)
def test_times_written_x_is_still_arithmetic(text: str, expression: str) -> None:
    assert not is_algebra(text)
    assert calculator_expression(text) == expression


def test_why_asks_for_reasons_not_a_reading() -> None:
    assert request_reason("why is Prague so rainy", "get_weather") is not None


# Commands no device tool does, with the thing they act on (none is in a tool's words).
OWN_COMMANDS = [
    "feed the cat",
    "water the fern with 200 ml",
    "wash my car",
    "walk the dog",
    "iron my shirt",
    "pay the electricity bill",
    "mow the lawn",
]
# Context before a request: a statement, a greeting, no command of its own.
CONTEXT = ["I'm cooking", "good morning", "it's cold in here", "hey there", "so anyway"]


@given(
    command=st.sampled_from(OWN_COMMANDS),
    lookup=st.sampled_from(LOOKUPS),
    joiner=st.sampled_from([" and ", " and then ", ", then ", ", "]),
    first=st.booleans(),
)
def test_a_command_no_tool_does_beside_a_lookup_is_a_second_request(
    command: str, lookup: tuple[str, str], joiner: str, first: bool
) -> None:
    """Either side of the lookup, the other command is not dropped: the device would answer
    the weather and never feed the cat."""
    request, intent = lookup
    text = f"{command}{joiner}{request}" if first else f"{request}{joiner}{command}"
    assert unserved_request(text, intent), text
    assert request_reason(text, intent) is not None, text


@given(context=st.sampled_from(CONTEXT), lookup=st.sampled_from(LOOKUPS))
def test_context_before_a_lookup_is_no_second_request(
    context: str, lookup: tuple[str, str]
) -> None:
    request, intent = lookup
    assert not unserved_request(f"{context}, {request}", intent)
