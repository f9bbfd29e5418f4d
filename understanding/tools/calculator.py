"""The calculator tool: arithmetic evaluated by a small parser, never by ``eval``.

The expression language is what people type into a calculator: ``+ - * / ^ **``,
parentheses, a postfix ``%`` (``15% of 80`` is 12), ``of`` as multiplication after a
percentage, ``×`` and ``÷``, and ``sqrt(...)``. A recursive-descent parser builds the value
directly, so there is no code path from the query to Python's evaluator, and limits on
length, exponent size and result keep a hostile expression from eating the device.
"""

from __future__ import annotations

import math
import re
from typing import Any

from understanding.errors import CalculatorError as CalculatorError  # re-exported

MAX_LENGTH = 256
MAX_EXPONENT = 512.0

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "expression": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_LENGTH,
            "x-edgeloop-slots": ["expression"],
        },
    },
    "required": ["expression"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"value": {"type": "number"}, "expression": {"type": "string"}},
    "required": ["value"],
}


_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exp>[+-]?\d+))?|(?P<op>\*\*|[-+*/^%()×÷x])"
    r"|(?P<word>of|sqrt|abs))",
    re.IGNORECASE,
)


def _tokenize(expression: str) -> list[str]:
    text = expression.replace(",", "").strip()
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            rest = text[pos:].strip()
            if not rest:
                break
            raise CalculatorError(f"unexpected {rest[:12]!r} in expression")
        pos = match.end()
        if match.group("num") is not None:
            number = match.group("num") + (f"e{match.group('exp')}" if match.group("exp") else "")
            tokens.append(number)
        elif match.group("op") is not None:
            op = match.group("op").lower()
            tokens.append({"×": "*", "x": "*", "÷": "/", "^": "**"}.get(op, op))
        else:
            tokens.append(match.group("word").lower())
    return tokens


class _Parser:
    """Precedence climbing over the token list; each method returns a float."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise CalculatorError(f"expected {expected or 'a value'} in expression")
        self.pos += 1
        return token

    def expression(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> float:
        value = self.unary()
        while self.peek() in ("*", "/", "of"):
            op = self.take()
            right = self.unary()
            if op == "/":
                if right == 0:
                    raise CalculatorError("division by zero")
                value /= right
            else:
                value *= right
        return value

    def unary(self) -> float:
        if self.peek() in ("-", "+"):
            op = self.take()
            value = self.unary()
            return -value if op == "-" else value
        return self.power()

    def power(self) -> float:
        base = self.postfix()
        if self.peek() == "**":
            self.take()
            exponent = self.unary()
            if abs(exponent) > MAX_EXPONENT:
                raise CalculatorError("exponent too large")
            if base == 0 and exponent < 0:
                raise CalculatorError("division by zero")
            try:
                result = base**exponent
            except OverflowError as exc:
                raise CalculatorError("result too large") from exc
            if isinstance(result, complex):
                raise CalculatorError("no real result")
            return float(result)
        return base

    def postfix(self) -> float:
        value = self.atom()
        while self.peek() == "%":
            self.take()
            value /= 100.0
        return value

    def atom(self) -> float:
        token = self.take()
        if token == "(":
            value = self.expression()
            self.take(")")
            return value
        if token in ("sqrt", "abs"):
            self.take("(")
            arg = self.expression()
            self.take(")")
            if token == "abs":
                return abs(arg)
            if arg < 0:
                raise CalculatorError("square root of a negative number")
            return math.sqrt(arg)
        try:
            return float(token)
        except ValueError:
            raise CalculatorError(f"unexpected {token!r} in expression") from None


def evaluate(expression: str) -> float:
    """The value of ``expression``.

    >>> evaluate("15% of 80")
    12.0
    >>> evaluate("2^10 + (3 * 4)")
    1036.0
    """
    if len(expression) > MAX_LENGTH:
        raise CalculatorError("expression too long")
    tokens = _tokenize(expression)
    if not tokens:
        raise CalculatorError("empty expression")
    parser = _Parser(tokens)
    value = parser.expression()
    if parser.peek() is not None:
        raise CalculatorError(f"unexpected {parser.peek()!r} in expression")
    if not math.isfinite(value):
        raise CalculatorError("result is not a finite number")
    return value


def clean_number(value: float) -> float | int:
    """Integral results as ints (``12`` rather than ``12.0``), others rounded to 10 places."""
    rounded = round(value, 10)
    if rounded.is_integer() and abs(rounded) < 2**53:
        return int(rounded)
    return rounded


def run(args: dict[str, Any]) -> dict[str, Any]:
    """Tool entry point: ``{"expression"}`` -> ``{"value", "expression"}``."""
    expression = str(args["expression"])
    return {"value": clean_number(evaluate(expression)), "expression": expression}


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: the value is a finite number."""
    value = observation.get("value")
    if not isinstance(value, int | float) or not math.isfinite(value):
        return "calculator value is not a finite number"
    return None
