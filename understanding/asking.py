"""Asking back: when the tool is clear but a required argument is missing, ask for it.

"Set a timer" is a timer without a duration, "wake me up" an alarm without a time: every
assistant answers them with a question, and so does the device ("For how long?", "For
what time?") instead of guessing or sending them to the cloud. The router decides
``route == "ask"`` with the missing argument's name and the question
(:func:`question_for`); the agent emits a CLARIFICATION step and the next turn of the same
session answers it (:func:`fold`: the answer joins the request, "set a timer" + "5
minutes" -> "set a timer for 5 minutes", which the router reads as any request).

The rule is small and general: a request is asked back only when it names nothing the
argument could be read from (no number, no time word); a time the device cannot read is
not a missing argument, and goes to the cloud as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Question", "argument_schema", "fold", "is_withdrawal", "question_for"]


@dataclass(frozen=True)
class Question:
    """What to ask for one missing argument, and the word that joins the answer in."""

    tool: str
    missing: str
    question: str
    joiner: str


_ALARM = re.compile(r"\b(alarm|wake|waking|get me up)\b", re.IGNORECASE)
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    "forty|fifty|sixty|ninety|hundred|half|quarter|couple|few"
)
_TIME_WORDS = re.compile(
    rf"\d|\b({_NUMBER_WORDS}|time|long|second|seconds|sec|secs|minute|minutes|min|mins|hour|hours|hr|"
    r"hrs|day|days|week|weeks|fortnight|month|months|year|years|noon|midnight|morning|afternoon|evening|night|tonight|tomorrow|today|"
    r"am|pm|o'?clock|sunrise|sunset|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|weekend|later|until|till|before|after|every)\b",
    re.IGNORECASE,
)
_WITHDRAW = re.compile(
    r"^(never ?mind|nevermind|forget it|cancel( that| it)?|stop|no|nothing|none|"
    r"don'?t bother|leave it)[.!]*$",
    re.IGNORECASE,
)
_LEADS = ("for ", "at ", "in ", "on ", "by ", "until ")


def mentions_time(query: str) -> bool:
    """True when the words hold anything a duration or a time could be read from."""
    return _TIME_WORDS.search(query) is not None


def question_for(tool: str, query: str) -> Question | None:
    """The question for ``query``, a request for ``tool`` whose required argument the
    argument readers found no words for; None when nothing is to be asked (the request
    names a time the device could not read, or the tool asks nothing back)."""
    if tool != "set_timer" or mentions_time(query):
        return None
    if _ALARM.search(query):
        return Question(tool, "at", "For what time?", "at")
    return Question(tool, "seconds", "For how long?", "for")


def fold(query: str, joiner: str, answer: str) -> str:
    """The request completed by the answer: "wake me up" + "seven" -> "wake me up at
    seven"; an answer that leads with its own preposition ("in 10 minutes") keeps it.

    >>> fold("set a timer.", "for", "5 minutes")
    'set a timer for 5 minutes'
    >>> fold("wake me up", "at", "at 7 am")
    'wake me up at 7 am'
    """
    asked = " ".join(query.split()).rstrip(".!?")
    said = " ".join(answer.split()).rstrip(".!?")
    placed = _day_part_placed(asked, said)
    if placed is not None:
        return placed
    if said.lower().startswith(_LEADS):
        return f"{asked} {said}"
    return f"{asked} {joiner} {said}" if joiner else f"{asked} {said}"


_DAY_PART = re.compile(
    r"^(?:in\s+the\s+)?(morning|afternoon|evening|night)$|^(am|pm|a\.m\.?|p\.m\.?|tonight)$",
    re.IGNORECASE,
)


def _day_part_placed(asked: str, said: str) -> str | None:
    """The answer to "morning or evening?" put right after the clock time it qualifies
    ("remind me at 3 to call mum" + "evening" -> "remind me at 3 in the evening to call
    mum"); None when the answer is no part of the day or the request says no clock time.

    >>> _day_part_placed("remind me at 3 to call mum", "evening")
    'remind me at 3 in the evening to call mum'
    """
    from understanding.arguments.bare_hours import clock_words
    from understanding.arguments.qualifiers import find_qualifiers, tokens_of

    found = _DAY_PART.match(said)
    said_words = asked.split()
    if found is None or len(tokens_of(asked)) != len(said_words):
        return None  # no part of the day, or the readers' tokens are not the words as said
    part = f"in the {found.group(1).lower()}" if found.group(1) else said.lower()
    for q in find_qualifiers(asked):
        if q.kind == "time" and q.word.split()[0] == "at":
            end = q.start + len(clock_words(q))
            return " ".join([*said_words[:end], part, *said_words[end:]])
    return None


def is_withdrawal(answer: str) -> bool:
    """True for an answer that withdraws the request ("never mind", "cancel")."""
    return _WITHDRAW.match(" ".join(answer.split())) is not None


def argument_schema(input_schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The JSON Schema of one argument, for a CLARIFICATION (without the project's own
    ``x-edgeloop-*`` annotations, which mean nothing to another client)."""
    schema = dict((input_schema.get("properties") or {}).get(name) or {})
    return {k: v for k, v in schema.items() if not k.startswith("x-")}
