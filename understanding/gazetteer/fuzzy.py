"""Finding cities in what people write: aliases, near misses of big cities, free text.

A near miss resolves among the big cities only (``FUZZY_MIN_POPULATION``); a city whose
name is also an everyday word counts only where a place is expected (``PLACE_WORDS``).
"""

from __future__ import annotations

import difflib
from functools import cache, lru_cache

from understanding.gazetteer.index import ALIASES, _index, fold, normalise

# Similarity a misspelt name needs to resolve (difflib ratio). 0.8 lets "Pariss",
# "Tokio", "Londn" and "Sydny" through and keeps unrelated words like "paint" out.
CUTOFF = 0.8
# Words after which a name that is also an everyday word is read as a place.
PLACE_WORDS = frozenset({"in", "for", "at", "near", "around"})


@cache
def _fuzzy_pools() -> dict[tuple[bool, str], dict[int, list[str]]]:
    """The big cities by (several words?, a letter of their first two), then by length,
    for fuzzy lookup."""
    pools: dict[tuple[bool, str], dict[int, list[str]]] = {}
    for name in _index().big:
        several = " " in name
        for letter in {name[:1], "#" + name[1:2]}:
            pools.setdefault((several, letter), {}).setdefault(len(name), []).append(name)
    return pools


def _fuzzy(chunk: str, several: bool, cutoff: float) -> str | None:
    if chunk in _index().near_misses:
        return None
    # A typo rarely changes both of the first two letters: comparing only names that share
    # one of them keeps the fuzzy match cheap (difflib is the slow part of a decision). Of
    # those, only the lengths whose ratio could reach the cut-off (difflib's own first test,
    # real_quick_ratio, 2 * shorter / both; the rest it would drop): the same match.
    pools = _fuzzy_pools()
    size = len(chunk)
    pool = [
        name
        for key in ((several, chunk[:1]), (several, "#" + chunk[1:2]))
        for length, names in pools.get(key, {}).items()
        if 2.0 * min(length, size) / (length + size) >= cutoff
        for name in names
    ]
    match = difflib.get_close_matches(chunk, pool, n=1, cutoff=cutoff)
    return match[0] if match else None


def resolve_city(name: str, cutoff: float = CUTOFF) -> str | None:
    """The canonical city for ``name`` (exact, alias or close misspelling), else None.

    >>> resolve_city("Pariss")
    'paris'
    """
    key = normalise(name)
    if not key:
        return None
    known = _index()
    if key in ALIASES:
        return ALIASES[key]
    if key in known:
        return key
    folded = fold(key)
    if folded in ALIASES:
        return ALIASES[folded]
    if folded in known:
        return folded
    if folded.replace("-", " ") in known:
        return folded.replace("-", " ")
    if len(key) < 4:
        return None
    return _fuzzy(key, " " in key, cutoff)


def suggest_city(name: str, cutoff: float = 0.7) -> str | None:
    """A big city whose name is close to ``name`` though below the lookup's cut-off, to
    suggest, never to answer for ("rom": rome)."""
    key = fold(normalise(name))
    if len(key) < 3:
        return None
    return _fuzzy(key, " " in key, cutoff)


def find_cities(text: str, cutoff: float = CUTOFF) -> list[tuple[int, str]]:
    """Every city named in ``text``, as (word position, canonical name), in order.

    Tries windows of three, two and one words at each position so that "new york" and
    "hong kong" win over their parts, and skips the words a match used. A city whose name
    is an everyday word counts only after a word such as "in" ("weather in nice").
    """
    words = [normalise(w) for w in text.replace(",", " , ").replace("?", " ? ").split()]
    found: list[tuple[int, int, str]] = []
    everyday: list[tuple[int, int, str]] = []
    loose: list[tuple[int, int, str]] = []
    i = 0
    while i < len(words):
        if words[i] in _STOP:
            i += 1
            continue
        placed = i > 0 and words[i - 1] in PLACE_WORDS
        if i > 0 and words[i - 1] == "on":  # "weather on Jupiter": no city is "on" a name
            i += 1
            continue
        pending: tuple[int, int, str] | None = None
        plain: tuple[int, int, str] | None = None  # the widest everyday name here
        for width in (3, 2, 1):
            chunk = " ".join(w for w in words[i : i + width] if w)
            if len(words[i : i + width]) < width or not chunk or chunk in _STOP:
                continue
            city = _lookup_chunk(chunk, width, cutoff)
            bare = chunk.removesuffix("'s")  # "what time's it": the word, not a city
            if city is not None and not placed and _loose(chunk, city):
                pending = pending or (i, i + width, city)  # a closer, shorter one may follow
                continue
            if city is not None and (placed or bare != city or not _is_everyday(city)):
                found.append((i, i + width, city))
                i += width
                break
            if city is not None and plain is None:
                plain = (i, i + width, city)  # "denver and salt lake city": all everyday words
        else:
            if pending is not None:
                loose.append(pending)  # kept only beside another place
            if plain is not None:
                everyday.append(plain)
            i = pending[1] if pending is not None else (plain[1] if plain is not None else i + 1)
    found += _beside_a_place(loose, found, words)
    return [(start, city) for start, _, city in sorted(_listed_with(found, everyday, words))]


