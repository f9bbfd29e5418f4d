"""A timer's name as the person said it: a reminder's text, a name said after the timer
("a timer called laundry", "for twenty minutes for bedtime") or before it ("a tea
timer").

A timer set without the name it was given is not the timer asked for: it rings as
"timer", says nothing of what it is for and cannot be cancelled by its name. The slot
model's ``timer_name`` finds most names; these readers are what the device's router and
the cloud's planner both fall back on, so the two name a timer alike.

>>> reminder_label("remind me in 2 hours to call mom")
'call mom'
>>> reminder_label("set a timer for twenty minutes for bedtime")
'bedtime'
>>> timer_label("a tea timer for 4 minutes"), timer_label("set a 30 minute timer")
('tea', None)
"""

from __future__ import annotations

import re

from understanding.arguments.qualifiers import tokens_of

__all__ = ["is_day_part", "reminder_label", "timer_label"]

_REMIND_TO = re.compile(
    r"\bremind(?:er)?(?: me)?\b(?:.*?)\b(?:to|saying|that says|which says)\s+"
    r"(?:to\s+)?(?P<text>.+)$"
)
_NAMED = re.compile(
    r"\b(?:timer|alarm|one)\b.*?\b(?:called|named|labell?ed|for the)\s+(?P<text>.+)$"
)


def reminder_label(words: str) -> str | None:
    """What a reminder is for, in the person's words, whole ("remind me in 2 hours to call
    mom" -> "call mom"; "a timer called laundry" -> "laundry"), its time left out; or None."""
    from understanding.arguments.qualifiers import duration_after, find_qualifiers

    said = " ".join(words.lower().replace("’", "'").split()).rstrip(" ?!.")
    found = _REMIND_TO.search(said) or _NAMED.search(said)
    if found is None:
        return _named_for(said)
    text = found.group("text")
    tokens = tokens_of(text)
    cut = len(tokens)
    for q in find_qualifiers(text):
        if q.kind == "time" and q.end == len(tokens):
            cut = min(cut, q.start)
    # A bare duration said last is the timer's time, not its name ("for the noodles, 8
    # minutes").
    cut = next((k for k in range(cut) if duration_after(tokens, k) == cut - k), cut)
    while cut and tokens[cut - 1] in ("please", "thanks", "olly", "now"):
        cut -= 1
    label = " ".join(tokens[:cut])
    return label or None


# A timer named by the word before it ("a tea timer for 4 minutes", "the 10 minute pasta
# timer", "and a garlic bread one for 8"): the name is that word or two.
_NAMED_BEFORE = re.compile(
    r"\b(?:a|an|the|my|another)\s+(?:\S+\s+(?:\S+\s+)?(?:sec\w*|min\w*|hours?|hrs?)\s+)?"
    r"(?P<text>[a-z][a-z']*(?:\s+[a-z][a-z']*)?)\s+(?:timer|alarm|countdown|one)\b"
)
_NO_NAME = frozenset((
    "new", "quick", "short", "long", "little", "big", "second", "another", "other", "same",
    "separate", "next", "last", "first", "more", "few", "couple", "minute", "hour", "half",
    "each", "extra", "wee", "kitchen", "single",
))  # fmt: skip


# Words that name no timer ("two and a half minutes on a timer" is none "on a" timer).
_FUNCTION_WORDS = frozenset(
    {"on", "a", "an", "the", "in", "of", "for", "to", "at", "with", "me", "us", "it", "that"}
)


def timer_label(words: str) -> str | None:
    """A timer's name in the person's words: a reminder's text or a name said after the
    timer (:func:`reminder_label`), else the word or two said before "timer" ("a tea
    timer"); None when none is said (durations, "new", "quick" name nothing)."""
    from understanding.arguments.numbers import find_numbers

    label = reminder_label(words)
    if label is not None:
        return label
    said = " ".join(words.lower().replace("’", "'").split())
    found = _NAMED_BEFORE.search(said)
    if found is None:
        return None
    named = found.group("text").split()
    while named and named[0] in _NO_NAME:
        named = named[1:]  # "a new pasta timer": the pasta one
    if not named or set(named) & (_NO_NAME | _FUNCTION_WORDS) or "timer" in named:
        return None
    if find_numbers(named):
        return None
    return " ".join(named)


# "for <name>" said last, whose words say no time nor length: "set a timer for twenty
# minutes for bedtime", "a 30 minute timer for my run".
_NO_TIME = re.compile(
    r"^(?:\d|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|half|quarter|couple|few|"
    r"seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|now|later|today|tonight|tomorrow|"
    r"morning|afternoon|evening|night|noon|midnight|me|us|it|you|that|this|them|him|her|"
    r"ever|good|long|how|while|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"weekend)\b)"
)
_FOR_NAME = re.compile(
    r"for\s+(?:(?:the|my|our|his|her|their)\s+)?(?P<text>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,3}?)"
    r"\s*(?:$|[,.!?;]|\s(?:please|pls|plz|thanks|thank\s+you|ok|okay)\b)"
)
_DAY_PARTS = re.compile(
    r"^(?:today|tonight|tomorrow|morning|afternoon|evening|night|noon|midnight|midday|"
    r"(?:this|the|tomorrow|in\s+the)\s+\w+|later|weekend|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)$"
)


def is_day_part(span: str) -> bool:
    """True for a time-of-day or date span that says when ("tonight", "this evening"),
    False for one that names what the timer is for ("bedtime", "dinner")."""
    return _DAY_PARTS.match(" ".join(span.lower().split())) is not None


def _named_for(said: str) -> str | None:
    """The name of the last "for <name>" of a timer's words, else None."""
    starts = [m.start() for m in re.finditer(r"\bfor\b", said)]
    names = [m.group("text") for m in (_FOR_NAME.match(said, k) for k in starts) if m]
    names = [n for n in names if not _NO_TIME.match(n)]
    return names[-1] if names else None
