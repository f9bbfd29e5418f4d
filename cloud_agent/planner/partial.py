"""Answering the parts of a compound request that can be answered.

When one clause of a request cannot be planned ("what time is it in Tokyo and preheat the
oven": no tool warms an oven), declining the whole request throws away what the tools can
answer. So the planner answers the other parts when every one of them only reads (the
weather, a clock, a conversion, a search of the notes, a device's state), and says by
name which part it could not do. It never acts on half a request: when any other part
changes something (a device command, a timer, a note), nothing runs and the part it
could not do is named in the decline. A part that needs open knowledge or writing ("...
and what should I wear") is no part of this: the whole request is the language model's.

    >>> unanswered_message(["preheat the oven"])
    "I couldn't do 'preheat the oven': none of my tools does that, so I left it out."
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cloud_agent.planner.calls import Plan, PlannedCall
from understanding.tools.catalogue import SIDE_EFFECT_TOOLS

__all__ = [
    "PARTIAL_KEY",
    "declined_message",
    "reads_only",
    "relay_declined",
    "relayed",
    "relayed_message",
    "unanswered_message",
]

PARTIAL_KEY = "unanswered"
"""FINAL_ANSWER metadata: the parts of the request the answer leaves out, by name."""


def reads_only(calls: Sequence[PlannedCall]) -> bool:
    """Whether the other parts' calls may run without the part left out: none of them
    changes anything."""
    return all(call.tool not in SIDE_EFFECT_TOOLS for call in calls)


# A request to pass something on to someone else ("text my sister ...", "tell her ...");
# "tell me" and "let me know" are asked of the assistant.
_RELAY = re.compile(
    r"\b(?:text|txt|message|msg|email|e-mail|whatsapp|send|call|ring|phone|tell|let)\b"
    r"(?!\s+(?:me|us)\b)"
)


def relayed(text: str) -> bool:
    """Whether a reading is asked for someone else ("text my sister the weather in rome",
    "call mum and tell her what time it is in sydney"): the reading is the content of a
    message no tool sends, so answering it alone would do none of what was asked."""
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    return any(
        _RELAY.search(piece) is not None and it.tool_cue(piece) in it.READINGS
        for piece in split_clauses(text)
    )


def relay_declined(plan: Plan) -> Plan:
    """``plan`` declined, as a reading for someone else (:func:`relayed`): nothing runs."""
    plan.refusal, plan.refusal_kind, plan.calls = relayed_message(), "needs_llm", []
    return plan


def relayed_message() -> str:
    """Why a reading asked for someone else is not answered."""
    return (
        "I can't pass that on: none of my tools sends a message or makes a call, and the "
        "reading was asked for someone else, so I did nothing. I can tell you the reading "
        "itself if you ask for it."
    )


def _named(parts: Sequence[str]) -> str:
    quoted = [f"'{part}'" for part in parts]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def unanswered_message(parts: Sequence[str]) -> str:
    """What the answer says of the parts it left out."""
    return f"I couldn't do {_named(parts)}: none of my tools does that, so I left it out."


def declined_message(parts: Sequence[str], *, no_home: bool = False) -> str:
    """Why nothing ran: a part could not be planned and another part acts. ``no_home``:
    the part asks for a reading where the device is, and the device has no home city."""
    if no_home:
        return (
            f"I couldn't do {_named(parts)}: it names no place, and this device has no home "
            "city set (edge-agent config set home_city CITY). The rest of the request "
            "changes something, so I did nothing rather than act on half of it. Could you "
            "say the place, or ask for the rest on its own?"
        )
    return (
        f"I couldn't do {_named(parts)} with my tools, and I won't guess; the rest of the "
        "request changes something, so I did nothing rather than act on half of it. Could "
        "you say that part another way, or ask for the rest on its own?"
    )