def _beside_a_place(
    loose: list[tuple[int, int, str]], found: list[tuple[int, int, str]], words: list[str]
) -> list[tuple[int, int, str]]:
    """The loose near misses said in a list or a comparison with a place ("is tokio warmer
    than seoul", "londn and pairs"); elsewhere an everyday word ("a good tapas place")
    is no city."""
    kept = []
    for start, end, city in loose:
        for other, other_end, _ in found:
            between = words[min(end, other_end) : max(start, other)]
            if _JOINS.intersection(between):
                kept.append((start, end, city))
                break
    return kept


def _loose(chunk: str, city: str) -> bool:
    """Whether ``chunk`` is only a loose near miss of ``city`` ("tapas" of Tampa, 0.8),
    where a close one ("pariss", "londn": 0.9) reads as the city anywhere."""
    if chunk in ALIASES or fold(chunk) in ALIASES or fold(chunk.removesuffix("'s")) == city:
        return False
    return difflib.SequenceMatcher(None, fold(chunk), city).ratio() < _LOOSE


_LOOSE = 0.85


# Words that join places in a list or a comparison ("lisbon or porto", "nice vs rome").
_JOINS = frozenset({"and", "or", ",", "vs", "versus", "&", "than"})


def _listed_with(
    found: list[tuple[int, int, str]], everyday: list[tuple[int, int, str]], words: list[str]
) -> list[tuple[int, int, str]]:
    """``found`` with the everyday names joined to one of its cities by a list word
    ("lisbon or porto", "geneva and zurich"): a list of places is all places."""
    found, left = list(found), list(everyday)
    grew = True
    while grew and left:
        grew = False
        for candidate in list(left):
            start, end, _ = candidate
            for other_start, other_end, _ in found:
                after = other_end <= start
                gap = words[other_end:start] if after else words[end:other_start]
                if after:
                    gap = _without_day(gap)
                # "lisbon than porto" names two places, "wetter than porto" one.
                if len(gap) == 1 and gap[0] in _JOINS and (after or gap[0] != "than"):
                    found.append(candidate)
                    left.remove(candidate)
                    grew = True
                    break
    return found


_DAYS = frozenset(
    {"today", "tomorrow", "tonight", "monday", "tuesday", "wednesday", "thursday", "friday"}
    | {"saturday", "sunday"}
)


def _without_day(gap: list[str]) -> list[str]:
    """The words between two items of a list of places, less the day the first item
    names ("marseille on tuesday and nice"): each place may carry its day."""
    if gap[:1] == ["on"] and gap[1:2] and gap[1] in _DAYS:
        return gap[2:]
    if gap[:1] and gap[0] in _DAYS:
        return gap[1:]
    return gap


def _is_everyday(city: str) -> bool:
    return city in _index().everyday


@lru_cache(maxsize=8192)
def is_everyday_name(name: str) -> bool:
    """Whether ``name`` as written is a city's name that is also an everyday word ("time",
    "nice", "reading"): in running text it names the city only where a place is expected,
    after one of :data:`PLACE_WORDS`."""
    return _is_everyday(normalise(name))


@lru_cache(maxsize=8192)
def _lookup_chunk(chunk: str, width: int, cutoff: float) -> str | None:
    known = _index()
    if chunk in ALIASES:
        return ALIASES[chunk]
    if chunk in known:
        return chunk
    if chunk.endswith("'s") and chunk[:-2] in known:
        return chunk[:-2]
    folded = fold(chunk)
    if folded != chunk and folded in ALIASES:
        return ALIASES[folded]
    if folded != chunk and folded in known:
        return folded
    if len(chunk) < 4 or (width == 1 and chunk in _COMMON):
        return None
    # A fuzzy multi-word match must match a multi-word city, and vice versa, so that
    # "in rome" never becomes "rome" twice nor "rome today" a city; a list word is in
    # no misspelt name ("hong kong and" is no "Hong Kong Island").
    if any(word in _STOP or word in _FUNCTION_WORDS for word in chunk.split()):
        return None
    return _fuzzy(chunk, width > 1, cutoff)


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
# Words of the sentence around a name, never a part of a misspelt one ("than on" is no
# "Thuan An", "is it" no "Isit").
_FUNCTION_WORDS = frozenset(
    {"than", "on", "by", "from", "with", "is", "it", "be", "as", "vs", "versus", "then"}
)
