"""The built-in tools' arguments from a joint model's slots.

A joint intent + slot model (``understanding.slu``) gives each request of an utterance its
words and its slots. Each built-in tool's input schema says which slot types feed which
argument (``x-edgeloop-slots``, the vocabulary of docs/edge.md "Arguments from slots"),
and here each argument's span is normalised by what the argument is:

==================  ==========================================================
slot type           argument and normaliser
==================  ==========================================================
``place_name``      ``get_weather.city``, ``world_clock.city``: a gazetteer city
                    (spelling tolerance; "paris texas" is no city the device knows)
``date``            ``get_weather.day``: today, tomorrow, a weekday or a span of the
                    7 days ("this week", "the weekend", read with the ``timeofday``
                    span by :mod:`understanding.arguments.forecast_days`); a date the
                    forecast does not serve ("next week", "the 5th") fills nothing;
                    ``set_timer.at``: the date of the alarm; ``world_clock.date``: a
                    calendar date ("december thirteenth" -> 2026-12-13) whose weekday
                    the clock tells; one it cannot read is the cloud's
``timeofday``       ``set_timer.at`` (am/pm of the clock time), ``get_weather.day``
``time``            ``set_timer.seconds`` (a duration) or ``set_timer.at`` (a clock
                    time, its next occurrence unless a ``date`` names the day)
``device_type``     ``device_control.device`` ("robot vacuum" -> vacuum)
``house_place``     ``device_control.room`` ("bed room" -> bedroom)
``change_amount``   ``device_control.value`` ("fifty percent" -> 50)
``list_name``       ``add_note/search_notes/remove_note.list`` ("shopping list" ->
                    shopping)
``note_text``       ``add_note.text``, ``remove_note.text``: the words as said
``query``           ``search_notes.query``
``expression``      ``calculator.expression`` (number words read as numbers)
``amount``,         ``unit_convert.value / from_unit / to_unit``
``from_unit``,
``to_unit``
``timer_name``      ``set_timer.label``
==================  ==========================================================

The device action (on, off, volume_up...) is no slot: it is read from the words the model
gave the request, with the device vocabulary of :mod:`understanding.arguments.devices`.

**When the model gives no slot for an argument.** A required argument with no usable slot
sends the query to the cloud with the reason. The readers over the request's own words
stand in only where they normalise words the user said and the measure showed them add
no wrong action (:data:`WORD_READERS`): the lookups (calculator, unit_convert,
get_weather, world_clock, search_notes), which change nothing, and device_control's
device, room and value, which the vocabulary reads from the words of the request (SLURP
annotates the device of most light and volume commands nowhere but in its intent). A
timer or a note is never read from anything but its slot; a list item only where the
whole request is the list grammar and names the tagger's list (:func:`_list_item`).

>>> from understanding.slu.model import Slot
>>> builtin_from_slots("device_control", [Slot("house_place", "kitchen", 4, 5)],
...                    "turn off the lights in kitchen").arguments
{'device': 'light', 'action': 'off', 'room': 'kitchen'}
>>> builtin_from_slots("add_note", [], "add milk to the shopping list").reason
"no 'note_text' slot in the query for the required argument 'text'"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from understanding.arguments.schema import Filled
from understanding.arguments.slots import _merged, clock_time

__all__ = [
    "SLOT_TYPES",
    "WORD_READERS",
    "builtin_from_slots",
    "slot_date",
    "slot_day",
    "slot_duration",
    "slot_list",
]

#: The slot types that feed each built-in tool's arguments (the tools' input schemas
#: carry the same in ``x-edgeloop-slots``; a test keeps the two equal).
SLOT_TYPES: dict[str, dict[str, list[str]]] = {
    "calculator": {"expression": ["expression"]},
    "unit_convert": {"value": ["amount"], "from_unit": ["from_unit"], "to_unit": ["to_unit"]},
    "get_weather": {"city": ["place_name"], "day": ["date", "timeofday"]},
    "world_clock": {"city": ["place_name"], "date": ["date"]},
    "device_control": {
        "device": ["device_type"],
        "room": ["house_place"],
        "value": ["change_amount"],
    },
    "set_timer": {
        "seconds": ["time"],
        "at": ["time", "date", "timeofday"],
        "label": ["timer_name"],
    },
    "add_note": {"text": ["note_text"], "list": ["list_name"]},
    "search_notes": {"query": ["query"], "list": ["list_name"]},
    "remove_note": {"text": ["note_text"], "list": ["list_name"]},
}

#: (tool, argument) pairs that the reader over the request's words may fill when the
#: model gives no slot for them (see the module docstring and docs/edge.md).
WORD_READERS: frozenset[tuple[str, str]] = frozenset(
    {
        ("calculator", "expression"),
        ("unit_convert", "value"),
        ("get_weather", "city"),
        ("get_weather", "day"),
        ("world_clock", "city"),
        ("search_notes", "query"),
        ("device_control", "device"),
        ("device_control", "room"),
        ("device_control", "value"),
    }
)

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
_PM_TIMES = ("afternoon", "evening", "tonight", "night")


def _said(span: str) -> str:
    # A decimal point stays ("7.5 hours" is 27000 s, never "7 5 hours").
    return " ".join(re.sub(r"(?<!\d)\.|\.(?!\d)|[^\w'. ]+", " ", span.lower()).split())


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


_DURATION_WORDS = re.compile(
    r"\b(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|half an hour|quarter of an hour|"
    r"an hour|a minute|a second|days?)\b"
)
_CLOCK_WORDS = re.compile(r"\b(?:am|pm|a m|p m|o'?clock|noon|midday|midnight|past|to)\b|:")


def slot_duration(span: str) -> int | None:
    """Seconds for a ``time`` span that is a duration ("ten minutes", "half an hour",
    "five minutes from now"); None for a clock time ("five thirty", "one pm").

    >>> slot_duration("half an hour"), slot_duration("six am")
    (1800, None)
    """
    from understanding.arguments.durations import parse_duration

    said = _said(span)
    if not _DURATION_WORDS.search(said) or _CLOCK_WORDS.search(said):
        return None
    return parse_duration(said)


def slot_list(span: str) -> str | None:
    """A list's name as kept ("my shopping list" -> shopping, "to do" -> to do)."""
    from understanding.tools.notes import list_name

    name = list_name(_said(span))
    return name if 0 < len(name) <= 40 else None


