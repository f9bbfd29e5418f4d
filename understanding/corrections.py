"""Self-corrections: the request as the person corrected it, or None when it cannot be placed.

People correct themselves mid-sentence: "turn on the kitchen light, no wait, the bedroom
one", "set a timer for 10, actually make it 15 minutes", "weather in sydney, scratch that,
melbourne", "dim the lights, sorry, brighten them". Acting on the words as they stand would
run what the person took back (the kitchen light, the 10-minute timer). The correction
after the marker replaces the part of the request before it that it matches by kind:

- a number (with its unit or not): the last number before it ("make that 20");
- a phrase opened by a preposition: the last phrase the same preposition opened ("to km,
  no to metres");
- a day, a city, a list: the last day, city or list named;
- a room, a device or both: those of the request ("the bedroom one", "the office fan");
- a verb: the request's verb, its object kept ("open the blinds actually close them").

A strong marker ("no wait", "scratch that", "i meant") that cannot be placed, or a
request taken back ("actually no, leave it"), is read by no rule: :func:`read_correction`
says so (``text`` None) and the device sends the request to the cloud, the planner asks.
A weak marker ("no", "sorry", "actually", "i mean") is a correction only where it can be
placed ("no more than 5" and "sorry to bother you" correct nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from understanding.arguments.durations import UNIT_SECONDS
from understanding.arguments.numbers import SMALL, TENS
from understanding.arguments.units import NAMES
from understanding.forecast import DAYS

__all__ = ["Correction", "read_correction"]


@dataclass(frozen=True)
class Correction:
    """A self-correction read: ``said`` the marker as said, ``text`` the request as
    corrected (None: the correction takes back or changes what no rule can place)."""

    said: str
    text: str | None


_STRONG = tuple(
    m.split()
    for m in (
        "no wait", "wait no", "no sorry", "sorry no", "scratch that", "strike that",
        "i meant", "or rather", "correction", "actually no", "no no", "oops", "no actually",
        "sorry i mean", "sorry i meant", "no i mean", "no i meant", "actually i mean",
        "wait wait", "hang on", "hold on",
    )
)  # fmt: skip
_WEAK = tuple(
    m.split() for m in ("actually", "sorry", "no", "wait", "i mean", "make it", "make that")
)
_HESITATION = frozenset({"um", "uh", "er", "erm", "oh", "ah", "hmm", ","})
_LEADS = (["make", "that"], ["make", "it"], ["i", "mean"], ["i", "meant"], ["not"], ["no"])
_TRAILING = frozenset({"i", "mean", "instead", "please", "then", "sorry", ",", "."})
_TAKEN_BACK = re.compile(
    r"^(?:leave (?:it|them|that)|forget (?:it|that|about it)|never ?mind|don'?t|do not|"
    r"cancel that|ignore (?:that|me)|stop|nothing)\b"
)
# "no more than", "no need", "sorry to bother you": no correction opened.
_NOT_A_CORRECTION = {
    "no": frozenset({"more", "longer", "one", "need", "matter", "idea", "way", "problem", "rush"}),
    "sorry": frozenset({"to", "about", "for", "but", "if"}),
    "wait": frozenset({"for", "until", "till", "a"}),
}
_JOINERS = frozenset({"and", "then", "also", "plus", ";"})
_PREPOSITIONS = frozenset({"to", "into", "in", "for", "at", "on", "from", "by", "until", "till"})
_DAYS = frozenset({*DAYS, "tonight", "weekend"})
_PARTICLES = frozenset({"on", "off", "up", "down", "out"})
_PRONOUNS = frozenset({"it", "them", "that", "those", "one", "ones"})
_DETERMINERS = frozenset({"the", "my", "our", "a", "an", "this", "that"})
_OPERATORS = frozenset({"times", "plus", "minus", "by", "x", "over", "divided", "multiplied"})
_UNIT_WORDS = frozenset({"am", "pm", "o'clock", "percent", "%", "degrees", "°"})
_TOKEN = re.compile(r"[\w'°%.:-]+|[^\w\s]")


def read_correction(words: str) -> Correction | None:
    """The request ``words`` say once their self-corrections are applied, or None when
    they correct nothing (see the module docstring)."""
    tokens = _TOKEN.findall(words)
    low = [t.lower().rstrip(".") or t for t in tokens]
    said: list[str] = []
    for _ in range(3):  # "six, no wait, seven, sorry, eight"
        found = _marker(low)
        if found is None:
            break
        start, end, strong = found
        marker = " ".join(t for t in low[start:end] if t != ",")
        fixed = _apply(tokens, low, start, end)
        if fixed is None:
            if strong or _taken_back(low, end) or _numbered(low, end):
                return Correction(marker, None)
            break
        said.append(marker)
        tokens = fixed
        low = [t.lower().rstrip(".") or t for t in tokens]
    if not said:
        return None
    return Correction(", ".join(said), _joined(tokens))


def _marker(low: list[str]) -> tuple[int, int, bool] | None:
    """The first marker after at least two words of a request: (start, end, strong)."""
    words_before = 0
    for i, token in enumerate(low):
        not_this = _not_this(low, i) if token == "not" and words_before >= 2 else None
        if not_this is not None:
            return i - (low[i - 1] == ","), not_this, True
        for strong, markers in ((True, _STRONG), (False, _WEAK)):
            for marker in markers:
                if low[i : i + len(marker)] != marker or words_before < 2:
                    continue
                after = low[i + len(marker) : i + len(marker) + 1]
                if not strong and (
                    not after or after[0] in _NOT_A_CORRECTION.get(marker[0], frozenset())
                ):
                    continue
                if marker == ["no"] and not _opens_a_fix(low[i - 1], after):
                    continue
                if marker[0] == "make" and not (after and _is_number(after[0])):
                    continue  # "... and make it brighter": a request, not a new number
                start = i
                while start > 0 and low[start - 1] in _HESITATION:
                    start -= 1
                return start, i + len(marker), strong
        if token.isalnum() or "'" in token:
            words_before += 1
    return None


def _not_this(low: list[str], i: int) -> int | None:
    """ "turn the light off, not the bedroom, the kitchen": "not" and a room or device,
    then a pause and the one meant; where the marker ends (None: no such correction)."""
    from understanding.arguments.devices import DEVICE_NAMES, ROOM_NAMES, _find_phrases

    k = i + 1 + (low[i + 1 : i + 2] in (["the"], ["my"], ["that"]))
    comma = next((j for j in range(k, min(k + 4, len(low))) if low[j] == ","), None)
    if comma is None or comma == k or comma + 1 >= len(low):
        return None
    named = [w.removesuffix("'s") for w in low[k:comma] if w not in ("one", "ones")]
    spans = [*_find_phrases(named, ROOM_NAMES), *_find_phrases(named, DEVICE_NAMES)]
    covered = {j for s, e, _ in spans for j in range(s, e)}
    return comma + 1 if named and covered == set(range(len(named))) else None


def _opens_a_fix(before: str, after: list[str]) -> bool:
    """A bare "no" corrects after a pause ("20, no, 25") or before what a fix opens with
    ("to km no to metres", "no the kitchen one", "no make that 20")."""
    if before in (",", "um", "uh", "er", "oh"):
        return True
    return bool(after) and (after[0] in ("to", "the", "make", "i", ",") or _is_number(after[0]))


def _numbered(low: list[str], end: int) -> bool:
    """ "..., sorry, 7 times 6": a number after even a weak marker corrects one."""
    rest = [t for t in low[end:] if t not in _HESITATION]
    return bool(rest) and _is_number(rest[0])


def _taken_back(low: list[str], end: int) -> bool:
    rest = " ".join(t for t in low[end:] if t not in _HESITATION)
    return _TAKEN_BACK.match(rest) is not None


def _apply(tokens: list[str], low: list[str], start: int, end: int) -> list[str] | None:
    """The tokens with the correction at ``start:end`` applied, or None."""
    before, said_before = tokens[:start], low[:start]
    while said_before and said_before[-1] in _HESITATION:
        before, said_before = before[:-1], said_before[:-1]
    k = end
    while k < len(low) and low[k] in _HESITATION:
        k += 1
    for lead in _LEADS:
        if low[k : k + len(lead)] == lead:
            k += len(lead)
            break
    stop = k
    while stop < len(low) and low[stop] not in _JOINERS and low[stop] not in (",", "or"):
        stop += 1  # the fix ends where the next clause or list item starts
    fix, said_fix = tokens[k:stop], low[k:stop]
    while said_fix and said_fix[-1] in _TRAILING:
        fix, said_fix = fix[:-1], said_fix[:-1]
    if not said_fix or _TAKEN_BACK.match(" ".join(said_fix)):
        return None
    for rule in (_number, _preposition, _day, _listed, _place, _room_or_device, _verb, _object):
        fixed = rule(before, said_before, fix, said_fix)
        if fixed is not None:
            return [*fixed, *tokens[stop:]]
    return None


Tokens = list[str]  # the words as said, or lowercased


def _is_number(token: str) -> bool:
    return bool(re.match(r"^\d[\d.:,]*$", token)) or token in SMALL or token in TENS


def _is_unit(token: str) -> bool:
    return token in UNIT_SECONDS or token in NAMES or token in _UNIT_WORDS


def _number_run(said: list[str], at: int) -> int:
    end = at
    while end < len(said) and (_is_number(said[end]) or (end > at and said[end] == "and")):
        end += 1
    return end if end > at and said[end - 1] != "and" else at


def _number(before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens) -> Tokens | None:
    """ "for 10, actually make it 15 minutes": the last number said, its unit if both say
    one; the rest of the correction ("20 to check the oven") goes where the request ends."""
    if not _is_number(said_fix[0]):
        return None
    fix_end = _number_run(said_fix, 0)
    starts = [i for i in range(len(said_before)) if _is_number(said_before[i])]
    if not starts:
        return None
    if any(_is_number(w) for w in said_fix[fix_end:]):
        # "what's 5 times 6, sorry, 7 times 6": the correction is the whole sum
        clause = max((i + 1 for i, w in enumerate(said_before) if w in _JOINERS), default=0)
        said = [i for i in starts if i >= clause]
        if len(said) == 1 and said_before[-1] in _OPERATORS:
            return [*before[: said[0]], *fix]  # "what is 12 times, no wait, 13 times 7"
        if len(said) < 2:
            return None
        return [*before[: said[0]], *fix, *before[_number_run(said_before, said[-1]) :]]
    at = starts[-1]
    while at > 0 and _is_number(said_before[at - 1]):
        at -= 1
    end = _number_run(said_before, at)
    fix_unit = fix_end < len(said_fix) and _is_unit(said_fix[fix_end])
    if fix_unit and end < len(said_before) and _is_unit(said_before[end]):
        end += 1
    number = fix[: fix_end + (1 if fix_unit else 0)]
    rest = fix[fix_end + (1 if fix_unit else 0) :]
    return [*before[:at], *number, *before[end:], *rest]


def _preposition(
    before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens
) -> Tokens | None:
    """ "convert 5 miles to km, no, to metres": the last phrase the preposition opened."""
    if said_fix[0] not in _PREPOSITIONS or said_fix[0] not in said_before:
        return None
    at = len(said_before) - 1 - said_before[::-1].index(said_fix[0])
    return [*before[:at], *fix]


def _day(before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens) -> Tokens | None:
    days = [w for w in said_fix if w in _DAYS]
    if not days or len(said_fix) > 2:
        return None
    spots = [i for i, w in enumerate(said_before) if w in _DAYS]
    if not spots:
        return None
    return [*before[: spots[-1]], days[0], *before[spots[-1] + 1 :]]


def _listed(before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens) -> Tokens | None:
    """ "add eggs to the to do list, i mean the shopping list": the list named."""
    if said_fix[-1] not in ("list", "lists") or "list" not in said_before:
        return None
    last = len(said_before) - 1 - said_before[::-1].index("list")
    preps = [i for i in range(last) if said_before[i] in ("to", "on", "from", "off")]
    opening = [i for i in preps if said_before[i + 1] in _DETERMINERS]  # not "to do"
    if not preps:
        return None
    prep = (opening or preps)[-1]
    return [*before[: prep + 1], *fix, *before[last + 1 :]]


def _place(before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens) -> Tokens | None:
    """ "weather in sydney, scratch that, melbourne": the last city named."""
    from understanding.gazetteer.fuzzy import find_cities, resolve_city

    content = [w for w in said_fix if w not in _DETERMINERS]
    lead = next((w for w in (3, 2, 1) if resolve_city(" ".join(content[:w])) is not None), 0)
    if not content or not lead or (lead < len(content) and not _said_after_a_place(content[lead:])):
        return None
    rest = fix[len(fix) - (len(content) - lead) :] if lead < len(content) else []
    fix = fix[: len(fix) - len(rest)]
    cities = find_cities(" ".join(before))
    if not cities:
        return None
    at, city = cities[-1]
    for width in (3, 2, 1):
        if resolve_city(" ".join(said_before[at : at + width])) == city:
            kept = [w for w in fix if w.lower() not in _DETERMINERS]  # the city as said
            return [*before[:at], *kept, *rest, *before[at + width :]]
    return None


def _said_after_a_place(words: Tokens) -> bool:
    """Whether the words after a corrected city are its day or time ("munich on friday",
    "rome tomorrow"): they go with it."""
    said = [w for w in words if w not in ("on", "this", "next", "for")]
    return 0 < len(said) <= 2 and all(w in _DAYS or w in ("today", "tomorrow") for w in said)


def _room_or_device(
    before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens
) -> Tokens | None:
    """ "the bedroom one", "the office fan", "the speaker": the request's room, device or
    both, replaced by the ones the correction names."""
    from understanding.arguments.devices import DEVICE_NAMES, ROOM_NAMES, _find_phrases

    if {"it", "them", "those"} & set(said_fix):
        return None  # "no, lock it": a verb on the request's object (``_verb``)
    words = [w for w in said_fix if w not in _DETERMINERS and w not in _PRONOUNS]
    if not words:
        return None
    rooms, devices = _find_phrases(words, ROOM_NAMES), _find_phrases(words, DEVICE_NAMES)
    named = sorted({i for s, e, _ in (*rooms, *devices) for i in range(s, e)})
    if named != list(range(len(words))):
        return None  # the correction says more than a room and a device
    old_rooms = _find_phrases(said_before, ROOM_NAMES)
    old_devices = _find_phrases(said_before, DEVICE_NAMES)
    if rooms and devices:
        spans = [*old_rooms[-1:], *old_devices[-1:]]
        if not spans:
            return None
        at, end = min(s for s, _, _ in spans), max(e for _, e, _ in spans)
        return [*before[:at], *words, *before[end:]]
    if rooms:
        room = words[rooms[0][0] : rooms[0][1]]
        if old_rooms:
            at, end, _ = old_rooms[-1]
            return [*before[:at], *room, *before[end:]]
        if old_devices:  # "turn on the light, no, the kitchen one": the room before it
            at = old_devices[-1][0]
            return [*before[:at], *room, *before[at:]]
        return None
    if not old_devices:
        return None
    at, end, _ = old_devices[-1]
    return [*before[:at], *words, *before[end:]]


def _verb(before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens) -> Tokens | None:
    """ "open the office blinds, actually close them": the correction's verb on the
    request's object; "add butter to the list, scratch that, add margarine": the same
    verb's new object, the rest of the request kept."""
    from understanding.policy import COMMAND_VERBS

    verbs = COMMAND_VERBS | {"brighten", "dim", "raise", "lower", "pause", "resume"}
    while len(said_fix) > 1 and said_fix[0] in ("just", "please", "then", "instead", "only"):
        fix, said_fix = fix[1:], said_fix[1:]  # "i mean, just turn the study light on"
    if said_fix[0] not in verbs:
        return None
    clause = max((i + 1 for i, w in enumerate(said_before) if w in _JOINERS or w == ","), default=0)
    head, said_head = before[clause:], said_before[clause:]
    if not said_head or said_head[0] not in verbs:
        return None
    obj = 1
    while obj < len(said_head) and said_head[obj] in _PARTICLES:
        obj += 1
    target = [t for t, w in zip(head[obj:], said_head[obj:], strict=True) if w not in _PARTICLES]
    pronouns = [i for i, w in enumerate(said_fix) if w in ("it", "them", "those", "that")]
    if pronouns:
        at = pronouns[0]
        return [*before[:clause], *fix[:at], *target, *fix[at + 1 :]]
    if said_fix[0] == said_head[0] and len(said_fix) > 1:
        cut = next((i for i in range(obj, len(said_head)) if said_head[i] in _PREPOSITIONS), None)
        rest = head[cut:] if cut is not None else []
        return [*before[:clause], *fix, *rest]
    return [*before[:clause], *fix] if len(said_fix) > 2 else None


