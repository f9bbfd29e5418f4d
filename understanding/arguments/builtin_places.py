"""The built-in lookups of a place and a day from a joint model's slots: ``get_weather``
(city and forecast day) and ``world_clock`` (city or country, and a date), with the day
readers the timer's alarm shares (:mod:`understanding.arguments.builtin_slots`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from understanding.arguments.builtin_request import _one, _Request, _said
from understanding.arguments.schema import Filled

_TODAY = re.compile(
    r"^(?:(?:for|on|in|at|during|by|of|from)\s+)?(?:the\s+)?(?:today'?s?|tonight'?s?|now|"
    r"right now|currently|at the moment|this (?:morning|afternoon|evening|night)|"
    r"later(?: on)?(?: today)?|(?:in the|this) (?:morning|afternoon|evening)|"
    r"(?:morning|afternoon|evening|night|tonight|day))$"
)


_TOMORROW = re.compile(
    r"^(?:(?:for|on|by)\s+)?(?:tomorrow|tomorow|tommorow|tommorrow|tmrw|tmr)'?s?"
    r"(?:\s+(?:morning|afternoon|evening|night))?$"
)


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


_WEEKDAY = re.compile(
    r"^(?:(?:on|for|by|this|this coming|coming)\s+)*(?P<day>" + "|".join(_WEEKDAYS) + r")s?"
    r"(?:\s+(?:morning|afternoon|evening|night))?$"
)


def slot_day(spans: Sequence[str]) -> str | None:
    """The forecast day (today, tomorrow, a weekday) that the ``date`` / ``timeofday``
    spans name together; None for anything else, so a date the forecast cannot serve is
    never read as today.

    >>> slot_day(["tomorrow", "morning"]), slot_day(["friday"]), slot_day(["next week"])
    ('tomorrow', 'friday', None)
    """
    days: set[str] = set()
    for span in spans:
        said = _said(span)
        if _TOMORROW.match(said):
            days.add("tomorrow")
        elif match := _WEEKDAY.match(said):
            days.add(match.group("day"))
        elif _TODAY.match(said):
            days.add("today")
        else:
            return None
    if len(days - {"today"}) > 1:
        return None
    return (days - {"today"}).pop() if days - {"today"} else ("today" if days else None)


def slot_date(spans: Sequence[str], today: date) -> date | None:
    """The calendar date that ``date`` spans name, from ``today``: today, tomorrow or the
    next such weekday (today's weekday is today); None for anything else."""
    day = slot_day(spans)
    if day is None:
        return None
    if day == "today":
        return today
    if day == "tomorrow":
        return today + timedelta(days=1)
    return today + timedelta(days=(_WEEKDAYS.index(day) - today.weekday()) % 7)


def _zone(home: Any) -> tzinfo:
    zone = getattr(home, "timezone", None)
    if zone:
        return ZoneInfo(zone)
    return datetime.now().astimezone().tzinfo or UTC


# A place_name span that names where the device is, not a place of its own ("me" is the
# spoken "my" of "me area", "me town").
_HOME_PLACE = re.compile(
    r"(?:in\s+|at\s+|for\s+|around\s+)?(?:(?:my|our|the|this|me)\s+)?(?:"
    r"home\s*town|home|town|city|area|neighbou?rhood|location|current location|local area|"
    r"here|around here|near me|nearby|local|locally|outside|where i (?:am|live))"
)


def _another_city(words: str, span: str, cities: set[str]) -> str | None:
    """A known city the request's words name besides the slot's ("Tokyo" and "London" of
    "what time is it in Tokyo and in London", where the tagger marked one), or None;
    ``cities``: the slot's city, as its name and as the place the words picked."""
    from understanding.gazetteer import find_cities, read_places

    reading = read_places(words)
    named = {key for _name, key in reading.picked}
    named |= {found for _at, found in find_cities(reading.text)}
    inside = {found for _at, found in find_cities(read_places(span).text)}
    others = named - inside - cities
    return min(others) if others else None


def _names_home(span: str, words: str) -> bool:
    """Whether a place_name span names where the device is: on its own ("near me"), or
    with the word or two after it that the tagger cut off ("me" of "in me area")."""
    said = _said(span)
    if _HOME_PLACE.fullmatch(said):
        return True
    after = re.search(r"\b" + re.escape(said) + r"((?:\s+[\w']+){1,2})", _said(words))
    if after is None:
        return False
    more = after.group(1).split()
    return any(_HOME_PLACE.fullmatch(" ".join([said, *more[:n]])) for n in (1, 2))


def _country(name: str) -> Filled | None:
    """The clock's ``city`` for a country named on its own ("india"), a refusal for a
    country whose zones differ ("spain"), or None for a name that is no country."""
    from understanding.gazetteer import country_clock

    country = country_clock(name)
    if country is None:
        return None
    if country.zone is None:
        return Filled(None, f"{country.name} spans several time zones: which one is a guess")
    return Filled({"city": country.name})


# A place asked about but not named ("in another city", "some other country"): not home.
_SOME_PLACE = re.compile(
    r"\b(?:another|other|different|some|any|which)\s+(?:city|town|place|country|countries|"
    r"cities|time ?zones?|locations?)\b"
)


def _city(request: _Request, home: Any, countries: bool = False) -> Filled:
    """``{"city": ...}`` from the place_name slot, else the words, else the home city;
    ``countries``: a country on one clock is a place too (the clock's)."""
    from understanding.arguments.places import one_city
    from understanding.gazetteer import read_places, region_in, resolve_place

    span, refusal = _one(request, "place_name", "city")
    if refusal is not None:
        return refusal
    if span is not None and _names_home(span, request.words):
        span = None  # "my home town", "near me", "outside": where the device is, its home
    if span is not None and countries and (country := _country(span)) is not None:
        return country
    if span is None and countries and request.reader_may("city"):
        named = region_in(read_places(request.words).text)
        if named is not None and (country := _country(named)) is not None:
            return country
    if span is not None:
        unknown = read_places(span).unknown
        if unknown is not None:
            return Filled(None, f"{unknown} is not a city the device knows")
        city = one_city(span) or resolve_place(span)
        if city is None:
            return Filled(None, f"{span!r} is not a city the device knows")
        # A region the tagger left out of the span ("Paris" of "Paris, Texas"): the words
        # pick the place, when they pick one of the span's name.
        named = city
        picked = {key for name, key in read_places(request.words).picked if name == city}
        if len(picked) == 1:
            city = picked.pop()
        if (other := _another_city(request.words, span, {named, city})) is not None:
            return Filled(None, f"the query names {other!r} too: which city is a guess")
        if city != named or read_places(request.words).text != request.words:
            return Filled({"city": city})  # its region said ("springfield, missouri")
        return one_of_namesakes(city, home, clock=countries)
    if request.reader_may("city"):
        from understanding.settings import _names_a_place

        if _SOME_PLACE.search(_said(request.words)):
            return Filled(None, "the query asks about a place it does not name")
        city = one_city(request.words)
        if city is not None:
            return one_of_namesakes(city, home, clock=countries)
        if _names_a_place(request.words):
            return Filled(None, "the query names a place that is no city the device knows")
    if THERE.search(_said(request.words)):
        # "what's the time there" with no place before it: not here, and not a guess
        return Filled(None, f"{THERE_UNSAID}: the required argument 'city'")
    home_city = getattr(home, "home_city", None)
    if home_city:
        return Filled({"city": home_city})
    return Filled(None, "no 'place_name' slot and no home city (edge-agent config set home_city)")


#: The reason's start for a bare name several big cities share; its question follows.
NAMESAKES_SAID = "the name is several cities'"


def one_of_namesakes(
    city: str, home: Any, *, clock: bool, countries: frozenset[str] = frozenset()
) -> Filled:
    """``{"city": city}``, unless its bare name is as much another city's (Springfield,
    Missouri or Massachusetts: ``gazetteer.namesakes``) and the answer would differ (for a
    clock, another time zone): then the one in ``countries`` (those of the other places
    the request names) or else the home city's country when just one is, else a question.
    A key with its region ("paris, texas") picks its city already."""
    from understanding.gazetteer import namesakes, place, with_region

    rivals = namesakes(city)
    if clock and len({p.timezone for p in rivals}) < 2:
        rivals = []  # one clock for all of them
    if not rivals:
        return Filled({"city": city})
    home_place = place(home_city) if (home_city := getattr(home, "home_city", None)) else None
    near = countries or frozenset({home_place.country} if home_place is not None else ())
    local = [p for p in rivals if p.country in near]
    if len(local) == 1:
        return Filled({"city": local[0].key})
    named = [with_region(p) for p in rivals[:3]]
    listed = ", ".join(named[:-1]) + " or " + named[-1]
    return Filled(None, f"{NAMESAKES_SAID}: Which one do you mean: {listed}?")


#: The reason's start for a "there" that points at no place: asked back ("Where?").
THERE_UNSAID = "'there' points at no place said"
#: "there" as a place ("the time there", "is it raining over there"), with its "in" or
#: "over"; not "is there", nor "out there" (outdoors, here). The follow-ups read it too.
THERE = re.compile(
    r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )(?<!\bout )\b(?:(?:in|over)\s+)?there\b"
    r"(?!\s+(?:is|are|was|were|be|will|'s|s)\b)",
    re.IGNORECASE,
)


