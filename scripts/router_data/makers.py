# ruff: noqa: E501 - phrase tables read best one idea per line, even when long
"""Every generated tool's maker in one table, and the short, plain forms of each tool's requests."""

from __future__ import annotations

from collections.abc import Callable

from router_data.commands import DEVICES, ROOMS, clock_time, device_control, duration, set_timer
from router_data.lookups import (
    UNIT_GROUPS,
    UNIT_NAMES,
    calculator,
    forecast_day,
    get_weather,
    unit_convert,
    world_clock,
)
from router_data.notes import (
    LIST_ITEMS,
    LIST_NAMES,
    NOTE_BODIES,
    SEARCH_TOPICS,
    add_note,
    remove_note,
    search_notes,
)
from router_data.variation import Gen, slot

TOOL_MAKERS: dict[str, Callable[[Gen], str]] = {
    "calculator": calculator,
    "unit_convert": unit_convert,
    "get_weather": get_weather,
    "device_control": device_control,
    "set_timer": set_timer,
    "add_note": add_note,
    "search_notes": search_notes,
    "world_clock": world_clock,
    "remove_note": remove_note,
}


def _terse_forms(g: Gen, intent: str) -> list[str]:
    """The short, plain requests people say most ("weather in oslo", "turn on the
    lights"): the templates above favour variety, so these get their own share."""
    city = slot("place_name", g.city(known=0.9))
    day = forecast_day(g)
    device = slot(
        "device_type",
        g.pick(DEVICES[g.pick(["light", "light", "tv", "fan", "heater", "ac", "plug"])]),
    )
    room = slot("house_place", g.pick(ROOMS))
    on_off = g.pick(["on", "off"])
    item, name = slot("note_text", g.pick(LIST_ITEMS)), slot("list_name", g.pick(LIST_NAMES))
    topic = slot("query", g.pick(SEARCH_TOPICS))
    a, b = g.number(2, 999), g.number(2, 99)
    op = g.pick(["plus", "minus", "times", "divided by", "+", "-", "*", "/"])
    expression = slot(
        "expression",
        g.pick(
            [f"{a} {op} {b}", f"{g.number(1, 95)}% of {a}", f"{g.number(1, 95)} percent of {a}"]
        ),
    )
    group = g.r.choice(UNIT_GROUPS)
    src, dst = g.r.sample(group, 2)
    value, unit, to = (
        slot("amount", g.number(1, 500)),
        slot("from_unit", g.pick(UNIT_NAMES[src])),
        slot("to_unit", g.pick(UNIT_NAMES[dst])),
    )
    forms = {
        "calculator": [f"{expression}", f"what's {expression}", f"what is {expression}", f"calculate {expression}"],
        "unit_convert": [f"{value} {unit} to {to}", f"{value} {unit} in {to}", f"convert {value} {unit} to {to}",
                         f"how many {to} in {value} {unit}"],
        "get_weather": [f"weather in {city}", f"{city} weather", f"what's the weather in {city}",
                        f"weather in {city} {day}", f"forecast for {city}", f"how's the weather in {city}",
                        f"is it raining in {city}", f"temperature in {city}", f"weather {day}",
                        "what's the weather", "how's the weather", f"what's the weather {day}"],
        "device_control": [f"turn {on_off} the {device}", f"turn the {device} {on_off}", f"{device} {on_off}",
                           f"switch {on_off} the {device}", f"turn {on_off} the {room} {device}",
                           f"{room} {device} {on_off}", f"switch the {device} in the {room} {on_off}"],
        "set_timer": [f"set a timer for {duration(g)}", f"timer {duration(g)}", f"{duration(g)} timer",
                      f"set an alarm for {slot('time', clock_time(g))}",
                      f"wake me up at {slot('time', clock_time(g))}"],
        "add_note": [f"add {item} to my {name} list", f"add {item} to the {name} list",
                     f"note {slot('note_text', g.pick(NOTE_BODIES))}",
                     f"remember {slot('note_text', g.pick(NOTE_BODIES))}"],
        "remove_note": [f"remove {item} from my {name} list", f"take {item} off the {name} list"],
        "search_notes": [f"search my notes for {topic}", f"notes about {topic}", f"what's on my {name} list",
                         f"find my note about {topic}"],
        "world_clock": [f"time in {city}", f"what time is it in {city}", f"what's the time in {city}",
                        "what time is it", "what's the date"],
    }  # fmt: skip
    return forms[intent]


def terse(g: Gen, intent: str) -> str:
    """One short, plain request of ``intent``, dressed half of the time."""
    text = g.pick(_terse_forms(g, intent))
    return g.dress(text) if g.chance(0.5) else " ".join(text.split())
