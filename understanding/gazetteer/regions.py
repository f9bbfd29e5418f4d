"""States, provinces and countries: the regions a city's name may be qualified with."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

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
