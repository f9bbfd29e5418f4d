"""A city qualified by its region ("Paris, Texas", "london in canada"): reading, picking."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from understanding.gazetteer.fuzzy import (
    _STOP,
    CUTOFF,
    PLACE_WORDS,
    _is_everyday,
    _lookup_chunk,
    resolve_city,
)
from understanding.gazetteer.index import (
    ALIASES,
    FUZZY_MIN_POPULATION,
    _places_regions,
    cities,
    normalise,
    picked_place,
    place,
)
from understanding.gazetteer.regions import (
    _SAFE_LOWER_CODES,
    _first_level,
    _plain_codes,
    _regions,
    _us_states,
)


def own_regions(city: str) -> frozenset[str]:
    """The country and region names that confirm ``city`` ("france" for paris, "texas"
    and "tx" for houston), lower case."""
    own, _other = _regions()
    names = set(own.get(city, ()))
    found = place(city)
    if found is not None:
        names.update(_places_regions(found.country, found.region))
    return frozenset(names)


def is_region(name: str) -> bool:
    """Whether ``name`` is a country or region the gazetteer knows ("texas", "japan")."""
    own, other = _regions()
    key = normalise(name)
    return key in other or any(key in names for names in own.values())


@cache
def _qualifier_pattern() -> re.Pattern[str]:
    own, other = _regions()
    every = {n for names in own.values() for n in names} | other
    names = sorted(every, key=len, reverse=True)
    alternation = "|".join(re.escape(n) for n in names)
    return re.compile(
        r"(?P<sep>\s*,\s*|\s*\(\s*|\s+in\s+|\s+)(?P<name>" + alternation + r")(?P<close>\s*\))?"
        r"(?=$|[\s,.;:!?)'\"])",
        re.IGNORECASE,
    )


# What may end a qualifier's name (the pattern's look-ahead and closing bracket), and a
# word that follows the end of a separator, with the word after it when one space
# separates them: a qualifier's name starts such a word.
_NAME_END = re.compile(r"[\s,.;:!?)'\"]")
_WORDS_AFTER_SEPARATOR = re.compile(r"(?<=[\s,(])([^\s,.;:!?()'\"]+)(?= ([^\s,.;:!?()'\"]+))?")


@dataclass(frozen=True)
class _Heads:
    """How qualifiers' names start: their first word ("u" of "u.s.a."), or their first two
    when a space follows the first ("new south" of "new south wales": "new" and "the" are
    everyday words); the first words of the codes that count only in capitals ("in",
    "or")."""

    words: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    capitals: frozenset[str]


@cache
def _qualifier_heads() -> _Heads | None:
    """The heads of every qualifier's name; None if a name starts with a character that
    may end one (then there is no telling)."""
    own, other = _regions()
    capitals_only = _capitals_only_codes()
    words: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    capitals: set[str] = set()
    for name in {n for names in own.values() for n in names} | other:
        first, *rest = _NAME_END.split(name.lower(), maxsplit=2)
        if not first or "(" in name:  # a word of the text ends at a bracket
            return None
        if name in capitals_only:
            capitals.add(first)
        elif rest and name[len(first)] == " " and rest[0]:
            pairs.add((first, rest[0]))
        else:
            words.add(first)
    return _Heads(frozenset(words), frozenset(pairs), frozenset(capitals))


def _may_name_a_qualifier(text: str) -> bool:
    """False only when no match of :func:`_qualifier_pattern` in ``text`` reads as a
    qualifier: no word after a separator starts a qualifier's name (a code that counts only
    in capitals, in capitals). Most queries name no region, and this look-up is ~20x
    cheaper than the pattern's search. (Text that is not ASCII always goes to the pattern,
    whose ignore-case matching is Unicode's.)"""
    heads = _qualifier_heads()
    if heads is None or not text.isascii():
        return True
    for word, after in _WORDS_AFTER_SEPARATOR.findall(text):
        lower = word.lower()
        if (
            lower in heads.words
            or (after and (lower, after.lower()) in heads.pairs)
            or (lower in heads.capitals and word.isupper())
        ):
            return True
    return False


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
        if self.name in _capitals_only_codes():  # "Paris, TX"; "stockholm, or moscow"
            return self.written.isupper()
        return (
            self.separator in (",", "(")
            or self.written.isupper()
            or self.name in _SAFE_LOWER_CODES
            or self.name in _plain_codes()
        )


@cache
def _capitals_only_codes() -> frozenset[str]:
    """The region codes that no hand-written qualifier lists and that are everyday words
    in lower case ("or", "in", "me", "hi", "sa"): codes only in capitals."""
    data = json.loads(
        resources.files("understanding.data").joinpath("regions.json").read_text("utf-8")
    )
    listed = set(data["other"]) | {n for names in data["own"].values() for n in names}
    firsts = [names for table in _first_level().values() for names in table.values()]
    codes = {
        n
        for names in (*_us_states().values(), *firsts)
        for n in names[1:]
        if len(n.replace(".", "")) <= 3
    }
    return frozenset(codes - listed - _plain_codes())


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
        placed = len(words) > width and normalise(words[-width - 1]) in PLACE_WORDS
        if chunk == city and _is_everyday(city) and not placed:
            continue  # "time in Texas": an everyday word, no city, as in find_cities
        named = chunk in cities() or chunk in ALIASES or chunk.endswith("'s")
        if named or len(city.split()) == width:
            return city, width
    return None


def reads_as_region(name: str) -> bool:
    """Whether ``name`` after a city is a region although a town has the name too: a
    country's or region's name that a small town shares ("Florida", "Ontario") reads as
    the region; a big city's ("Singapore", "Washington") as the city."""
    _own, other = _regions()
    key = normalise(name)
    found = place(key)
    return key in other and found is not None and found.population < FUZZY_MIN_POPULATION


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
            if other is not None and reads_as_region(chunk):
                return False
        else:
            other = _lookup_chunk(chunk, width, CUTOFF)
        if other is not None:
            return other != city
    return False