def _clock(time_span: str, timeofday: Sequence[str]) -> str | None:
    """ "HH:MM" for a clock-time span, its am/pm from a ``timeofday`` span when it has
    none of its own ("five" + "evening" -> 17:00)."""
    said = _said(time_span)
    said = re.sub(r"^(?:at|for|by)\s+", "", said)
    if timeofday and not re.search(r"\b(?:am|pm|a m|p m)\b", said):
        part = _said(" ".join(timeofday))
        if any(word in part for word in _PM_TIMES):
            said += " pm"
        elif "morning" in part:
            said += " am"
        elif part:
            return None
    return clock_time(said)


class _Request:
    """One request's slots by type, and its words."""

    def __init__(
        self, tool: str, slots: Sequence[Any], words: str, utterance: Sequence[str] = ()
    ) -> None:
        self.tool = tool
        self.slots = _merged(slots)
        self.words = words
        self.utterance = list(utterance)

    def spans(self, *types: str) -> list[str]:
        return [str(s.value) for s in self.slots if s.type in types]

    def free_text(self, kind: str) -> list[str]:
        """The spans of a free-text type; several of them (a tagger that broke "Tom
        prefers tea, not coffee" in two) read as the words from the first to the last,
        when the utterance's words are known."""
        found = [s for s in self.slots if s.type == kind]
        if len(found) < 2 or not self.utterance:
            return [str(s.value) for s in found]
        start, end = found[0].start, found[-1].end
        if not 0 <= start < end <= len(self.utterance):
            return [str(s.value) for s in found]
        text = " ".join(self.utterance[start:end])
        return [re.sub(r"\s+([,.;:!?])", r"\1", text)]

    def reader_may(self, argument: str) -> bool:
        return (self.tool, argument) in WORD_READERS


def _missing(kinds: str, argument: str) -> Filled:
    return Filled(None, f"no '{kinds}' slot in the query for the required argument '{argument}'")


_FREE_TEXT = frozenset({"note_text", "query", "timer_name"})


def _one(request: _Request, kind: str, argument: str) -> tuple[str | None, Filled | None]:
    """The one span of ``kind`` (None when there is none), or a refusal for several."""
    spans = request.free_text(kind) if kind in _FREE_TEXT else request.spans(kind)
    if len(spans) > 1:
        listed = ", ".join(repr(s) for s in spans)
        return None, Filled(None, f"several values for {argument!r} ({listed}): which is a guess")
    return (spans[0] if spans else None), None


