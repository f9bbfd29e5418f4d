# ruff: noqa: E501 - phrase tables read best one idea per line, even when long
"""The lookups' phrasings: the calculator, unit conversions, the weather and the world clock."""

from __future__ import annotations

from router_data.variation import Gen, slot


def calculator(g: Gen) -> str:
    a, b, c = g.number(2, 999), g.number(2, 99), g.number(2, 30)
    pct = g.number(1, 95, words=0.4)
    op = g.pick(
        ["plus", "+", "minus", "-", "times", "x", "*", "multiplied by", "divided by", "/",
         "over", "and"]
    )  # fmt: skip
    what = g.pick(["what's", "what is", "whats", "calculate", "compute", "how much is", "work out",
                   "what does", "tell me", "solve", "quick math:", "", "can you do"])  # fmt: skip

    def e(words: str) -> str:
        return slot("expression", words)

    forms = [
        f"{what} {e(f'{a} {op} {b}')}",
        f"{what} {e(f'{a} {op} {b} ' + g.pick(['plus', 'minus', 'times', 'divided by']) + f' {c}')}",
        f"{what} {e(f'{pct} percent of {a}')}",
        f"{what} {e(f'{pct}% of {a}')}",
        f"{e(f'{pct} per cent of {a}')}",
        f"{what} {e(f'the square root of {a}')}",
        f"{e(f'square root of {a}')}",
        f"{what} {e(f'{c} squared')}",
        f"{what} {e(f'{c} cubed')}",
        f"{what} {e(f'{c} to the power of {g.number(2, 6)}')}",
        f"{e(f'{c}^{g.number(2, 5, words=0)}')}",
        f"{what} {e(f'({a} + {b}) * {c}')}",
        f"{e(f'{a} {op} {b}')} equals what",
        f"{e(f'{a} ' + g.pick(['+', '-', '*', '/']) + f' {b}')}",
        f"{e(f'add {a} and {b}')}",
        f"{e(f'subtract {b} from {a}')}",
        f"{e(f'multiply {a} by {b}')}",
        f"{e(f'divide {a} by {b}')}",
        f"what's {e(f'half of {a}')}",
        f"{e(f'double {a}')}",
        f"how much is a {e(f'{pct}% tip on {a}')} dollars",
        f"what is {e(f'{pct} percent off {a}')}",
        f"{what} {e(f'{a} {op} {b}')} {g.pick(['?', '', ' exactly', ' for me'])}",
        f"i need the answer to {e(f'{a} {op} {b}')}",
        f"what do you get if you {e(f'multiply {a} by {b}')}",
        f"{e(f'sum of {a} and {b}')}",
        f"what's {e(f'the product of {a} and {b}')}",
        f"{e(f'{a} {op} {b}')}?",
        f"what is {e(f'{a} point ' + g.number(1, 9, words=1) + f' times {b}')}",
        f"what's {e(f'{g.number(2, 20)} dozen times {c}')}",
        f"do the math: {e(f'{a} {op} {b}')}",
        f"quick, {e(f'{a} {op} {b}')}",
        f"figure out {e(f'{pct}% of {a}')} for me",
        f"how much is {e(f'{a} {op} {b}')} {g.pick(['', 'again', 'roughly'])}",
        f"can you tell me what {e(f'{a} {op} {b}')} is",
        f"i need to know {e(f'{a} {op} {b}')}",
        f"what does {e(f'{a} {op} {b}')} come to",
        f"{e(f'{a} {op} {b}')} is?",
        f"{e(f'take {b} away from {a}')}",
        f"{e(f'the square of {c}')}",
        f"{e(f'cube of {c}')}",
        f"what's {e(f'{pct} percent of {a}')} dollars",
        f"if i have {e(f'{a} and add {b}')} what do i get",
        f"how much is {e(f'{pct}% off {a}')}",
        f"help me with some math: {e(f'{a} {op} {b}')}",
        f"what is {e(f'the sum of {a}, {b} and {c}')}",
        f"can you {e(f'subract {b} from {a}')}",
        f"what's {e(f'the total of {a} and {b}')}",
        f"the bill came to {a} and i want to leave {pct} percent, how much is {e(f'{pct}% of {a}')}",
        f"i'm splitting {a} between {g.number(2, 8)} people, so what's {e(f'{a} divided by {b}')}",
        f"{e(f'{a} {op} {b}')}",
        f"{e(f'{pct} percent of {a}')}",
    ]
    return g.dress(g.pick(forms))