@dataclass(frozen=True)
class PlacesRead:
    """A text read for its cities' regions (:func:`read_places`).

    ``text`` is the text without the regions that confirm or pick its cities; ``picked``
    holds, for each city a region picked, (its name's canonical city, its key): ("paris",
    "paris, texas"); ``unknown`` is the first name written with a region that has no city
    of that name ("Paris, Nevada"), as "<the city's words>, <region>".
    """

    text: str
    picked: tuple[tuple[str, str], ...] = ()
    unknown: str | None = None


def _scan_qualifiers(text: str, pick: bool = False) -> PlacesRead:
    """``text`` without the qualifiers of its cities, the cities a region picked (with
    ``pick``; without, a region the name's most populous city is not in is another place),
    and the first city named as another place ("Paris, Texas"), if any."""
    if not _may_name_a_qualifier(text):
        return PlacesRead(text)
    _own, other = _regions()
    pattern = _qualifier_pattern()
    picked: list[tuple[str, str]] = []
    for _ in range(8):  # "Toronto, Ontario, Canada": one qualifier a pass
        changed = False
        for match in pattern.finditer(text):
            found = _qualifier(match)
            if not found.reads_as_qualifier:
                continue
            ending = _city_ending(text[: found.start])
            if ending is None:
                continue
            city, width = ending
            # The city's own region first: "Toronto, Ontario" names no second city even
            # though a town is called Ontario.
            if found.name in own_regions(city):
                text = text[: found.start] + text[found.end :]
                changed = True
                break
            chosen = _picked(text, found, city)
            # A region whose name is a city's too is a list of cities ("Berlin, Singapore",
            # "Amsterdam, New York"), unless a big city of the name lies there ("Vancouver,
            # Washington").
            listed = _names_another_city(text, found, city)
            if listed and chosen is not None and not _big_namesake(chosen[0]):
                chosen = None
            if chosen is not None and pick:
                key, end = chosen
                picked.append((city, key))
                text = text[: found.start] + text[end:]
                changed = True
                break
            if chosen is None and listed:
                continue
            if found.name in other:
                place = " ".join(text[: found.start].split()[-width:]).strip(" ,()")
                return PlacesRead(text, tuple(picked), f"{place}, {found.written}")
        if not changed:
            break
    return PlacesRead(text, tuple(picked))


def _picked(text: str, found: Qualifier, city: str) -> tuple[str, int] | None:
    """The key of the city called ``city`` that the regions written from ``found`` on
    pick ("Paris, Texas, USA": Paris, Texas), and where they end; None when no city of
    the name lies there. A region that a following one contradicts is not read as one."""
    chain = qualifiers_after(text, found.start)
    if not chain or chain[0].start != found.start:
        chain = [found]
    for size in range(len(chain), 0, -1):
        chosen = picked_place(city, [q.name for q in chain[:size]])
        if chosen is not None:
            return chosen.key, chain[size - 1].end
    return None


# A city this big, in a region whose name is a city's too, is meant by the pair ("Vancouver,
# Washington": 190,000 people); a smaller one is not ("Amsterdam, New York" lists two).
NAMESAKE_OVER_LIST = 100_000


def _big_namesake(key: str) -> bool:
    found = place(key)
    return found is not None and found.population >= NAMESAKE_OVER_LIST


@lru_cache(maxsize=256)
def read_places(text: str) -> PlacesRead:
    """``text`` read for the regions written after its cities: those that confirm the
    city ("Cairo, Egypt") or pick one of its name ("Paris, Texas", "london in canada") are
    dropped from ``text`` (the picks kept in ``picked``); a name written with a region that
    has no city of the name is ``unknown``.

    >>> read_places("weather in Paris, Texas tomorrow")
    PlacesRead(text='weather in Paris tomorrow', picked=(('paris', 'paris, texas'),), unknown=None)
    >>> read_places("time in Paris, Nevada").unknown
    'Paris, Nevada'
    """
    return _scan_qualifiers(text, pick=True)


def resolve_place(name: str) -> str | None:
    """The key of the one place ``name`` writes: a city (as :func:`resolve_city`), or a
    city with its region or country ("Paris, Texas", "paris tx", "London in Canada"); None
    for none, another place or several.

    >>> resolve_place("Paris TX"), resolve_place("Londn, Ontario"), resolve_place("Oslo")
    ('paris, texas', 'london, ontario', 'oslo')
    """
    reading = read_places(name)
    if reading.unknown is not None or len(reading.picked) > 1:
        return None
    city = resolve_city(reading.text)
    if city is None:
        return None
    if not reading.picked:
        return city
    named, key = reading.picked[0]
    return key if named == city else None


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
    if not _may_name_a_qualifier(text):
        return None
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
    return _scan_qualifiers(text).text


def other_place(text: str) -> str | None:
    """A known city's name followed by a country or region its name's most populous city
    is not in ("Paris, Texas", "London Ontario", "Sydney in Nova Scotia"), as "<the city's
    words>, <region>"; None when there is none. The bare name does not mean that place:
    :func:`read_places` says which city, if any, the region picks (the cloud planner reads
    such a place as one it does not know). Cities in a list ("Hong Kong and Singapore", "Sao
    Paulo or Mexico City") are no such place.

    >>> other_place("weather in Paris, Texas")
    'Paris, Texas'
    >>> other_place("weather in NYC in Georgia")
    'NYC, Georgia'
    """
    return _scan_qualifiers(text).unknown