def _calculator(request: _Request, _home: Any, _now: datetime) -> Filled:
    from understanding.arguments.expressions import calculator_expression, has_scientific

    span, refusal = _one(request, "expression", "expression")
    if refusal is not None:
        return refusal
    if span is None:
        if not request.reader_may("expression"):
            return _missing("expression", "expression")
        span = request.words
    span = _with_operand(span, request.words)
    if has_scientific(request.words) and not has_scientific(span):
        span = request.words  # the tagger saw "1e308" split in three: "308" alone is wrong
    expression = calculator_expression(span)
    if expression is None:
        return Filled(None, f"{span!r} is no arithmetic the calculator reads")
    return Filled({"expression": expression})


_OPERATOR_END = re.compile(
    r"(?:plus|minus|times|over|into|x|divided by|multiplied by|to the power of|of|[-+*/^×÷])$"
)


def _with_operand(span: str, words: str) -> str:
    """An expression span that ends at an operator, with the number after it in the words
    that the tagger left out ("240 divided by" of "240 divided by 4")."""
    from understanding.arguments.numbers import normalise_numbers

    said = " ".join(normalise_numbers(span).split())
    if not _OPERATOR_END.search(said.lower()):
        return span
    found = re.search(
        re.escape(said) + r"\s*(\d+(?:\.\d+)?\s*%?)", " ".join(normalise_numbers(words).split())
    )
    return f"{said} {found.group(1)}" if found else span


def _unit_convert(request: _Request, _home: Any, _now: datetime) -> Filled:
    from understanding.arguments.units import unit_arguments

    amount, from_unit, to_unit = (request.spans(k) for k in ("amount", "from_unit", "to_unit"))
    if len(amount) == len(from_unit) == len(to_unit) == 1:
        text = f"convert {amount[0]} {from_unit[0]} to {to_unit[0]}"
    elif request.reader_may("value"):
        text = request.words
    else:
        return _missing("amount", "value")
    args = unit_arguments(text)
    if args is None:
        return Filled(None, f"no conversion read from {text!r}")
    value = float(args["value"])  # type: ignore[arg-type]
    args["value"] = int(value) if value.is_integer() else value
    return Filled(args)


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
        return Filled({"city": city})
    if request.reader_may("city"):
        from understanding.settings import _names_a_place

        if _SOME_PLACE.search(_said(request.words)):
            return Filled(None, "the query asks about a place it does not name")
        city = one_city(request.words)
        if city is not None:
            return Filled({"city": city})
        if _names_a_place(request.words):
            return Filled(None, "the query names a place that is no city the device knows")
    home_city = getattr(home, "home_city", None)
    if home_city:
        return Filled({"city": home_city})
    return Filled(None, "no 'place_name' slot and no home city (edge-agent config set home_city)")


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


def _number(span: str) -> float | None:
    from understanding.arguments.numbers import find_numbers, tokenize

    values = [n.value for n in find_numbers(tokenize(span))]
    return float(values[0]) if len(values) == 1 else None


# A house_place span that names no room of its own: the default room's request.
_HERE = re.compile(
    r"(?:(?:in|the|a|this|my|our)\s+)*(?:room|here|in here|house|home|place|flat|apartment)"
)


# A change_amount span that says no amount: the default step of the action.
_SOME = re.compile(
    r"(?:by\s+)?(?:a\s+)?(?:(?:little|tiny|wee)\s+)?(?:bit|little|touch|notch|tad|smidge)"
    r"(?:\s+(?:more|less))?|(?:a\s+)?little|slightly|some(?:\s+more)?|more|less"
)


def _device_control(request: _Request, home: Any, _now: datetime) -> Filled:
    from understanding.arguments.devices import device_command, device_name, room_name

    overrides: dict[str, Any] = {}
    for argument, kind, normalise in (
        ("device", "device_type", device_name),
        ("room", "house_place", room_name),
        ("value", "change_amount", _number),
    ):
        span, refusal = _one(request, kind, argument)
        if refusal is not None:
            return refusal
        if span is None:
            if argument == "device" and not request.reader_may("device"):
                return _missing(kind, argument)
            continue
        if argument == "room" and _HERE.fullmatch(_said(span)):
            continue  # "a room", "in here": the room the device is in, the default one
        if argument == "room" and device_name(span) is not None and room_name(span) == _said(span):
            continue  # "the roomba" tagged as a place: a device, no room of its own
        if argument == "value" and _SOME.fullmatch(_said(span)):
            continue  # "a bit", "a little": no value, the tool's default step
        value = normalise(span)
        if value is None and argument == "device" and request.reader_may("device"):
            # A span the vocabulary does not read ("disco" of "disco lights", "the flat" to
            # clean): the request's words say the device, or nothing does.
            continue
        if value is None:
            return Filled(None, f"{span!r} is no {argument} the device knows")
        overrides[argument] = value
    words = request.words
    if not request.reader_may("room") and "room" not in overrides:
        overrides["room"] = ""
    if not request.reader_may("value") and "value" not in overrides:
        from understanding.arguments.numbers import normalise_numbers

        words = re.sub(r"\d+(?:\.\d+)?", " ", normalise_numbers(words))
    args = device_command(words, strict=True, **overrides)
    if args is None:
        return Filled(None, "no device command the device can run read from the request")
    if home is not None and getattr(home, "default_room", None) and not args.get("room"):
        args["room"] = home.default_room
    return Filled(args)