def _weather(request: _Request, home: Any, now: datetime) -> Filled:
    from understanding.arguments.forecast_days import forecast_day
    from understanding.arguments.places import weather_day

    spans = request.spans("date", "timeofday")
    if spans:
        # Read together, in order: "this" + "afternoon" is today, "monday" + "noon" monday.
        day = forecast_day(" ".join(spans))
        if day is None and request.reader_may("day"):
            # A span the tagger cut short ("rest of" of "the rest of the week"): the words
            # read whole, when they name a day of their own (never today in its place).
            day = weather_day(request.words)
            day = None if day == "today" else day
        if day is None and len(spans) == 1:
            day = _forecast_month_day(spans[0], now.astimezone(_zone(home)).date())
        if day is None:
            return Filled(None, f"no forecast on the device for {' '.join(spans)!r}")
    elif request.reader_may("day"):
        day = weather_day(request.words)
        if day is None:
            day = _month_day_in(request.words, now.astimezone(_zone(home)).date())
        if day is None:
            return Filled(None, "the query names a day the forecast does not serve")
    else:
        day = "today"
    city = _city(request, home)
    if city.arguments is None:
        return city
    return Filled({**city.arguments, "day": day})


def _forecast_month_day(span: str, today: date) -> str | None:
    """The forecast day of a date within the 7 days: a day of the month ("the seventh" on
    the 2nd is the 7th) or a calendar date ("december seventh"), as today, tomorrow or its
    weekday (each unique within the 7 days); None for a day beyond them or no date."""
    from understanding.arguments.dates import calendar_date, month_day

    when = month_day(span, today) or calendar_date(span, today)
    if when is None or not 0 <= (when - today).days < 7:
        return None
    ahead = (when - today).days
    return "today" if ahead == 0 else "tomorrow" if ahead == 1 else _WEEKDAYS[when.weekday()]


