"""Qualifiers: "Cairo, Egypt" is Cairo; "Paris, Texas" is Paris, Texas; "Paris, Nevada" is
no place the gazetteer knows.

The planner's reading of the countries and regions written after a query's cities. What a
qualifier is (the region and country names, which city lies where) is the gazetteer's,
``understanding.gazetteer`` (``strip_qualifiers``, ``other_place``, ``resolve_place``,
``qualifiers_after``), so the device and the planner read "Toronto, Ontario, Canada" and
"Paris, Texas" alike; this module only rewrites a query so that the rest of the planner
reads a city a region picks by its name ("Paris"), the calls then taking its key ("paris,
texas"), and a name in a region with no such city as a place it does not know
(:mod:`cloud_agent.planner.places`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from cloud_agent.planner.calls import PlannedCall
from cloud_agent.planner.places import UnknownPlace, bare_word, resolve_city
from understanding.gazetteer import (
    find_cities,
    is_everyday_name,
    other_place,
    qualifiers_after,
    reads_as_region,
    resolve_place,
    strip_qualifiers,
)

__all__ = ["Qualified", "read_qualifiers"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Qualified:
    """A query read for the countries and regions written after its cities.

    ``text`` is the query without the qualifiers that only confirm a known city ("weather
    in Cairo, Egypt" reads "weather in Cairo"), so that the comma before a country no longer
    cuts the request in two; each known city's name written with a region it is not in
    ("Paris, Texas") stands there as one opaque word, a token, that the rest of the planner
    reads like any place it does not know. ``others`` maps each token (lower case) to the
    place as written.
    """

    text: str
    others: dict[str, str]
    picked: dict[str, str] = field(default_factory=dict)
    picked_written: dict[str, str] = field(default_factory=dict)

    def restore(self, value: str) -> str:
        """``value`` (a note's words, a search) with each token back as the place it stands
        for, and each city a region picked with its region again."""
        for token, written in self.others.items():
            value = re.sub(re.escape(token), written.lower(), value, flags=re.IGNORECASE)
        for words, written in self.picked_written.items():
            value = re.sub(
                rf"(?<![\w-]){re.escape(words)}(?![\w-])", written.lower(), value, flags=re.I
            )
        return value

    def city(self, name: str) -> str:
        """A call's ``city``: the key of the city a region picked ("paris" of "Paris, Texas"
        is "paris, texas"), else ``name``."""
        return self.picked.get(name, name)

    def keyed(self, calls: list[PlannedCall]) -> list[PlannedCall]:
        """``calls`` with each ``city`` its key (:meth:`city`)."""
        return [
            PlannedCall(c.tool, {**c.args, "city": self.city(str(c.args["city"]))})
            if isinstance(c.args.get("city"), str)
            else c
            for c in calls
        ]

    def place(self, found: UnknownPlace) -> UnknownPlace:
        """``found`` named as written when it is a token."""
        written = self.others.get(found.name)
        return UnknownPlace(found.name, found.tool, written) if written else found


# Tokens are letters only (a place's words would be read: "Trinidad and Tobago" holds a
# conjunction), long enough that no fuzzy lookup takes them for a city.
_TOKEN = "Elsewhereq{}"
_MAX_STEPS = 8


def read_qualifiers(query: str, pick: bool = True) -> Qualified:
    """The query with its cities' own qualifiers dropped, the cities a region picks by
    their name (with ``pick``; ``picked`` maps their canonical name to their key) and other
    places as tokens.

    Uses the edge's gazetteer (``understanding.gazetteer.strip_qualifiers``, ``other_place`` and
    the region names of ``understanding/data/regions.json``), so both sides read "Toronto,
    Ontario, Canada", "Sydney Australia" and "Paris, Texas" alike. A city listed after
    another ("Hong Kong and Singapore", "Paris, Singapore") is no region, nor is the start
    of a city's name ("Sao Paulo or Mexico City").

    >>> read_qualifiers("weather in Cairo, Egypt and the time in Toronto, ON, Canada").text
    'weather in Cairo and the time in Toronto'
    >>> q = read_qualifiers("weather in Paris, Texas, USA tomorrow")
    >>> q.text, q.picked
    ('weather in Paris tomorrow', {'paris': 'paris, texas'})
    >>> q = read_qualifiers("weather in Paris, Nevada tomorrow")
    >>> q.text, q.others
    ('weather in Elsewhereqa tomorrow', {'elsewhereqa': 'Paris, Nevada'})

    A name that the query writes both with a region and without ("Paris and Paris, Texas"),
    or twice with different regions, is read as before this reading of regions: the
    city with another region is a place the planner does not know.
    """
    text = _in_as_comma(query)
    done = ""  # the part of the query read to its end
    others: dict[str, str] = {}
    picked: dict[str, str] = {}
    picked_written: dict[str, str] = {}
    picks: Counter[str] = Counter()
    for _ in range(_MAX_STEPS):
        text = strip_qualifiers(text)
        found = other_place(text)
        hit = _span_of(text, found) if found else None
        if hit is None:
            break
        start, end, written = hit
        if written is None:  # not a place in another region: read on after it
            done, text = done + text[:end], text[end:]
            continue
        chain_end = _chain_end(text, end)
        key = resolve_place(text[start:chain_end]) if pick else None
        words = written.rpartition(", ")[0]
        city = resolve_city(words)
        if key is not None and city is not None and picked.get(city, key) == key:
            picked[city], picks[city] = key, picks[city] + 1
            picked_written[words.lower()] = written
            done, text = done + text[:start] + words, text[chain_end:]
            continue
        token = _TOKEN.format(chr(ord("a") + len(others)))
        others[token.lower()] = written
        done, text = done + text[:start] + token, text[chain_end:]
    read = done + text
    named = Counter(city for _pos, city in find_cities(read))
    if any(named[city] > count for city, count in picks.items()):
        return read_qualifiers(query, pick=False)  # "Paris and Paris, Texas": which is which
    return Qualified(read, others, picked, picked_written)


# Words that end no city's name: a name that ends in one was matched across a list.
_LIST_WORDS = _words("and or but than vs versus in at for of to the with from between plus then")


def _span_of(text: str, found: str) -> tuple[int, int, str | None] | None:
    """Where ``other_place``'s answer ("Paris, Texas") is written in ``text``, and the
    place's name from the city's own words on (the edge may count a word before a short
    alias: "in NYC, Texas"); the name is None when the words are no such place."""
    place, _, region = found.rpartition(", ")
    words = place.split()
    while len(words) > 1 and resolve_city(" ".join(words[1:])) is not None:
        words = words[1:]
    name = r"\s+".join(re.escape(w) for w in words)
    match = re.search(
        rf"(?<![\w-]){name}(?P<sep>\s*,\s*|\s*\(\s*|\s+)(?P<region>{re.escape(region)})"
        rf"(?:\s*\))?(?![\w-])",
        text,
    )
    if match is None:
        return None
    ahead = find_cities(text[match.start("region") :])
    region_key = region.lower()
    # A region where a city of the name lies ("Vancouver, Washington") is no listed city.
    namesake = resolve_place(f"{' '.join(words)}, {region}") is not None
    if (
        resolve_city(" ".join(words)) is None
        or bare_word(words[-1].lower()) in _LIST_WORDS
        or (
            not namesake
            and ahead
            and ahead[0][0] == 0
            and len(ahead[0][1]) >= len(region_key)
            and not reads_as_region(region_key)
        )
    ):
        return match.start(), match.end(), None
    return match.start(), match.end(), f"{' '.join(words)}, {region}"


_IN = re.compile(r"\s+in\s+(?=\S)", re.IGNORECASE)


def _in_as_comma(text: str) -> str:
    """ "Seoul in South Korea" written as "Seoul, South Korea", so that a place in another
    region is found where ``other_place`` names it ("Sydney, Nova Scotia"): a full region name
    after "in" right after a known city's name; "Toronto in on" or "in March" stay."""
    for match in reversed(list(_IN.finditer(text))):
        region = qualifiers_after(text, match.start())[:1]
        if (
            not region
            or region[0].separator != "in"
            or region[0].is_code
            or not _ends_with_city(text[: match.start()])
        ):
            continue
        text = f"{text[: match.start()]},{text[match.end() - 1 :]}"
    return text


def _ends_with_city(prefix: str) -> bool:
    """Whether the words end with a city's name; an everyday word is one only where a
    place stands, after "in", "at", "to"... ("the time in japan" asks Japan's clock: no city
    "Time" in Japan; "the weather in nice in france" is Nice's)."""
    words = [bare_word(w).lower() for w in prefix.split()[-3:]]
    if not words or words[-1] in _LIST_WORDS:
        return False
    for i in range(len(words)):
        name = " ".join(words[i:])
        if resolve_city(name) is None:
            continue
        placed = i > 0 and words[i - 1] in ("in", "at", "to", "from", "for", "near")
        if is_everyday_name(name) and not placed:
            continue  # "the time", "time": a word; "weather in nice": the city
        return True
    return False


def _chain_end(text: str, end: int) -> int:
    """Past the regions that follow an other place ("Paris, Texas, USA"): a full name, or an
    abbreviation after a comma or in capitals ("Toronto on Friday" keeps its day)."""
    for region in qualifiers_after(text, end):
        if region.separator == "in" or (
            region.is_code and region.separator not in (",", "(") and not region.written.isupper()
        ):
            break
        end = region.end
    return end