def _zone(home: Any) -> tzinfo:
    zone = getattr(home, "timezone", None)
    if zone:
        return ZoneInfo(zone)
    return datetime.now().astimezone().tzinfo or UTC


_RECURRING = re.compile(
    r"\b(?:every|each|daily|weekdays|weekends|weekly|on (?:mondays|tuesdays|wednesdays|"
    r"thursdays|fridays|saturdays|sundays))\b",
    re.IGNORECASE,
)


def _set_timer(request: _Request, home: Any, now: datetime) -> Filled:
    times = request.spans("time")
    dates = request.spans("date")
    timeofday = request.spans("timeofday")
    label, refusal = _one(request, "timer_name", "label")
    if refusal is not None:
        return refusal
    extra: dict[str, Any] = {"label": " ".join(label.split())} if label else {}
    recurring = _RECURRING.search(" ".join([request.words, *times, *dates, *timeofday]))
    if recurring is not None:
        return Filled(None, f"a recurring alarm ({recurring.group(0)!r}) is not one timer")
    if not times:
        if request.reader_may("seconds") and (found := _timer_from_words(request.words)):
            return Filled({**found, **extra})
        return _missing("time", "seconds' or 'at")
    if len(times) > 1:
        listed = ", ".join(repr(s) for s in times)
        return Filled(None, f"several times ({listed}): which one is a guess")
    times = [_with_unit(times[0], request.words)]
    if _bare_after_in(times[0], request.words):
        return Filled(None, f"'in {times[0]}' is no clock time, and names no unit of a duration")
    seconds = slot_duration(times[0])
    if seconds is not None:
        if dates or timeofday:
            return Filled(None, f"a duration ({times[0]!r}) with a day: which one is meant")
        return Filled({"seconds": seconds, **extra})
    clock = _clock(times[0], timeofday)
    if clock is None:
        return Filled(None, f"{times[0]!r} is no clock time or duration")
    if not dates:
        return Filled({"at": clock, **extra})
    today = now.astimezone(_zone(home)).date()
    day = slot_date(dates, today)
    if day is None and len(dates) == 1:
        # A date of the next 7 days (an alarm is at most 7 days ahead): "on the 5th",
        # "on december 7th".
        from understanding.arguments.dates import calendar_date, month_day

        when = month_day(dates[0], today) or calendar_date(dates[0], today)
        day = when if when is not None and 0 <= (when - today).days < 7 else None
    if day is None:
        return Filled(None, f"the alarm's day {' '.join(dates)!r} is not one the device sets")
    return Filled({"at": f"{day.isoformat()}T{clock}", **extra})


_UNIT_AFTER = r"\s+(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b"


def _with_unit(span: str, words: str) -> str:
    """A ``time`` span with the unit the tagger left out of it ("two" of "in two hours"):
    a duration's number is never a clock time."""
    said = _said(span)
    if _DURATION_WORDS.search(said):
        return span
    found = re.search(r"\b" + re.escape(said) + _UNIT_AFTER, _said(words))
    return f"{span} {found.group('unit')}" if found else span


_BARE_NUMBER = re.compile(r"(?:\d+|[a-z]+(?:[ -][a-z]+)?)")


def _bare_after_in(span: str, words: str) -> bool:
    """ "in five" with no unit nor am/pm: a countdown or a clock time, which is a guess."""
    said = _said(span)
    if _CLOCK_WORDS.search(said) or _DURATION_WORDS.search(said):
        return False
    if not _BARE_NUMBER.fullmatch(said):
        return False
    return re.search(r"\bin\s+" + re.escape(said) + r"\b", _said(words)) is not None


