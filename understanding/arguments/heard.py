"""The words as meant, before anything reads them: what speech recognition hears for
another word, what a typo makes of a word that changes a command, and a favour asked
before the request.

Speech recognisers write the word that sounds the same: "whether in london tomorrow",
"at milk to the shopping list", "take eggs of the list", "a timer for to minutes"; a
"brolly" is the umbrella the model knows. Each
rewrite here is one such confusion, read only where the heard word cannot be what was
meant: "whether" with no clause after it, "at" opening a request to a list, "of" between
a removing verb and "the list", a number word's homophone before a unit of time. Anything
else stays as said.

>>> with_heard_words("whether in london tomorrow")
'weather in london tomorrow'
>>> with_heard_words("tell me whether it will rain")
'tell me whether it will rain'
>>> as_meant("do me a favour and turn off the kitchin light")
'turn off the kitchen light'
"""

from __future__ import annotations

import re

from understanding.answers import without_favour
from understanding.arguments.spelling import with_qualifier_words, with_room_words

__all__ = ["as_meant", "with_heard_words"]

_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)"
_HEARD: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), meant)
    for pattern, meant in (
        # "whether" that opens no clause: "the whether", "whether in paris", "whether like"
        (
            r"\bwhether\b(?!\s+(?:it|i|the|to|or|we|you|they|there|my|he|she|this|that|a|an|"
            r"our|your|its|not|anyone|someone|people|if)\b)",
            "weather",
        ),
        # "at milk to the shopping list": "add" heard as "at", opening a request to a list
        (
            r"^(?:\W*(?:please|pls|can you|could you)\s+)?at(?!\s+(?:least|most|all|once|first|"
            r"last|home|work|night|noon|the|some|any|this|that)\b)(?=\s+(?!\d)[a-z].*\s(?:to|on)\s+"
            r"(?:the|my|our)\s+(?:[\w-]+\s+){0,2}list\b)",
            "add",
        ),
        # "take eggs of the list", "cross bread of my list": "off"
        (
            r"\b(take|cross|knock|strike|get)\s+(.+?)\s+of(?=\s+(?:the|my|our)\s+"
            r"(?:[\w-]+\s+){0,2}list\b)",
            r"\1 \2 off",
        ),
        # "a timer for to minutes", "in too hours": the number two
        (rf"\b(for|in|about)\s+(?:to|too)\s+(?={_UNIT}\b)", r"\1 two "),
        # "an our", "half an our": the hour
        (r"\b(an|one|half an|per|every|quarter of an)\s+our\b", r"\1 hour"),
        # British words the model read too rarely to know: the word it knows
        (r"\bbroll(?:y|ies)\b", "umbrella"),
        # "the weather four tokyo", "time four sydney": "for" before a place
        (r"\b(weather|forecast|time|temperature)\s+four\s+(?=[a-z])", r"\1 for "),
    )
)


def with_heard_words(text: str) -> str:
    """``text`` with each homophone speech recognition writes for a word the request
    needs replaced by that word, where the heard word cannot be meant."""
    for pattern, meant in _HEARD:
        text = pattern.sub(meant, text)
    return text


# Hesitations and fillers said between the words of a request ("start the vacuum, um, at
# like 10:15", "put, like, call the plumber on my list", "an alarm for 6:30 please, dear"):
# they ask for nothing, and their commas read as a second request.
_HESITATION = re.compile(r"(?:,\s*)?(?<![\w'])(?:u+m+|u+h+m*|e+r+m*|hm+|h+mm+)(?![\w'])\s*,?", re.I)
_FILLER_LIKE = re.compile(
    r"(?:,\s*|^\s*|(?<=\bso)\s*)like\s*,|\b(at|about|for|in|to)\s+like(?=\s+\d)", re.I
)
_VOCATIVE = re.compile(
    r",\s*(?:dear|darling|love|sweetie|honey|mate|buddy|pal)\s*(?=[.!?]*$)", re.I
)


def without_hesitations(text: str) -> str:
    """``text`` without the hesitations, fillers and terms of address said around a request.

    >>> without_hesitations("start the vacuum, um, at like 10:15")
    'start the vacuum at 10:15'
    """
    said = _HESITATION.sub(" ", text)
    said = _FILLER_LIKE.sub(lambda m: f" {m.group(1) or ''} ", said)
    said = _VOCATIVE.sub("", said)
    said = re.sub(r"\s+,", ",", " ".join(said.split()))
    said = re.sub(r"^[,\s]+|(?<=,),+", "", said)
    return re.sub(r"\s*\.{2,}\s*$", "", said).strip() or text


def as_meant(text: str) -> str:
    """The words as meant (the module docstring), whitespace collapsed: what the device's
    router and the cloud's planner both read."""
    said = without_hesitations(" ".join(text.split()))
    return without_favour(with_room_words(with_qualifier_words(with_heard_words(said))))
