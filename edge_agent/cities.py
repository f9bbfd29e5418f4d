"""The city gazetteer: the cities the device knows, their time zones and fuzzy lookup.

Weather and the world clock answer for the same fixed list of cities (the project's copy
of the shared list, ``edge_agent/data/cities.json``). People misspell city names and use
other names for them ("NYC", "Bombay"), so lookup goes through aliases first and then a
similarity match with a cut-off: a near miss resolves, a different word does not.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

# Everyday names and old names that are not spelling variants of the canonical name.
ALIASES: dict[str, str] = {
    "nyc": "new york",
    "new york city": "new york",
    "ny": "new york",
    "manhattan": "new york",
    "la": "los angeles",
    "l.a.": "los angeles",
    "sf": "san francisco",
    "frisco": "san francisco",
    "bombay": "mumbai",
    "new delhi": "delhi",
    "peking": "beijing",
    "canton": "guangzhou",
    "xi'an": "xian",
    "xi an": "xian",
    "hongkong": "hong kong",
    "hk": "hong kong",
    "constantinople": "istanbul",
    "são paulo": "sao paulo",
    "sao paolo": "sao paulo",
    "cdmx": "mexico city",
    "mexico df": "mexico city",
    "bangkok city": "bangkok",
    "frisco bay": "san francisco",
}

# Similarity a misspelt name needs to resolve (difflib ratio). 0.8 lets "Pariss",
# "Tokio", "Londn" and "Sydny" through and keeps unrelated words like "paint" out.
CUTOFF = 0.8


@cache
def cities() -> dict[str, str]:
    """Canonical lower-case city name -> IANA time zone."""
    text = resources.files("edge_agent.data").joinpath("cities.json").read_text("utf-8")
    return {entry["city"]: entry["timezone"] for entry in json.loads(text)}


def timezone_of(city: str) -> str | None:
    """The IANA time zone of a canonical city name, or None for a city the device lacks."""
    return cities().get(city)


def normalise(name: str) -> str:
    """Lower-case, trimmed, single-spaced, without surrounding punctuation or brackets."""
    return " ".join(name.lower().strip(" \t\n.,!?;:'\"()").split())


def resolve_city(name: str, cutoff: float = CUTOFF) -> str | None:
    """The canonical city for ``name`` (exact, alias or close misspelling), else None.

    >>> resolve_city("Pariss")
    'paris'
    """
    key = normalise(name)
    if not key:
        return None
    known = cities()
    if key in known:
        return key
    if key in ALIASES:
        return ALIASES[key]
    if len(key) < 4:
        return None
    match = difflib.get_close_matches(key, list(known), n=1, cutoff=cutoff)
    return match[0] if match else None


def find_cities(text: str, cutoff: float = CUTOFF) -> list[tuple[int, str]]:
    """Every city named in ``text``, as (word position, canonical name), in order.

    Tries windows of three, two and one words at each position so that "new york" and
    "hong kong" win over their parts, and skips the words a match used.
    """
    words = [normalise(w) for w in text.replace(",", " , ").replace("?", " ? ").split()]
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(words):
        if words[i] in _STOP:
            i += 1
            continue
        for width in (3, 2, 1):
            chunk = " ".join(w for w in words[i : i + width] if w)
            if len(words[i : i + width]) < width or not chunk or chunk in _STOP:
                continue
            city = _lookup_chunk(chunk, width, cutoff)
            if city is not None:
                found.append((i, city))
                i += width
                break
        else:
            i += 1
    return found


@lru_cache(maxsize=8192)
def _lookup_chunk(chunk: str, width: int, cutoff: float) -> str | None:
    known = cities()
    if chunk in known:
        return chunk
    if chunk in ALIASES:
        return ALIASES[chunk]
    if chunk.endswith("'s") and chunk[:-2] in known:
        return chunk[:-2]
    if len(chunk) < 4 or (width == 1 and chunk in _COMMON):
        return None
    # A fuzzy multi-word match must match a multi-word city, and vice versa, so that
    # "in rome" never becomes "rome" twice nor "rome today" a city.
    # A typo rarely changes both of the first two letters: comparing only names that share
    # one of them keeps the fuzzy match cheap (difflib is the slow part of a decision).
    pool = [
        c for c in known if (" " in c) == (width > 1) and (c[0] == chunk[0] or c[1:2] == chunk[1:2])
    ]
    match = difflib.get_close_matches(chunk, pool, n=1, cutoff=cutoff)
    return match[0] if match else None


# Words that look like city names to a fuzzy matcher but are everyday English.
_COMMON = frozenset(
    [
        "there",
        "where",
        "today",
        "tomorrow",
        "weather",
        "paris's",
        "rain",
        "rainy",
        "sunny",
        "cloudy",
        "snowy",
        "windy",
        "foggy",
        "time",
        "timer",
        "timezone",
        "right",
        "now",
        "later",
        "hours",
        "minutes",
        "seconds",
        "hour",
        "minute",
        "second",
        "about",
        "what",
        "whats",
        "it's",
        "its",
        "like",
        "outside",
        "forecast",
        "going",
        "will",
        "would",
        "should",
        "could",
        "please",
        "thanks",
        "tonight",
        "morning",
        "evening",
        "night",
        "cold",
        "hot",
        "warm",
        "degrees",
        "colder",
        "warmer",
        "clock",
        "local",
    ]
)
_STOP = frozenset({",", "?", "in", "the", "at", "for", "of", "and", "or", "to"})


# -- qualifiers: "Cairo, Egypt", "Portland, Oregon" ------------------------------------------

# Abbreviations that are also everyday words or too short to trust in lower case ("on",
# "us", "ca"): they qualify a city only in capitals ("Toronto ON") or after a comma.
_SAFE_LOWER_CODES = frozenset({"uk", "u.k.", "usa", "u.s.a.", "uae", "u.a.e.", "nz", "nsw", "prc"})


@cache
def _regions() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    text = resources.files("edge_agent.data").joinpath("regions.json").read_text("utf-8")
    data = json.loads(text)
    own = {city: frozenset(names) for city, names in data["own"].items()}
    return own, frozenset(data["other"])


@cache
def _qualifier_pattern() -> re.Pattern[str]:
    own, other = _regions()
    names = sorted({n for names in own.values() for n in names} | other, key=len, reverse=True)
    alternation = "|".join(re.escape(n) for n in names)
    return re.compile(
        r"(?P<sep>\s*,\s*|\s*\(\s*|\s+in\s+|\s+)(?P<name>" + alternation + r")(?P<close>\s*\))?"
        r"(?=$|[\s,.;:!?)'\"])",
        re.IGNORECASE,
    )


@dataclass(frozen=True)
class Qualifier:
    """A country or region written after a place, and what stands before it.

    ``separator`` is ``","``, ``"("``, ``"in"`` or ``" "``; ``start`` is where the separator
    begins, ``name_start`` where the name does, ``end`` is past the name (and a closing
    bracket).
    """

    written: str
    separator: str
    start: int
    name_start: int
    end: int

    @property
    def name(self) -> str:
        """The name in lower case, as ``regions.json`` holds it."""
        return self.written.lower()

    @property
    def is_code(self) -> bool:
        """An abbreviation ("ON", "u.k."), not a full name."""
        return len(self.name.replace(".", "")) <= 3

    @property
    def reads_as_qualifier(self) -> bool:
        """Whether the words qualify the place where they stand: a full name after a comma,
        a bracket, "in" or a space; an abbreviation after a comma or a bracket, in capitals,
        or when it is no everyday word ("Toronto ON", "londn uk"), never after "in" ("Toronto
        in on") nor as a word of the sentence ("Toronto on Friday")."""
        if not self.is_code:
            return True
        if self.separator == "in":
            return False
        return (
            self.separator in (",", "(") or self.written.isupper() or self.name in _SAFE_LOWER_CODES
        )


def _qualifier(match: re.Match[str]) -> Qualifier:
    sep = match.group("sep")
    if "," in sep:
        kind = ","
    elif "(" in sep:
        kind = "("
    elif sep.strip():
        kind = "in"
    else:
        kind = " "
    return Qualifier(match.group("name"), kind, match.start(), match.start("name"), match.end())


def qualifiers_after(text: str, pos: int) -> list[Qualifier]:
    """The countries and regions written one after another from ``pos`` (where a place's
    name ends), as long as each reads as a qualifier (see :attr:`Qualifier.reads_as_qualifier`).

    >>> text = "weather in Paris, Texas, USA on Friday"
    >>> [q.written for q in qualifiers_after(text, text.index(","))]
    ['Texas', 'USA']
    >>> [q.separator for q in qualifiers_after("Seoul in South Korea", 5)]
    ['in']
    """
    pattern = _qualifier_pattern()
    chain: list[Qualifier] = []
    while (match := pattern.match(text, pos)) is not None:
        found = _qualifier(match)
        if not found.reads_as_qualifier:
            break
        chain.append(found)
        pos = found.end
    return chain


def _words(text: str) -> list[str]:
    return [normalise(w) for w in text.replace(",", " , ").replace("?", " ? ").split()]


def _city_ending(prefix: str) -> tuple[str, int] | None:
    """The known city whose name ends ``prefix`` and how many words it takes ("weather in
    New York" -> new york, 2; "weather in NYC" -> new york, 1). A list word or a comma is in
    no city's name, and a misspelling has the city's number of words: "Hong Kong and" and
    "Hong Kong, ON" are no fuzzy "Hong Kong"."""
    words = prefix.split()
    if not words or normalise(words[-1]) in _STOP:
        return None
    for width in (3, 2, 1):
        if len(words) < width:
            continue
        window = words[-width:]
        chunk = normalise(" ".join(window))
        if (
            not chunk
            or any(normalise(w) in _STOP for w in window)
            or any(w[-1] in ",;:()" for w in window[:-1])
        ):
            continue
        city = _lookup_chunk(chunk, width, CUTOFF)
        if city is None:
            continue
        named = chunk in cities() or chunk in ALIASES or chunk.endswith("'s")
        if named or len(city.split()) == width:
            return city, width
    return None


def _names_another_city(text: str, found: Qualifier, city: str) -> bool:
    """Whether the qualifier's words are themselves a known city other than ``city``, or
    the start of one's name ("Singapore"; "Mexico" of "Mexico City"): the query lists
    cities then ("Berlin, Singapore", "Sao Paulo, Mexico City"), it names no region."""
    words = _words(text[found.name_start :])
    own_width = len(found.name.split())
    for width in (3, 2, 1):
        if width < own_width or len(words) < width:
            continue
        chunk = " ".join(words[:width])
        if any(not w or w in _STOP for w in words[:width]):
            continue
        if width == own_width:  # the region's own words: a city by name, not by a likeness
            other = chunk if chunk in cities() else ALIASES.get(chunk)
        else:
            other = _lookup_chunk(chunk, width, CUTOFF)
        if other is not None:
            return other != city
    return False


def _scan_qualifiers(text: str) -> tuple[str, str | None]:
    """``text`` without the qualifiers of its cities, and the first city named as another
    place ("Paris, Texas"), if any."""
    own, other = _regions()
    pattern = _qualifier_pattern()
    for _ in range(4):  # "Toronto, Ontario, Canada": one qualifier a pass
        changed = False
        for match in pattern.finditer(text):
            found = _qualifier(match)
            if not found.reads_as_qualifier:
                continue
            ending = _city_ending(text[: found.start])
            if ending is None:
                continue
            city, width = ending
            if _names_another_city(text, found, city):
                continue
            if found.name in own.get(city, ()):
                text = text[: found.start] + text[found.end :]
                changed = True
                break
            if found.name in other:
                place = " ".join(text[: found.start].split()[-width:]).strip(" ,()")
                return text, f"{place}, {found.written}"
        if not changed:
            break
    return text, None


def region_in(text: str) -> str | None:
    """The first country or region named in full in ``text`` ("Texas" in "weather in Hong
    Kong or Texas"), as written; None when there is none. Abbreviations ("on", "us") are
    everyday words too and do not count, nor does a region's name that is a known city or
    the start of one ("Singapore", "Mexico City"). Read it after :func:`strip_qualifiers`,
    which drops the regions that only confirm a city: a region left is a place of its own,
    and none the device knows.

    >>> region_in("will it rain in Hong Kong or Texas")
    'Texas'
    >>> region_in("time in Mexico City and Singapore") is None
    True
    """
    for match in _qualifier_pattern().finditer(text):
        found = _qualifier(match)
        if found.is_code or _names_another_city(text, found, ""):
            continue
        return found.written
    return None


def strip_qualifiers(text: str) -> str:
    """``text`` without the country or region that follows a known city and holds it.

    A qualifier only confirms which city is meant, so it is dropped ("weather in Cairo,
    Egypt" reads as "weather in Cairo", "Seoul in South Korea" as "Seoul"); a qualifier that
    names another country or region is left alone (see :func:`other_place`). Abbreviations
    count in capitals or after a comma ("Seattle WA", "toronto, on"), never as everyday
    words ("Toronto on Friday"); a city listed after another is no region ("Hong Kong,
    Singapore").

    >>> strip_qualifiers("time in Toronto, Ontario, Canada please")
    'time in Toronto please'
    """
    return _scan_qualifiers(text)[0]


def other_place(text: str) -> str | None:
    """A known city's name followed by a country or region it is not in ("Paris, Texas",
    "London Ontario", "Sydney in Nova Scotia"), as "<the city's words>, <region>"; None when
    there is none. Such a place is not the city the device knows, so its weather or time is
    not for the device to answer. Cities in a list ("Hong Kong and Singapore", "Sao Paulo or
    Mexico City") are no such place.

    >>> other_place("weather in Paris, Texas")
    'Paris, Texas'
    >>> other_place("weather in NYC in Georgia")
    'NYC, Georgia'
    """
    return _scan_qualifiers(text)[1]
