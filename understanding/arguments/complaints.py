"""Indirect requests: a complaint about the room is a request to the device that fixes it.

"it's dark in here", "I can't hear the TV", "the music is way too loud", "it's freezing in
the office" name no verb, but every home assistant reads them as the command that ends the
complaint: light on, volume up or down, heating or cooling on. This module holds that one
table, so the device vocabulary (``devices.py``) keeps its verbs and this keeps its states.

A complaint is read only when it is plainly about here and now: a negation ("it isn't too
loud"), the outdoors or another time ("cold outside", "hot tomorrow") is no complaint to
act on, and a temperature is acted on only where the words place it ("in here", a room):
"I'm cold" alone may be a fever, and a question is better than a guess.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Complaint:
    """One kind of complaint: the phrases that say it, the devices that fix it (the first
    is the one meant when the words name none) and the action that fixes it."""

    phrases: tuple[str, ...]
    devices: tuple[str, ...]
    action: str
    needs_place: bool = False
    # An adjective of the room ("dark", "cold"), said only of the room when nothing but a
    # place or the end follows it: "cold drink", "boiling pasta", "dark roast" are things.
    adjective: bool = False


COMPLAINTS: tuple[Complaint, ...] = (
    Complaint(("dark", "pitch black"), ("light",), "on", adjective=True),
    Complaint(("can't see a thing", "cant see a thing", "can't see anything",
               "cant see anything", "cannot see anything", "can't see a thing in here"),
              ("light",), "on"),
    Complaint(("can't hear", "cant hear", "cannot hear", "can not hear", "barely hear",
               "hard to hear", "too quiet", "so quiet", "very quiet", "really quiet",
               "too soft", "inaudible"), ("speaker", "tv"), "volume_up"),
    Complaint(("too loud", "so loud", "very loud", "really loud", "way loud", "too noisy",
               "so noisy", "deafening", "blasting", "hurts my ears"),
              ("speaker", "tv"), "volume_down"),
    Complaint(("cold", "freezing", "chilly", "frozen", "nippy", "too cool"), ("heater",), "on",
              needs_place=True, adjective=True),
    Complaint(("hot", "boiling", "sweltering", "stuffy", "too warm", "so warm"), ("ac", "fan"),
              "on", needs_place=True, adjective=True),
)  # fmt: skip

# Words that make a complaint something else: its negation, or a place or time that is
# not this room now ("dark outside", "cold tomorrow"), or a thing that is dark or hot
# rather than the room ("dark mode", "hot water", "a cold drink").
_NEGATIONS = frozenset({"not", "isn't", "isnt", "aren't", "arent", "wasn't", "no", "never",
                        "nor", "hardly", "enough"})  # fmt: skip
_ELSEWHERE = frozenset({"outside", "outdoors", "out", "weather", "today", "tonight",
                        "tomorrow", "yesterday", "week", "weekend", "forecast", "will", "was",
                        "were", "be", "degrees"})  # fmt: skip
_THINGS = frozenset({"mode", "theme", "roast", "chocolate", "side", "water", "drink", "tea",
                     "coffee", "food", "dog", "sauce", "shower", "bath", "spot", "take",
                     "topic", "sale", "deal", "pink", "blue", "green", "red"})  # fmt: skip
_AFTER_ADJECTIVE = frozenset({"in", "here", "at", "inside", "indoors", "right", "now", "again",
                              "and", "please", "so", "up", "down", "lol", "tbh"})  # fmt: skip
# What comes before an adjective of the room: a verb of being or an intensifier ("it's
# dark", "I'm freezing", "getting so cold"), never "before dark" or "give me dark".
_BEFORE_ADJECTIVE = frozenset({"it's", "its", "is", "i'm", "im", "am", "are", "we're", "feels",
                               "feel", "getting", "gets", "got", "so", "too", "very", "really",
                               "pretty", "quite", "rather", "bit", "kinda", "awfully", "way",
                               "super", "absolutely", "bloody", "damn", "still"})  # fmt: skip
_HERE = ("in here", "here", "this room", "the house", "the flat", "the apartment", "at home",
         "in the house", "indoors", "inside")  # fmt: skip


def _spans(tokens: list[str], phrase: str) -> list[int]:
    """Where ``phrase`` (words separated by spaces) starts in ``tokens``."""
    words = phrase.split()
    width = len(words)
    return [i for i in range(len(tokens) - width + 1) if tokens[i : i + width] == words]


def _found(tokens: list[str], complaint: Complaint) -> tuple[int, int] | None:
    """The first span of ``tokens`` that says ``complaint``, longest phrase first."""
    for phrase in sorted(complaint.phrases, key=len, reverse=True):
        for start in _spans(tokens, phrase):
            end = start + len(phrase.split())
            if end < len(tokens) and tokens[end] in _THINGS:
                continue  # "dark mode", "hot water": a thing, not the room
            if complaint.adjective and end < len(tokens) and tokens[end] not in _AFTER_ADJECTIVE:
                continue  # "a cold drink", "boiling pasta in the kitchen"
            if complaint.adjective and (start == 0 or tokens[start - 1] not in _BEFORE_ADJECTIVE):
                continue  # "arriving before dark", "give me dark"
            return start, end
    return None


def complaint_command(
    tokens: list[str], *, device: str | None = None, placed: bool = False
) -> tuple[str, str] | None:
    """``(device, action)`` that ends the complaint ``tokens`` make, or None when they make
    none (or several, or one that is not about here and now).

    ``device``: the device the words (or a slot tagger) name, which the complaint must be
    about ("the tv is too loud": the tv's volume; "the lamp is too loud": nothing).
    ``placed``: the words name a room, which places a temperature complaint.

    >>> complaint_command("i can't hear the tv".split(), device="tv")
    ('tv', 'volume_up')
    >>> complaint_command("it's freezing in here".split())
    ('heater', 'on')
    >>> complaint_command("it isn't too loud".split()) is None
    True
    """
    words = [t.strip(",.!?") for t in tokens]
    said = [c for c in COMPLAINTS if any(_spans(words, p) for p in c.phrases)]
    if len(said) > 1:
        return None  # "it's dark and cold": two fixes, not one command
    hits = [(c, span) for c in COMPLAINTS if (span := _found(words, c)) is not None]
    if len(hits) != 1:
        return None
    complaint, (start, end) = hits[0]
    rest = words[:start] + words[end:]
    if any(w in _NEGATIONS or (w.endswith("n't") and w != "can't") for w in rest):
        return None
    if any(w in _ELSEWHERE for w in words):
        return None
    joined = f" {' '.join(words)} "
    if complaint.needs_place and not (placed or any(f" {h} " in joined for h in _HERE)):
        return None
    if device is None:
        return complaint.devices[0], complaint.action
    if device in complaint.devices:
        return device, complaint.action
    return None
