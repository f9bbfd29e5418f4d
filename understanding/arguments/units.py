"""Units by any common name ("kilos", "degrees fahrenheit", "litres") -> canonical codes.

``find_units`` scans number-normalised tokens for unit names, longest phrase first, and
``unit_arguments`` decides which unit is the source and which the target from the usual
sentence shapes ("convert 5 kg to lb", "how many feet in 3 metres", "30 c in f").
Single letters ("m", "c", "in") count only where a unit is expected (after a number, or
after "to"/"in"/"into"), so "in" as a preposition never becomes inches.
"""

from __future__ import annotations

from understanding.arguments.numbers import (
    FRACTIONS,
    NumberSpan,
    find_numbers,
    format_number,
    tokenize,
)
from understanding.tools.units import DIMENSION

# Unit phrase (tokenized, space-joined) -> code. Letters-only short forms are in SHORT.
NAMES: dict[str, str] = {}


def _add(code: str, *names: str) -> None:
    for name in names:
        NAMES[name] = code


_add("mm", "millimeter", "millimeters", "millimetre", "millimetres", "mm", "mms")
_add("cm", "centimeter", "centimeters", "centimetre", "centimetres", "cm", "cms", "centimetres")
_add("m", "meter", "meters", "metre", "metres", "mtrs", "mtr", "meteres", "metres")
_add("km", "kilometer", "kilometers", "kilometre", "kilometres", "km", "kms", "klicks",
     "kilometeres", "kilomters", "kilometrs")  # fmt: skip
_add("in", "inch", "inches", "inchs", '"')
_add("ft", "foot", "feet", "ft", "feets", "foots")
_add("yd", "yard", "yards", "yd", "yds")
_add("mi", "mile", "miles", "mi", "mls", "milles")
_add("mg", "milligram", "milligrams", "milligramme", "milligrammes", "mg", "mgs")
_add("g", "gram", "grams", "gramme", "grammes", "gr", "grms", "gms", "grams.")
_add("kg", "kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos", "kg",
     "kgs", "kilogrms", "kilgrams")  # fmt: skip
_add("oz", "ounce", "ounces", "oz", "ozs", "onces")
_add("lb", "pound", "pounds", "lb", "lbs", "lbs.", "pounds.", "punds")
_add("ml", "milliliter", "milliliters", "millilitre", "millilitres", "ml", "mls", "mililiters",
     "mililitres")  # fmt: skip
_add("l", "liter", "liters", "litre", "litres", "ltr", "ltrs", "lt", "litter", "liters.")
_add("gal", "gallon", "gallons", "gal", "gals", "galons")
_add("c", "celsius", "centigrade", "celcius", "celsuis", "°c", "degrees celsius",
     "degree celsius", "degrees c", "degree c", "deg c", "degrees centigrade", "° c")  # fmt: skip
_add("f", "fahrenheit", "farenheit", "fahrenheight", "fahrenhiet", "farenheight", "°f",
     "degrees fahrenheit", "degree fahrenheit", "degrees f", "degree f", "deg f",
     "degrees farenheit", "° f")  # fmt: skip
_add("k", "kelvin", "kelvins", "degrees kelvin", "kelvins.")
_add("kph", "kph", "km/h", "km / h", "kmh", "kmph", "kilometers per hour",
     "kilometres per hour", "kilometers an hour", "kilometres an hour", "km per hour",
     "kms per hour", "km an hour", "k / h", "kilometer per hour", "kilometre per hour")  # fmt: skip
_add("mph", "mph", "miles per hour", "miles an hour", "mile per hour", "mi / h", "mi/h")
_add("s", "second", "seconds", "sec", "secs", "s")
_add("min", "minute", "minutes", "min", "mins")
_add("h", "hour", "hours", "hr", "hrs", "h")

_add("m", "m")
_add("g", "g")
_add("l", "l")
_add("c", "c")
_add("f", "f")
_add("k", "k")

# Single letters that are units only in unit position.
AMBIGUOUS = frozenset({"m", "c", "f", "k", "g", "l", "s", "h", "in", "mi", "min", "gal"})
_MAX_WORDS = 3


def find_units(tokens: list[str]) -> list[tuple[int, int, str]]:
    """Unit mentions as (start, end, code), longest phrase first at each position."""
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        for width in range(_MAX_WORDS, 0, -1):
            phrase = " ".join(tokens[i : i + width])
            if len(tokens[i : i + width]) < width or phrase not in NAMES:
                continue
            if width == 1 and phrase in AMBIGUOUS and not _unit_position(tokens, i):
                continue
            found.append((i, i + width, NAMES[phrase]))
            i += width
            break
        else:
            i += 1
    return found


def fold_unit_fractions(tokens: list[str]) -> list[str]:
    """ "a mile and a half" -> "1.5 mile", "3 pounds and a quarter" -> "3.25 pounds": a
    fraction said after a unit belongs to the number before it. Read alone it is a second
    number, and the conversion would be of the half (or of the wrong unit)."""
    out = list(tokens)
    for start, end, _code in reversed(find_units(tokens)):
        fraction, width = _fraction_after(tokens, end)
        if fraction is None or start == 0:
            continue
        before = tokens[start - 1]
        whole = 1.0 if before in ("a", "an", "one") else _plain_number(before)
        if whole is None:
            continue
        out[start - 1] = format_number(whole + fraction)
        del out[end : end + width]
    return out