def _month_day_in(words: str, today: date) -> str | None:
    """The forecast day of the one date the words name that the weekday readers do not
    ("will it rain on the 3rd"), when no other day is named beside it; else None."""
    from understanding.arguments.places import weather_day
    from understanding.forecast import unserved_day

    named = unserved_day(words)
    if named is None:
        return None
    rest = words.replace(named, " ")
    if unserved_day(rest) is not None or weather_day(rest) != "today":
        return None
    return _forecast_month_day(named, today)


_WEEKDAY_WORD = re.compile(r"\b(?:(?:a|on|is)\s+)?(?:" + "|".join(_WEEKDAYS) + r")\b")


def _world_clock(request: _Request, home: Any, now: datetime) -> Filled:
    # SLURP marks a holiday as an event ("what day of the week is [event_name :
    # thanksgiving]"), the project's lines as a date: the clock reads it from either (a
    # public holiday of the place's country below; any other event is no date it tells).
    dates = request.spans("date") or request.spans("event_name")
    said = _said(" ".join(dates))
    named = " ".join(_WEEKDAY_WORD.sub(" ", said).split())
    if named and named != said:
        # "is the 23rd of april a saturday", "is it monday today": the weekday is what is
        # asked about the other date; the clock tells that date's weekday.
        dates = [named]
    if dates and slot_day(dates) != "today":
        from understanding.arguments.dates import calendar_date

        asked = calendar_date(" ".join(dates), now.date()) if len(dates) == 1 else None
        city = _city(request, home, countries=True)
        if asked is None and len(dates) == 1 and city.arguments is not None:
            # A public holiday of the place's country ("christmas", "boxing day").
            from understanding.arguments.public_holidays import holiday_date

            asked = holiday_date(dates[0], now.date(), _country_code(city.arguments["city"]))
        if asked is None:
            return Filled(None, f"the clock tells no date for {' '.join(dates)!r}")
        if city.arguments is None:
            return city
        return Filled({**city.arguments, "date": asked.isoformat()})
    if not dates and request.reader_may("city"):
        from understanding.forecast import unserved_day
        from understanding.settings import _names_other_date

        if _names_other_date(request.words) or unserved_day(request.words) is not None:
            return Filled(None, "the query asks about another date than today")
    return _city(request, home, countries=True)


def _country_code(city: str) -> str | None:
    """The ISO code of the country of a ``city`` argument (a gazetteer key or a country)."""
    from understanding.gazetteer import country_clock, place

    found = place(city)
    if found is not None:
        return found.country
    country = country_clock(city)
    return country.code if country is not None else None
