"""Countries on one clock: "what time is it in India" without a city."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from understanding.gazetteer.index import normalise
from understanding.gazetteer.regions import _SAFE_LOWER_CODES, _countries

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