_NO_OBJECT = frozenset({"me", "us", "it", "them", "that", "this", "you", "him", "her"})


def _object(before: Tokens, said_before: Tokens, fix: Tokens, said_fix: Tokens) -> Tokens | None:
    """ "add apples to the shopping list, actually make that pears": a short noun phrase
    replaces the object of the request's verb (the words between the verb and its first
    preposition), the rest of the request kept."""
    from understanding.policy import COMMAND_VERBS

    if len(said_fix) > 4 or any(_is_number(w) or w in _PRONOUNS for w in said_fix):
        return None
    if said_fix[0] in COMMAND_VERBS or said_fix[0] in _PREPOSITIONS:
        return None
    clause = max((i + 1 for i, w in enumerate(said_before) if w in _JOINERS or w == ","), default=0)
    said_head = said_before[clause:]
    if not said_head or said_head[0] not in COMMAND_VERBS:
        return None
    obj = clause + 1
    while obj < len(said_before) and said_before[obj] in _PARTICLES:
        obj += 1
    end = next((i for i in range(obj, len(said_before)) if said_before[i] in _PREPOSITIONS), None)
    if end is None or end == obj or set(said_before[obj:end]) & _NO_OBJECT:
        return None
    return [*before[:obj], *fix, *before[end:]]