UNIT_NAMES: dict[str, list[str]] = {
    "mm": ["mm", "millimeters", "millimetres"],
    "cm": ["cm", "centimeters", "centimetres", "cms"],
    "m": ["m", "meters", "metres", "meter"],
    "km": ["km", "kilometers", "kilometres", "kms", "klicks"],
    "in": ["inches", "inch", "in"],
    "ft": ["feet", "ft", "foot"],
    "yd": ["yards", "yd", "yds"],
    "mi": ["miles", "mile", "mi"],
    "mg": ["mg", "milligrams"],
    "g": ["grams", "g", "gr", "grammes"],
    "kg": ["kg", "kilos", "kilograms", "kgs", "kilogrammes"],
    "oz": ["ounces", "oz"],
    "lb": ["pounds", "lbs", "lb"],
    "ml": ["ml", "milliliters", "millilitres"],
    "l": ["liters", "litres", "l", "liter"],
    "gal": ["gallons", "gal", "gallon"],
    "c": ["celsius", "degrees celsius", "c", "°C", "centigrade", "degrees c"],
    "f": ["fahrenheit", "degrees fahrenheit", "f", "°F", "farenheit", "degrees f"],
    "k": ["kelvin", "k"],
    "kph": ["km/h", "kph", "kilometers per hour", "kilometres an hour", "kmh"],
    "mph": ["mph", "miles per hour", "miles an hour"],
    "s": ["seconds", "secs", "s"],
    "min": ["minutes", "mins", "min"],
    "h": ["hours", "hrs", "h"],
}
UNIT_GROUPS = [
    ["mm", "cm", "m", "km", "in", "ft", "yd", "mi"],
    ["mg", "g", "kg", "oz", "lb"],
    ["ml", "l", "gal"],
    ["c", "f", "k"],
    ["kph", "mph"],
    ["s", "min", "h"],
]


def unit_convert(g: Gen) -> str:
    group = g.r.choice(UNIT_GROUPS)
    src, dst = g.r.sample(group, 2)
    a, b = g.pick(UNIT_NAMES[src]), g.pick(UNIT_NAMES[dst])
    if len(a) == 1 and g.chance(0.5):
        a = UNIT_NAMES[src][0]
    v = g.number(1, 500) if g.chance(0.8) else g.pick(
        ["three and a half", "two and a half", "a dozen", "1.5", "0.75", "half a dozen", "12.5"]
    )  # fmt: skip
    v, a, b = slot("amount", v), slot("from_unit", a), slot("to_unit", b)
    forms = [
        f"convert {v} {a} to {b}",
        f"{v} {a} in {b}",
        f"{v} {a} to {b}",
        f"how many {b} in {v} {a}",
        f"how many {b} is {v} {a}",
        f"how many {b} are there in {v} {a}",
        f"what is {v} {a} in {b}",
        f"what's {v} {a} in {b}",
        f"{v} {a} is how many {b}",
        f"change {v} {a} into {b}",
        f"can you convert {v} {a} into {b}",
        f"i have {v} {a}, what is that in {b}",
        f"turn {v} {a} into {b}",
        f"{v} {a} to {b} please",
        f"express {v} {a} in {b}",
        f"what does {v} {a} come to in {b}",
        f"the recipe says {v} {a}, how much is that in {b}",
        f"my car does {v} {a}, what's that in {b}" if src in ("kph", "mph") else f"{v} {a} = ? {b}",
        f"it's {v} {a} outside, what's that in {b}"
        if src in ("c", "f", "k")
        else f"how much is {v} {a} in {b}",
        f"unit conversion: {v} {a} -> {b}",
        f"{v} {a} equals how many {b}",
        f"how much is {v} {a} in {b} roughly",
        f"if something weighs {v} {a} how many {b} is it"
        if src in UNIT_GROUPS[1]
        else f"{v} {a} into {b}",
        f"i've got {v} {a}, convert that to {b}",
        f"what would {v} {a} be in {b}",
        f"quick conversion, {v} {a} in {b}",
        f"the recipe is in {b} so i need to know how many {b} {v} {a} is",
        f"i'm looking at a label that says {v} {a}, how much is that in {b}",
    ]
    return g.dress(g.pick(forms))