_EMPTY_WORDS = frozenset(
    "a an the my our your this that these those it them some any of about for on to".split()  # noqa: SIM905
)


def _words_of(span: str | None) -> str | None:
    """The span as said, or None when it holds no word of its own ("the", "it")."""
    if span is None:
        return None
    said = " ".join(span.split())
    return said if set(_said(said).split()) - _EMPTY_WORDS else None


def _note(request: _Request, _home: Any, _now: datetime) -> Filled:
    span, refusal = _one(request, "note_text", "text")
    if refusal is not None:
        return refusal
    text = _words_of(span)
    if span is not None and text is None:
        return Filled(None, f"{span!r} says nothing to write down")
    if text is None:
        if request.tool == "add_note" and (created := _new_list(request)) is not None:
            return created
        if request.tool == "add_note" and (item := _list_item(request)) is not None:
            return item
        if request.reader_may("text") and (found := _note_from_words(request)):
            return Filled(found)
        return _missing("note_text", "text")
    args: dict[str, Any] = {"text": " ".join(text.split())}
    return _with_list(request, args)


_CREATE = re.compile(r"\b(?:create|make|start|open|set up|begin|new)\b")
_TRAILING = r"(?:\s+(?:please|now|olly|alexa|thanks|thank you|for me))*"


def _new_list(request: _Request) -> Filled | None:
    """``{"list": name}`` for a request that creates a named list with no item ("create a
    new list for school supplies", "make a new to do list"): a creating verb, and the
    ``list_name`` span right before "list" or after "list for/called/named" up to the end
    of the request, so a name the tagger cut short ("monthly" of "a list of monthly
    groceries") creates nothing. None for any other request."""
    said = _said(request.words)
    names = request.spans("list_name")
    if len(names) != 1 or not _CREATE.search(said):
        return None
    span = _said(names[0])
    name = slot_list(span)
    if not name or name == "list" or not set(name.split()) - _EMPTY_WORDS:
        return None
    before_list = re.search(r"\b" + re.escape(span) + r"\s+lists?\b", said)
    after_list = re.search(
        r"\blist\s+(?:for|called|named|titled)\s+(?:my\s+|the\s+|our\s+)?"
        + re.escape(span)
        + _TRAILING
        + r"$",
        said,
    )
    if before_list is None and after_list is None:
        return None
    return Filled({"list": name})


_NO_ITEM = frozenset({"item", "items", "something", "stuff", "thing", "things", "one"})


def _list_item(request: _Request) -> Filled | None:
    """``{"text", "list"}`` for an item put on a named list whose words the tagger left
    untagged ("add milk to my grocery list" with only "grocery" tagged): only where the
    whole request is the list grammar of :func:`understanding.requests.list_request` ("add
    <item> to my/the <name> list", nothing after it but politeness), its list is the
    tagger's ``list_name``, and the item has words of its own (not "this", "something").
    None for anything else: a note is never read from free words."""
    from understanding.requests import list_request

    names = request.spans("list_name")
    said = re.sub(r"(?:\s+(?:please|now|olly|alexa|thanks|thank you))+$", "", _said(request.words))
    asked = list_request(said)
    if len(names) != 1 or asked is None or asked[0] != "add" or not asked[1]:
        return None
    if not re.search(r"\blist$", said) or asked[2] != slot_list(names[0]):
        return None
    item = asked[1]
    if not set(_said(item).split()) - _EMPTY_WORDS - _NO_ITEM:
        return None
    return Filled({"text": item, "list": asked[2]})


def _timer_from_words(words: str) -> dict[str, Any] | None:
    """The readers' timer (a duration, else an alarm's clock time) from the words; only
    where :data:`WORD_READERS` allows it (not in the shipped policy)."""
    from understanding.arguments.durations import parse_duration
    from understanding.requests import alarm_time

    at = alarm_time(words)
    if at is not None:
        return {"at": at}
    seconds = parse_duration(words)
    return {"seconds": seconds} if seconds else None


def _note_from_words(request: _Request) -> dict[str, Any] | None:
    """The readers' note or list item from the words (not in the shipped policy)."""
    from understanding.arguments.free_text import note_text
    from understanding.requests import list_request

    listed = list_request(request.words)
    wanted = "add" if request.tool == "add_note" else "remove"
    if listed is not None and listed[0] == wanted and listed[1]:
        return {"text": listed[1], "list": listed[2]}
    if request.tool == "add_note" and (body := note_text(request.words)):
        return {"text": body}
    return None


