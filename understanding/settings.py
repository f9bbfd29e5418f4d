"""Device settings: where the device is, which room it stands in, which units it speaks.

People rarely say where they are: "what's the weather", "what time is it", "turn on the
lights". A device that knows its home answers those on the device; one that does not sends
them to the cloud. The settings live in memory as facts of the entity ``device`` (one fact
per key), so ``edge-agent config set home_city oslo`` on one replica reaches the others by
the ordinary memory sync, and the last write wins there as for any fact.

``home_city``
    A city of the gazetteer (misspellings and other names resolve: "NYC" -> new york); its
    time zone is the device's local time. Weather and clock queries that name no city are
    about it.
``default_room``
    The room of device commands that name none ("turn on the lights"). Without it such a
    command goes to the house-wide device of that kind (the device state with no room).
``units``
    ``metric`` (default) or ``imperial``: how answers speak temperatures. Tool
    observations stay in °C, as the contract says.
``history_days``
    How many days of sessions, steps, receipts and transitions the device keeps in its
    synced document (default 90: ``sync.retention.DEVICE_HISTORY_DAYS``). Older history
    leaves the document and stays in the device's tables (docs/memory.md, Retention);
    notes, lists, facts and settings are kept until deleted, whatever the horizon.

>>> settings = Settings(home_city="london")
>>> settings.timezone
'Europe/London'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from understanding.errors import SettingsError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

SETTINGS_ENTITY = "device"
KEYS: tuple[str, ...] = ("home_city", "default_room", "units", "history_days")
MAX_HISTORY_DAYS = 36_500  # a hundred years: "keep it all" without an unbounded number
UNITS: tuple[str, ...] = ("metric", "imperial")
_ROOM = re.compile(r"^[a-z][a-z ]{0,38}[a-z]$|^[a-z]$")


class FactMemory(Protocol):
    """The two memory store methods settings need (``sync.store.MemoryStore``)."""

    def add_fact(self, entity: str, attribute: str, value: Any) -> str: ...

    def facts(self, entity: str | None = None) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class Settings:
    """The device's settings; None where unset."""

    home_city: str | None = None
    default_room: str | None = None
    units: str = "metric"
    history_days: int | None = None

    @property
    def timezone(self) -> str | None:
        """The IANA time zone of the home city, or None without one."""
        if self.home_city is None:
            return None
        from understanding.gazetteer import timezone_of

        return timezone_of(self.home_city)

    def as_dict(self) -> dict[str, str | int | None]:
        """Every key with its value (None where unset) and the derived time zone."""
        return {
            "home_city": self.home_city,
            "timezone": self.timezone,
            "default_room": self.default_room,
            "units": self.units,
            "history_days": self.history_days,
        }


def check_setting(key: str, value: str) -> str:
    """The value as stored (a city's canonical name, a room in lower case), or raise.

    >>> check_setting("home_city", "Londn")
    'london'
    >>> check_setting("units", "Imperial")
    'imperial'
    >>> check_setting("history_days", " 30 ")
    '30'

    Raises:
        SettingsError: unknown key, unknown city, a room that is no name, unknown units,
            a history horizon that is no whole number of days from 1 to 36500.
    """
    clean = " ".join(str(value).split()).lower()
    if key == "home_city":
        from understanding.gazetteer import resolve_place

        city = resolve_place(clean)
        if city is None:
            raise SettingsError(f"unknown city {value!r}: name a city the device knows")
        return city
    if key == "default_room":
        if not _ROOM.match(clean):
            raise SettingsError(f"a room is a name of letters (at most 40), not {value!r}")
        return clean
    if key == "units":
        if clean not in UNITS:
            raise SettingsError(f"units are {' or '.join(UNITS)}, not {value!r}")
        return clean
    if key == "history_days":
        if not clean.isascii() or not clean.isdigit() or not 1 <= int(clean) <= MAX_HISTORY_DAYS:
            raise SettingsError(
                f"history_days is a whole number of days from 1 to {MAX_HISTORY_DAYS},"
                f" not {value!r}"
            )
        return str(int(clean))
    raise SettingsError(f"unknown setting {key!r}: the keys are {', '.join(KEYS)}")


