"""The city gazetteer: the cities the device knows, their time zones and fuzzy lookup.

Weather and the world clock answer for the same fixed list of cities (the project's copy
of the shared list, ``edge_agent/data/cities.json``). People misspell city names and use
other names for them ("NYC", "Bombay"), so lookup goes through aliases first and then a
similarity match with a cut-off: a near miss resolves, a different word does not.
"""

from __future__ import annotations

import difflib
import json
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