WEATHER_WORDS = ["weather", "forecast", "weather forecast", "wether", "weather like"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def forecast_day(g: Gen) -> str:
    """A day the 7-day forecast serves, its words marked as SLURP does (``date``,
    ``timeofday``); often none (today)."""
    date, part = (
        slot("date", "today"),
        slot("timeofday", g.pick(["morning", "afternoon", "evening"])),
    )
    return g.pick([
        "", "", "", date, slot("date", "tomorrow"), slot("date", "tmrw"),
        f"for {slot('date', 'tomorrow')}", f"{date} please", "right now", f"this {part}",
        slot("timeofday", "tonight"), f"{slot('date', 'tomorrow')} {slot('timeofday', 'morning')}",
        f"on {slot('date', g.pick(WEEKDAYS))}", slot("date", g.pick(WEEKDAYS)),
        f"{slot('date', 'tomorrow')} {slot('timeofday', g.pick(['afternoon', 'night', 'evening']))}",
        _forecast_span(g), _forecast_span(g),
    ])  # fmt: skip


def _forecast_span(g: Gen) -> str:
    """Several days within the forecast's 7 ("this week", "this weekend", "the next few
    days"): ``get_weather``'s (the label contract with the tools: the forecast tool
    answers a span within its 7 days; a day beyond them is the cloud's)."""
    return g.pick([
        slot("date", "this week"), f"for {slot('date', 'this week')}", slot("date", "this weekend"),
        f"over {slot('date', 'the weekend')}", f"over {slot('date', 'the next few days')}",
        f"for {slot('date', 'the next few days')}", f"in {slot('date', 'the next couple of days')}",
    ])  # fmt: skip


def get_weather(g: Gen) -> str:
    # No place: the device's home city ("what's the weather like").
    city = slot("place_name", g.city(known=0.88))
    day = forecast_day(g)
    rain = slot("weather_descriptor", g.pick(["rain", "snow", "sunny", "windy", "hot", "cold"]))
    forms = [
        f"what's the weather in {city} {day}",
        f"weather in {city} {day}",
        f"{city} weather {day}",
        f"how's the weather in {city} {day}",
        f"what is the forecast for {city} {day}",
        f"will it {slot('weather_descriptor', g.pick(['rain', 'snow']))} in {city} {day}",
        f"is it going to {slot('weather_descriptor', 'rain')} in {city} {day}",
        f"is it {slot('weather_descriptor', 'sunny')} in {city} {day}",
        f"do i need an {slot('weather_descriptor', 'umbrella')} in {city} {day}",
        f"how {slot('weather_descriptor', 'hot')} is it in {city} {day}",
        f"how {slot('weather_descriptor', 'cold')} will it be in {city} {day}",
        f"what's the temperature in {city} {day}",
        f"is it {slot('weather_descriptor', 'snowing')} in {city}",
        f"tell me the weather for {city} {day}",
        f"forecast {city} {day}",
        f"what's it like outside in {city} {day}",
        f"any {slot('weather_descriptor', 'rain')} expected in {city} {day}",
        f"give me the {city} forecast {day}",
        f"weather {city}",
        f"what will the weather be like in {city} {day}",
        f"is it {slot('weather_descriptor', 'windy')} in {city} {day}",
        f"i'm flying to {city} {day}, what's the weather there",
        f"check the weather in {city} {day} for me",
        f"how {slot('weather_descriptor', 'warm')} is it in {city} {day}",
        f"what's the {g.pick(WEATHER_WORDS)} in {city} looking like {day}",
        f"{day} in {city}, sun or rain?",
        f"is it {slot('weather_descriptor', 'foggy')} in {city} {day}",
        f"should i expect {rain} in {city} {day}",
        f"what kind of weather is {city} getting {day}",
        f"weather report for {city} {day}",
        f"tell me if it'll be {slot('weather_descriptor', 'cold')} in {city} {day}",
        f"how many degrees is it in {city} {day}",
        f"i'm heading out in {city}, what's the weather",
        f"is there a {slot('weather_descriptor', 'storm')} in {city} {day}",
        f"my {g.pick(['daughter', 'son', 'friend', 'boss', 'mum', 'dad'])} is off to {city} {day} and "
        f"wants to know if {g.pick(['she', 'he'])}'ll need a {slot('weather_descriptor', 'coat')}, what's the forecast there",
        f"we're driving to {city} {day}, what's the weather going to be like there",
        f"thinking about a walk in {city} {day}, what's the weather doing",
        f"could you tell me what the temperature is going to be in {city} {day}",
        f"what are the conditions in {city} {day}",
        # at home
        f"what's the weather {day}",
        f"what's the weather like {day}",
        f"weather {day}",
        f"will it {slot('weather_descriptor', g.pick(['rain', 'snow']))} {day}",
        f"is it going to be {rain} {day}",
        f"do i need an {slot('weather_descriptor', 'umbrella')} {day}",
        f"should i take a {slot('weather_descriptor', g.pick(['jacket', 'coat']))} {day}",
        f"what's the temperature outside {day}",
        f"how {slot('weather_descriptor', g.pick(['cold', 'hot', 'warm']))} is it outside",
        f"what's the forecast {day}",
        "what is it like outside",
        f"tell me the weather for {day or slot('date', 'today')}",
        f"weather for {slot('date', g.pick(WEEKDAYS))}",
        f"is it {rain} outside",
    ]
    return g.dress(g.pick(forms))


MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]  # fmt: skip
ORDINALS = ["first", "second", "third", "fifth", "tenth", "twelfth", "thirteenth", "fifteenth",
            "twentieth", "twenty first", "twenty third", "thirtieth", "1st", "4th", "22nd"]  # fmt: skip