def from_facts(facts: Sequence[Mapping[str, Any]]) -> Settings:
    """The settings that ``facts`` of the ``device`` entity hold; a value that no longer
    checks (a hand-edited or foreign record) is ignored, never trusted."""
    values: dict[str, Any] = {}
    for fact in facts:
        key, value = str(fact.get("attribute", "")), fact.get("value")
        if key not in KEYS or not isinstance(value, str):
            continue
        try:
            values[key] = check_setting(key, value)
        except SettingsError:
            continue
    if "history_days" in values:
        values["history_days"] = int(values["history_days"])
    return replace(Settings(), **values)


def load_settings(memory: FactMemory) -> Settings:
    """The device's settings as its memory holds them."""
    return from_facts(memory.facts(SETTINGS_ENTITY))


def keep_history(memory: Any, settings: Settings) -> None:
    """Give the device's store (``sync.store.MemoryStore``) the history horizon the
    settings name, for its next retention pass; unset, the store keeps its own."""
    if settings.history_days is not None:
        memory.history_days = float(settings.history_days)


def save_setting(memory: FactMemory, key: str, value: str) -> Settings:
    """Check and store one setting; return the settings after the change.

    Raises:
        SettingsError: see :func:`check_setting`; nothing is stored then.
    """
    memory.add_fact(SETTINGS_ENTITY, key, check_setting(key, value))
    return load_settings(memory)


# A clock query about another day ("what day is december thirteenth", "the date on the
# 4th") is no question about now: the home city cannot answer it.
_OTHER_DATE = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|yesterday|tomorrow|"
    r"\d+(?:st|nd|rd|th)?|\w+(?:first|second|third|th))\b",
    re.IGNORECASE,
)
_NOW_WORDS = frozenset({"month", "north", "both", "with", "worth", "south", "fourth", "length"})


# "What time is it", "the date", "what day is it": the clock's own questions. "What time
# is the meeting", "what time does the train leave" ask about something else, which the
# home city's clock does not answer.
_ASKS_NOW = re.compile(
    r"\b(?:time\s+is\s+it|(?:the|current|local|exact)\s+time\b(?!\s+(?:of|for|to)\b)|"
    r"time\s+(?:right\s+)?now|what\s+time\s*\??$|^time\b|(?:the|today'?s?|current)\s+date\b|"
    r"date\s+(?:is\s+it|today)|(?:what|which)\s+day\s+(?:is\s+it|is\s+today|today)|"
    r"what\s+is\s+today|what'?s\s+today)",
    re.IGNORECASE,
)
# A weather question names the weather ("what does my morning look like" does not).
_ASKS_WEATHER = re.compile(
    r"\b(?:weather|forecast|rain\w*|snow\w*|sun\w*|cloud\w*|wind\w*|fog\w*|storm\w*|"
    r"temperature|degrees|hot|cold|warm|chilly|freezing|umbrella|jacket|coat|humid\w*|"
    r"drizzl\w*|hail|thunder\w*|outside|overcast)\b",
    re.IGNORECASE,
)


def _names_other_date(query: str) -> bool:
    return any(m.group(0).lower() not in _NOW_WORDS for m in _OTHER_DATE.finditer(query))


def _names_a_place(query: str) -> bool:
    from understanding.gazetteer import find_cities, read_places, region_in

    reading = read_places(query)
    plain = reading.text
    return (
        bool(find_cities(plain))
        or bool(reading.picked)
        or reading.unknown is not None
        or bool(region_in(plain))
    )


def complete_arguments(
    settings: Settings | None, tool: str, query: str, arguments: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The arguments with the home defaults where the query names none.

    Only what the query leaves out is filled: a weather or clock query that names no place
    at all is about the home city (a named place, known or not, is never replaced by home;
    a day the forecast cannot serve stays unanswered); a device command with no room is
    for the default room. Without settings the arguments pass through unchanged.

    >>> complete_arguments(Settings(home_city="oslo"), "world_clock", "what time is it", None)
    {'city': 'oslo'}
    """
    if settings is None:
        return arguments
    if tool == "device_control" and arguments is not None:
        if settings.default_room and not arguments.get("room"):
            return {**arguments, "room": settings.default_room}
        return arguments
    if arguments is not None or settings.home_city is None:
        return arguments
    if tool not in ("get_weather", "world_clock") or _names_a_place(query):
        return None
    if tool == "world_clock":
        if _names_other_date(query) or not _ASKS_NOW.search(query):
            return None
        return {"city": settings.home_city}
    if not _ASKS_WEATHER.search(query):
        return None
    from understanding.arguments.places import weather_day

    day = weather_day(query)
    return None if day is None else {"city": settings.home_city, "day": day}