def _fraction_after(tokens: list[str], end: int) -> tuple[float | None, int]:
    """The fraction "and a half" / "and 0.5" at ``end``, and how many tokens it takes."""
    if end >= len(tokens) or tokens[end] != "and":
        return None, 0
    nxt = tokens[end + 1] if end + 1 < len(tokens) else ""
    after = tokens[end + 2] if end + 2 < len(tokens) else ""
    if nxt in ("a", "an", "one") and after in FRACTIONS:
        return FRACTIONS[after], 3
    if nxt in FRACTIONS:
        return FRACTIONS[nxt], 2
    if nxt in ("0.5", ".5", "0.25", ".25", "0.75", ".75"):
        return float(nxt), 2
    return None, 0


def _plain_number(token: str) -> float | None:
    spans = find_numbers([token])
    return spans[0].value if len(spans) == 1 and spans[0].end == 1 else None


def _is_number(token: str) -> bool:
    return bool(find_numbers([token]))


def _unit_position(tokens: list[str], i: int) -> bool:
    before = tokens[i - 1] if i > 0 else ""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if _is_number(before) or before in ("°", "degrees", "degree"):
        return True
    if tokens[i] == "in":
        return False
    return before in ("to", "into", "in", "as", "many", "much", "from") and after in (
        "",
        "?",
        ".",
        "please",
        "to",
        "in",
        "into",
        ",",
        "thanks",
        "thx",
        "pls",
        "!",
        "now",
    )


def _fraction_of_one(tokens: list[str], article: int) -> NumberSpan | None:
    """ "half a litre", "a quarter of a mile": the fraction before "a" is the value (one
    litre read from "a" alone would be twice what was asked)."""
    k = article - 1 - (article > 0 and tokens[article - 1] == "of")
    if k < 0 or tokens[k] not in FRACTIONS:
        return None
    start = k - (k > 0 and tokens[k - 1] in ("a", "one"))
    return NumberSpan(start, article + 1, FRACTIONS[tokens[k]])


def unit_arguments(text: str) -> dict[str, object] | None:
    """``{"value", "from_unit", "to_unit"}`` for a conversion query, or None.

    >>> unit_arguments("convert three and a half kilos to pounds")
    {'value': 3.5, 'from_unit': 'kg', 'to_unit': 'lb'}
    """
    tokens = fold_unit_fractions(tokenize(text))
    units = find_units(tokens)
    numbers = find_numbers(tokens)
    # "how many centimetres in an inch": a/an/one before a unit is the value 1.
    for start, _end, _code in units:
        if start > 0 and tokens[start - 1] in ("a", "an", "one") and not numbers:
            numbers = [_fraction_of_one(tokens, start - 1) or NumberSpan(start - 1, start, 1.0)]
    # A bare "degrees" next to the number is a temperature of unknown scale.
    if not numbers:
        return None
    number = numbers[0]
    if len(numbers) > 1:
        # Prefer the number that a unit follows ("in 2024 how many km is 5 miles").
        followed = [s for s in numbers if any(u[0] in (s.end, s.end + 1) for u in units)]
        if len(followed) != 1:
            return None
        number = followed[0]
    value = number.value
    if number.start > 0 and tokens[number.start - 1] in ("minus", "negative", "-"):
        value = -value
    source = [u for u in units if u[0] in (number.end, number.end + 1) and u[0] >= number.end]
    bare_degrees = (
        not source
        and number.end < len(tokens)
        and tokens[number.end] in ("degrees", "degree", "°", "deg")
    )
    others = [u for u in units if not source or u is not source[0]]
    if source:
        from_unit = source[0][2]
        targets = [u for u in others if u[2] != from_unit or u[0] > number.end]
        targets = [u for u in targets if u is not source[0]]
        if not targets:
            return None
        to_unit = _pick_target(tokens, targets, number.end)
    elif bare_degrees:
        temps = [u for u in units if DIMENSION[u[2]] == "temperature"]
        if len(temps) != 1:
            return None
        to_unit = temps[0][2]
        from_unit = "c" if to_unit in ("f", "k") else "f"
    else:
        # "how many feet are in 3 metres" puts the target first; the source follows the number.
        return None
    if from_unit == to_unit or DIMENSION[from_unit] != DIMENSION[to_unit]:
        return None
    return {"value": value, "from_unit": from_unit, "to_unit": to_unit}


def _pick_target(tokens: list[str], targets: list[tuple[int, int, str]], after: int) -> str:
    """The target unit: the one after "to/in/into/as", else the first after the number."""
    for start, _end, code in targets:
        if start > 0 and tokens[start - 1] in ("to", "in", "into", "as"):
            return code
    for start, _end, code in targets:
        if start >= after:
            return code
    return targets[0][2]
