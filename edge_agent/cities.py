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


def normalise(name: str) -> str:
    """Lower-case, trimmed, single-spaced, without surrounding punctuation."""
    return " ".join(name.lower().strip(" \t\n.,!?;:'\"").split())


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
        r"(?P<sep>\s*,\s*|\s*\(\s*|\s+)(?P<name>" + alternation + r")(?P<close>\s*\))?"
        r"(?=$|[\s,.;:!?)'\"])",
        re.IGNORECASE,
    )


def _city_ending(prefix: str) -> str | None:
    """The known city whose name ends ``prefix`` ("weather in New York" -> new york)."""
    words = prefix.split()
    for width in (3, 2, 1):
        if len(words) < width:
            continue
        chunk = normalise(" ".join(words[-width:]))
        if not chunk or chunk in _STOP or (width > 1 and words[-width].lower() in _STOP):
            continue
        city = _lookup_chunk(chunk, width, CUTOFF)
        if city is not None:
            return city
    return None


def _is_code(name: str) -> bool:
    return len(name.replace(".", "")) <= 3


def _scan_qualifiers(text: str) -> tuple[str, str | None]:
    """``text`` without the qualifiers of its cities, and the first city named as another
    place ("Paris, Texas"), if any."""
    own, other = _regions()
    pattern = _qualifier_pattern()
    for _ in range(4):  # "Toronto, Ontario, Canada": one qualifier a pass
        changed = False
        for match in pattern.finditer(text):
            city = _city_ending(text[: match.start()])
            if city is None:
                continue
            written = match.group("name")
            name = written.lower()
            if name in own.get(city, ()):
                if (
                    _is_code(name)
                    and "," not in match.group("sep")
                    and not written.isupper()
                    and name not in _SAFE_LOWER_CODES
                ):
                    continue
                text = text[: match.start()] + text[match.end() :]
                changed = True
                break
            if name in other:
                city_words = text[: match.start()].split()[-len(city.split()) :]
                place = " ".join(city_words).strip(" ,(")
                return text, f"{place}, {written}"
        if not changed:
            break
    return text, None


def strip_qualifiers(text: str) -> str:
    """``text`` without the country or region that follows a known city and holds it.

    A qualifier only confirms which city is meant, so it is dropped ("weather in Cairo,
    Egypt" reads as "weather in Cairo"); a qualifier that names another country or region
    is left alone (see :func:`other_place`). Abbreviations count in capitals or after a
    comma ("Seattle WA", "toronto, on"), never as everyday words ("Toronto on Friday").

    >>> strip_qualifiers("time in Toronto, Ontario, Canada please")
    'time in Toronto please'
    """
    return _scan_qualifiers(text)[0]


def other_place(text: str) -> str | None:
    """A known city's name followed by a country or region it is not in ("Paris, Texas",
    "London Ontario"), as written; None when there is none. Such a place is not the city
    the device knows, so its weather or time is not for the device to answer.

    >>> other_place("weather in Paris, Texas")
    'Paris, Texas'
    """
    return _scan_qualifiers(text)[1]
