"""The number tools' arguments from a joint model's slots: ``calculator`` and
``unit_convert`` (:mod:`understanding.arguments.builtin_slots`)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from understanding.arguments.builtin_request import _missing, _one, _Request
from understanding.arguments.schema import Filled


def _calculator(request: _Request, _home: Any, _now: datetime) -> Filled:
    from understanding.arguments.expressions import (
        calculator_expression,
        has_scientific,
        is_algebra,
    )

    if is_algebra(request.words):
        return Filled(None, "algebra or calculus, not arithmetic the calculator reads")
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
    if expression is None and span != request.words and request.reader_may("expression"):
        # A span cut short ("3" of "3 to the 4th power"): the words read whole, as the
        # reader reads them when no span is tagged.
        expression = calculator_expression(request.words)
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