def world_clock(g: Gen) -> str:
    city = slot("place_name", g.city(known=0.88))
    if g.chance(0.25):
        # at home: the local time, today's date, a date's weekday
        date = slot("date", g.pick([f"{g.pick(MONTHS)} {g.pick(ORDINALS)}", f"the {g.pick(ORDINALS)} of {g.pick(MONTHS)}",
                                    f"{g.pick(ORDINALS)} {g.pick(MONTHS)}", "tomorrow", "today"]))  # fmt: skip
        forms = [
            "what time is it", "what's the time", "tell me the time", "what time is it now",
            "what's the date today", "what's today's date", "what day is it today", "what is the date",
            "time please", "what's the time right now", "current time", "do you know what time it is",
            f"what day is {date}", f"what day of the week is {date}", f"is {date} a {slot('date', g.pick(WEEKDAYS))}",
            f"which day does {date} fall on", f"what's the date {slot('date', 'tomorrow')}",
        ]  # fmt: skip
        return g.dress(g.pick(forms))
    forms = [
        f"what time is it in {city}",
        f"time in {city}",
        f"current time in {city}",
        f"what's the time in {city}",
        f"{city} time",
        f"what time is it over in {city} now",
        f"tell me the time in {city}",
        f"local time in {city}",
        f"clock in {city}",
        f"is it night in {city} right now",
        f"what's the local time in {city}",
        f"how late is it in {city}",
        f"what hour is it in {city}",
        f"time {city}",
        f"my sister lives in {city}, what time is it there",
        f"is it morning in {city} yet",
        f"do you know what time it is in {city}",
        f"whats the time over in {city} rn",
        f"i need to call {city}, what time is it there",
        f"what's the current time in {city}",
        f"time now in {city}?",
        f"what's the hour in {city}",
        f"time check: {city}",
        f"what time do they have in {city}",
        f"is it daytime in {city} right now",
        f"what o'clock is it in {city}",
        f"got the time in {city}?",
        f"i have a call with the team in {city} later, what time is it there right now",
        f"my cousin just landed in {city}, what's the local time there",
        f"before i ring my friend in {city}, what time is it over there",
        f"what's the date in {city}",
    ]
    return g.dress(g.pick(forms))
