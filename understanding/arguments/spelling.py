"""Fix misspelt domain words before the argument parsers read a query.

People type "tims", "kilomiters", "thermostst", "minuets", "noet". The parsers match
words exactly, so a word that is one edit (or one swap) away from a word of the device's
vocabulary (units, devices, rooms, operators, durations, note commands) is replaced by
it. Common English words are never touched, and neither are short words (< 4 letters),
where one edit reaches too many other words.

>>> correct("calcualte 45 tims 3")
'calculate 45 times 3'
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

_WORD = re.compile(r"[A-Za-z]+")

# Everyday words that sit one edit away from a vocabulary word and must stay themselves.
_KEEP = frozenset(
    """
    about above after again against also always among another answer anything around away
    back bath been before being below best better between both bring brought call called
    calls came care case cell cold come comes could cool cost dark date days deal dear does
    doing done door down draw drop each early east easy else even ever every face fact fair
    fall fast feel feet fell felt file fill find fine fire first five floor food foot form
    four free from full game gave give goes going gone good great hall hand hard have head
    hear heard heat held hell help here high hold home hope hour hours house into item just
    keep kept kind knew know land last late later left less life like line list live lock
    long look lose lost love made mail main make many mark meal mean meat meet mile mind
    mine miss mode more most move much must name near need needs never news next nice night
    nine none noon north note nothing only open order other over page paid pain pair park
    part pass past pick place plan play please plus point pool post pull push quite rain
    read real rest ride ring road room rose round rule said sale same save says seal seat
    seen self sell send sent seven shall shoe shop short shot show shut side sign since
    sing size slow small some song soon sort sound south spot star stay step still stop
    such sure take talk tall tell tens than that their them then there these they thin
    thing think this those three tide till time times tiny tire told tone took tour town
    tree trip true turn type under unit upon used very view wait walk wall want warm wash
    watch water week well went were west what when where which while white whole will wind
    wine wish with within without word words work world would yard year years your yours
    light lights liter liters litre litres meter meters metre metres gram grams inch
    minute minutes second seconds miles heater lamp lamps note notes mins secs hrs nite
    """.split()  # noqa: SIM905
)
# Words of the parsers' own that a typo should be corrected to even when short.
_CORE = frozenset(
    """
    plus minus times multiplied divided divide multiply percent squared cubed square root
    calculate compute convert celsius fahrenheit kelvin hundred thousand dozen half quarter
    note notes jot memo remember timer countdown search find thermostat minutes seconds
    hours weather forecast temperature tomorrow today time lights light blinds curtains
    """.split()  # noqa: SIM905
)


@cache
def vocabulary() -> frozenset[str]:
    """The domain words the parsers know (single words only)."""
    from understanding.arguments.devices import DEVICE_NAMES, ROOM_NAMES
    from understanding.arguments.durations import UNIT_SECONDS
    from understanding.arguments.numbers import SCALES, SMALL, TENS
    from understanding.arguments.units import NAMES

    words: set[str] = set()
    for table in (NAMES, DEVICE_NAMES, ROOM_NAMES, UNIT_SECONDS, SMALL, TENS, SCALES):
        words.update(w for w in table if w.isalpha())
    # Short words reach too many others by one edit ("hall" from "call"): only long ones,
    # and the parsers' core words, are correction targets.
    return frozenset(w for w in words if len(w) >= 5) | _CORE


def one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by one insertion, deletion, substitution or swap."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@cache
def _english() -> frozenset[str]:
    """The whole words of the shipped sentence encoder's vocabulary (BERT's uncased
    WordPiece, 30,522 entries): everyday English, names and places, and no typos."""
    import json

    from understanding.encoder import DEFAULT_MODEL_DIR

    try:
        with open(DEFAULT_MODEL_DIR / "tokenizer.json", encoding="utf-8") as handle:
            vocab = json.load(handle)["model"]["vocab"]
    except (OSError, KeyError, ValueError):
        return frozenset()
    return frozenset(w for w in vocab if w.isalpha() and w.islower())


def is_english(word: str) -> bool:
    """Whether ``word`` is a real word, which no corrector may turn into another ("showing"
    is no misspelt "snowing", "heather" no "weather")."""
    return word.lower() in _english()


@lru_cache(maxsize=8192)
def _fix(word: str) -> str:
    lower = word.lower()
    vocab = vocabulary()
    if len(lower) < 4 or lower in vocab or lower in _KEEP or is_english(lower):
        return word
    candidates = [v for v in vocab if v[0] == lower[0] or v[1:2] == lower[1:2]]
    matches = sorted((v for v in candidates if one_edit(lower, v)), key=len, reverse=True)
    # The vocabulary holds some misspellings of its own ("minuts"); the longest match is
    # the correct spelling. Two equally long matches are ambiguous: leave the word.
    if matches and (len(matches) == 1 or len(matches[0]) > len(matches[1])):
        return matches[0]
    return word


def correct(text: str) -> str:
    """``text`` with misspelt domain words replaced (everything else unchanged)."""
    return _WORD.sub(lambda m: _fix(m.group(0)), text)


# The words that change what a command does ("except the kitchen", "until 7"): a misspelt
# one is read as itself before anything else reads the query, as dropping it would act on
# the rooms left out.
_QUALIFIER_WORDS = ("except", "excluding", "besides", "unless", "until")


def with_qualifier_words(text: str) -> str:
    """``text`` with misspelt qualifier words spelt right ("all lights off exept the hall"
    -> "... except the hall"); real words ("expect") stay as said."""

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = word.lower()
        if len(lower) < 4 or lower in _QUALIFIER_WORDS or is_english(lower):
            return word
        found = [q for q in _QUALIFIER_WORDS if q[0] == lower[0] and one_edit(lower, q)]
        return found[0] if len(found) == 1 else word

    return _WORD.sub(fix, text)


@cache
def _room_words() -> dict[str, str]:
    """The one-word room names of five letters or more, each with the room it names."""
    from understanding.arguments.devices import ROOM_NAMES

    return {name: room for name, room in ROOM_NAMES.items() if name.isalpha() and len(name) >= 5}


def with_room_words(text: str) -> str:
    """``text`` with misspelt room names spelt right ("turn off the kitchin light" -> "...
    kitchen light"), before anything reads it: a room the model does not read as one is
    dropped, and the command then acts on another room. Real words stay as said."""
    rooms = _room_words()

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = word.lower()
        if len(lower) < 5 or lower in rooms or lower in _KEEP or is_english(lower):
            return word
        return _one_room(lower, rooms) or word

    fixed = _WORD.sub(fix, text)
    return _TWO_WORD_ROOM.sub(lambda m: _two_word_room(m.group(0)), fixed)


_TWO_WORD_ROOM = re.compile(r"\b[A-Za-z]+\s+(?:room|way|bedroom|area)\b", re.IGNORECASE)


def _two_word_room(said: str) -> str:
    """A two-word room name misspelt by one edit ("dinning room"), else ``said``."""
    from understanding.arguments.devices import ROOM_NAMES

    lower = " ".join(said.lower().split())
    if lower in ROOM_NAMES:
        return said
    return _one_room(lower, {n: r for n, r in ROOM_NAMES.items() if " " in n}) or said


def misspelt_room(said: str) -> str | None:
    """The one room whose name of five letters or more ``said`` misspells by one edit
    ("dinning room", "kitchin"), else None."""
    from understanding.arguments.devices import ROOM_NAMES

    if len(said) < 5:
        return None
    return _one_room(said, {n: r for n, r in ROOM_NAMES.items() if len(n) >= 5})


def _one_room(said: str, names: dict[str, str]) -> str | None:
    """The one room (of ``names``: name -> room) that ``said`` is one edit from, else None."""
    found = {room for name, room in names.items() if one_edit(said, name)}
    return found.pop() if len(found) == 1 else None