def _with_list(request: _Request, args: dict[str, Any]) -> Filled:
    span, refusal = _one(request, "list_name", "list")
    if refusal is not None:
        return refusal
    if span is not None:
        name = slot_list(span)
        if name is None:
            return Filled(None, f"{span!r} is no list name")
        args["list"] = name
    return Filled(args)


# "list" as a noun ("my list", "the lists", "what lists"), not the verb ("list everything")
# nor a list of something else ("the list of trains to chester").
_LIST_NOUN = re.compile(
    r"(?:\blists|\b(?:my|the|our|a|this|that|which|what|any|every|all)\s+(?:[\w']+\s+)?list)"
    r"\b(?!\s+of\b)",
    re.IGNORECASE,
)


# A write beside a search ("... and make a packing list"): a second request of its own.
_WRITES = re.compile(
    r"(?<!\bdid i )(?<!\bhave i )(?<!\bdid we )(?<!\bi )(?<!\bwe )"
    r"\b(?:make|create|start|add|set up)\s+(?:(?:a|an|the|my|new|another)\s+)*"
    r"(?:[\w']+\s+){0,2}?(?:list|note|reminder|memo)s?\b"
)
# Notes by when they were written ("my last three notes"): the search finds notes by their
# words, never by their order, so such a request is no search of its.
_BY_ORDER = re.compile(
    r"\b(?:last|latest|most recent|recent|newest|first|oldest|previous|earliest)\s+"
    r"(?:[\w']+\s+)?(?:notes?|entries|items|memos?|things i (?:wrote|saved|noted))\b"
)


def _search_notes(request: _Request, _home: Any, _now: datetime) -> Filled:
    from understanding.arguments.free_text import search_query

    said = _said(request.words)
    if _WRITES.search(said):
        return Filled(None, "a note or list to write beside the search: two requests")
    if _BY_ORDER.search(said):
        return Filled(None, "notes by when they were written: the search reads their words")

    span, refusal = _one(request, "query", "query")
    if refusal is not None:
        return refusal
    query = _words_of(span)
    if span is not None and query is None:
        return Filled(None, f"{span!r} names nothing to search for")
    args: dict[str, Any] = {"query": query} if query else {}
    listed = _with_list(request, args)
    if listed.arguments is None or listed.arguments:
        return listed
    if request.reader_may("query"):
        from understanding.requests import list_request

        asked = list_request(request.words)
        if asked is not None and asked[0] == "read":
            return Filled({"list": asked[2]})
        if _LIST_NOUN.search(request.words):
            # "what's on my list", "show me my lists": no list named, so the lists there
            # are (the one list's items when there is one); never a search for "list".
            return Filled({"lists": True})
        if re.search(r"\blists?\b", request.words, re.IGNORECASE):
            # "list" the verb, or a list of something else: no search for the word "list".
            return Filled(None, "the query names no list of the user's")
        if found := search_query(request.words):
            return Filled({"query": found})
    return _missing("query' or 'list_name", "query")


_FILLERS: dict[str, Callable[[_Request, Any, datetime], Filled]] = {
    "calculator": _calculator,
    "unit_convert": _unit_convert,
    "get_weather": _weather,
    "world_clock": _world_clock,
    "device_control": _device_control,
    "set_timer": _set_timer,
    "add_note": _note,
    "remove_note": _note,
    "search_notes": _search_notes,
}


def builtin_from_slots(
    tool: str,
    slots: Sequence[Any],
    words: str,
    home: Any = None,
    now: datetime | None = None,
    utterance: Sequence[str] = (),
) -> Filled:
    """``tool``'s arguments from the ``slots`` of one request (objects with ``type``,
    ``value``, ``start``, ``end``) and the request's ``words``, with the home defaults of
    ``home`` (``understanding.settings.Settings``) and checked against the tool's schema and
    business rules; or None with the reason. ``utterance``: the words the slots' indices
    point into (the model's ``words``), for free text tagged in several pieces."""
    from understanding.arguments import validate_arguments

    filler = _FILLERS.get(tool)
    if filler is None:
        return Filled(None, f"{tool!r} is no built-in tool")
    try:
        request = _Request(tool, slots, words, utterance)
        filled = filler(request, home, now or datetime.now(UTC))
    except (ValueError, ArithmeticError) as exc:
        return Filled(None, f"cannot read {tool} arguments: {exc}")
    if filled.arguments is None:
        return filled
    problem = validate_arguments(tool, filled.arguments)
    if problem is not None:
        return Filled(None, problem)
    return filled
