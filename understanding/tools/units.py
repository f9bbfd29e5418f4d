"""The unit_convert tool: converts between the canonical unit codes with pint.

The tool speaks short canonical codes (``kg``, ``f``, ``kph``...) so that arguments are
easy to check and compare; pint does the arithmetic, including the offset scales of
temperature. pint is imported on first use: it is slow to import and most queries never
convert a unit.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from understanding.errors import UnitError as UnitError  # re-exported: the tool's error

# Canonical code -> pint unit name.
PINT_UNITS: dict[str, str] = {
    "mm": "millimeter",
    "cm": "centimeter",
    "m": "meter",
    "km": "kilometer",
    "in": "inch",
    "ft": "foot",
    "yd": "yard",
    "mi": "mile",
    "mg": "milligram",
    "g": "gram",
    "kg": "kilogram",
    "oz": "ounce",
    "lb": "pound",
    "ml": "milliliter",
    "l": "liter",
    "gal": "gallon",
    "c": "degree_Celsius",
    "f": "degree_Fahrenheit",
    "k": "kelvin",
    "kph": "kilometer / hour",
    "mph": "mile / hour",
    "s": "second",
    "min": "minute",
    "h": "hour",
}
UNIT_CODES: tuple[str, ...] = tuple(PINT_UNITS)

# The kind of quantity each code measures, so the business rule can explain a mismatch
# without importing pint.
DIMENSION: dict[str, str] = {
    **dict.fromkeys(("mm", "cm", "m", "km", "in", "ft", "yd", "mi"), "length"),
    **dict.fromkeys(("mg", "g", "kg", "oz", "lb"), "mass"),
    **dict.fromkeys(("ml", "l", "gal"), "volume"),
    **dict.fromkeys(("c", "f", "k"), "temperature"),
    **dict.fromkeys(("kph", "mph"), "speed"),
    **dict.fromkeys(("s", "min", "h"), "time"),
}

# Display names for answers.
UNIT_NAMES: dict[str, tuple[str, str]] = {
    "mm": ("millimetre", "millimetres"),
    "cm": ("centimetre", "centimetres"),
    "m": ("metre", "metres"),
    "km": ("kilometre", "kilometres"),
    "in": ("inch", "inches"),
    "ft": ("foot", "feet"),
    "yd": ("yard", "yards"),
    "mi": ("mile", "miles"),
    "mg": ("milligram", "milligrams"),
    "g": ("gram", "grams"),
    "kg": ("kilogram", "kilograms"),
    "oz": ("ounce", "ounces"),
    "lb": ("pound", "pounds"),
    "ml": ("millilitre", "millilitres"),
    "l": ("litre", "litres"),
    "gal": ("gallon", "gallons"),
    "c": ("°C", "°C"),
    "f": ("°F", "°F"),
    "k": ("kelvin", "kelvin"),
    "kph": ("km/h", "km/h"),
    "mph": ("mph", "mph"),
    "s": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "h": ("hour", "hours"),
}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "value": {"type": "number", "x-edgeloop-slots": ["amount"]},
        "from_unit": {
            "type": "string",
            "enum": list(UNIT_CODES),
            "x-edgeloop-slots": ["from_unit"],
        },
        "to_unit": {"type": "string", "enum": list(UNIT_CODES), "x-edgeloop-slots": ["to_unit"]},
    },
    "required": ["value", "from_unit", "to_unit"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "unit": {"type": "string", "enum": list(UNIT_CODES)},
    },
    "required": ["value", "unit"],
}


def check_units(from_unit: str, to_unit: str) -> str | None:
    """Why the two codes cannot be converted, or None when they can."""
    for code in (from_unit, to_unit):
        if code not in DIMENSION:
            return f"unknown unit {code!r}"
    if DIMENSION[from_unit] != DIMENSION[to_unit]:
        return (
            f"cannot convert {DIMENSION[from_unit]} ({from_unit}) "
            f"to {DIMENSION[to_unit]} ({to_unit})"
        )
    return None


@cache
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit``.

    >>> round(convert(100, "c", "f"), 6)
    212.0
    """
    problem = check_units(from_unit, to_unit)
    if problem:
        raise UnitError(problem)
    if from_unit == to_unit:
        return float(value)
    ureg = _registry()
    quantity = ureg.Quantity(value, ureg.parse_units(PINT_UNITS[from_unit]))
    result = quantity.to(ureg.parse_units(PINT_UNITS[to_unit])).magnitude
    return float(result)


def run(args: dict[str, Any]) -> dict[str, Any]:
    """Tool entry point: ``{"value", "from_unit", "to_unit"}`` -> ``{"value", "unit"}``."""
    from_unit, to_unit = str(args["from_unit"]), str(args["to_unit"])
    value = float(args["value"])
    if DIMENSION.get(from_unit) == "temperature":
        kelvin = convert(value, from_unit, "k") if from_unit != "k" else value
        if kelvin < -1e-9:
            raise UnitError("temperature below absolute zero")
    elif DIMENSION.get(from_unit) != "speed" and value < 0:
        raise UnitError(f"a negative {DIMENSION.get(from_unit, 'quantity')} cannot be converted")
    converted = convert(value, from_unit, to_unit)
    rounded = round(converted, 6)
    return {
        "value": int(rounded) if rounded.is_integer() else rounded,
        "unit": to_unit,
        "from_value": args["value"],
        "from_unit": from_unit,
    }


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: the result is finite and in a known unit."""
    value = observation.get("value")
    if not isinstance(value, int | float) or value != value or abs(value) == float("inf"):
        return "converted value is not a finite number"
    if observation.get("unit") not in PINT_UNITS:
        return f"unknown unit {observation.get('unit')!r}"
    return None