def _joined(tokens: list[str]) -> str:
    text = re.sub(r"\.{2,}|…", "", " ".join(tokens))  # a pause's dots are no words
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    return re.sub(r"(,\s*)+,", ",", text).strip(" ,")


# Words before which "no" is a determiner ("with no sugar", "there's no milk"), not a fix.
_NO_AS_DETERMINER = frozenset(
    {"with", "have", "has", "had", "is", "are", "was", "were", "there", "there's", "theres",
     "say", "said", "says", "and", "or", "but", "of", "for", "to", "at", "in", "on", "yes",
     "no", "got", "get", "want", "need"}
)  # fmt: skip


def unplaced_fix(text: str) -> str | None:
    """The correction marker inside a note's or a label's own words ("bananas no apples",
    "bread sorry rolls"), or None: no rule knows which of the two is meant, and writing
    both is writing what was taken back."""
    low: list[str] = [str(t).lower() for t in _TOKEN.findall(text)]
    low = [t for t in low if t not in _HESITATION]
    for i in range(1, len(low) - 1):
        before, token, after = low[i - 1], low[i], low[i + 1]
        no_fix = token == "no" and before not in _NO_AS_DETERMINER
        if no_fix and after not in _NOT_A_CORRECTION["no"] and after.isalpha():
            return token
        if token == "sorry" and after not in _NOT_A_CORRECTION["sorry"] and after.isalpha():
            return token
        if low[i : i + 2] == ["i", "mean"] and i + 2 < len(low):
            return "i mean"
    return None
