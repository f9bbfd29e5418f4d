"""Arithmetic from how people ask for it: "what's fifteen percent of 80", "2 to the power 8".

``calculator_expression`` rewrites number words as digits and operator words as symbols
("times" -> ``*``, "squared" -> ``^2``, "square root of" -> ``sqrt(...)``), keeps the one
run of arithmetic in the sentence, and returns it only if the calculator can evaluate
it; a sentence with no operator is not arithmetic and gets None.
"""

from __future__ import annotations

import re

from understanding.arguments.numbers import normalise_numbers
from understanding.tools.calculator import CalculatorError, evaluate

# Phrase -> symbol, longest first when applied.
_OPERATORS: list[tuple[str, str]] = sorted(
    [
        ("plus", "+"),
        ("added to", "+"),
        ("and", "+"),
        ("+", "+"),
        ("more than", "+"),
        ("minus", "-"),
        ("less", "-"),
        ("take away", "-"),
        ("subtract", "-"),
        ("times", "*"),
        ("multiplied by", "*"),
        ("multiplied with", "*"),
        ("multiply by", "*"),
        ("x", "*"),
        ("×", "*"),
        ("*", "*"),
        ("into", "*"),
        ("divided by", "/"),
        ("divided into", "/"),
        ("over", "/"),
        ("÷", "/"),
        ("/", "/"),
        ("divide by", "/"),
        ("devided by", "/"),
        ("divded by", "/"),
        ("to the power of", "^"),
        ("to the power", "^"),
        ("raised to the power of", "^"),
        ("raised to", "^"),
        ("to the", "^"),
        ("power", "^"),
        ("^", "^"),
        ("**", "^"),
        ("percent of", "% of"),
        ("per cent of", "% of"),
        ("pct of", "% of"),
        ("percent", "%"),
        ("per cent", "%"),
        ("pct", "%"),
        ("%", "%"),
        ("of", "of"),
        ("percent off", "% off"),
        ("mod", "mod"),
        ("squared", "^ 2"),
        ("cubed", "^ 3"),
        ("square", "^ 2"),
        ("(", "("),
        (")", ")"),
    ],
    key=lambda pair: -len(pair[0].split()),
)
_LEADING = re.compile(
    r"^(?:hey |ok |okay |please |quick(?:ly)? |so |um |uh |yo )*"
    r"(?:(?:can|could|would) you |will you |pls |please )?"
    r"(?:tell me |let me know |help me )?"
    r"(?:what(?:'s| is| are| does| do| s)?|whats|wats|calculate|calc|compute|work out|"
    r"figure out|solve|evaluate|how much is|how much are|how much does|find|give me|"
    r"what would be|what will be|do the math on|do the maths on|the answer to|"
    r"i need|tell me)?\s*",
)


_ORDINALS = {
    "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip


def _rewrite(text: str) -> str:
    text = re.sub(
        r"\bto the (" + "|".join(_ORDINALS) + r")\b",
        lambda m: f"to the {_ORDINALS[m.group(1)]}",
        text,
    )
    text = normalise_numbers(text)
    # "three quarters of 200", "two thirds of 90": the fraction the number reader made
    text = re.sub(r"\b(0?\.\d+) of\b", r" \1 * ", text)
    text = re.sub(
        r"\bthe square root of\b|\bsquare root of\b|\bsqrt of\b|\broot of\b", " sqrt ", text
    )
    text = re.sub(r"\bsquare root\b|\bsqrt\b", " sqrt ", text)
    text = re.sub(r"\bto the (\d+)(?: ?(?:st|nd|rd|th))?(?: power)?\b", r" ^ \1 ", text)
    text = re.sub(r"\b(?:the )?square of (\S+)", r" \1 ^ 2 ", text)
    text = re.sub(r"\b(?:the )?cube of (\S+)", r" \1 ^ 3 ", text)
    text = re.sub(r"\bhalf of\b", " 0.5 * ", text)
    # Verbs of word arithmetic: "halve 347", "cube 9", "square 12", "split 96 bucks 4 ways".
    text = re.sub(r"\bhalve (\d+(?:\.\d+)?)\b", r" \1 / 2 ", text)
    text = re.sub(r"\bcube (\d+(?:\.\d+)?)\b", r" \1 ^ 3 ", text)
    text = re.sub(r"\bsquare (\d+(?:\.\d+)?)\b", r" \1 ^ 2 ", text)
    text = re.sub(
        r"\bsplit (\d+(?:\.\d+)?) (?:(?:bucks|dollars|euros|pounds|quid) )?(?:in |into )?"
        r"(\d+) ways\b",
        r" \1 / \2 ",
        text,
    )
    text = re.sub(r"\bdouble\b", " 2 * ", text)
    text = re.sub(r"\btriple\b", " 3 * ", text)
    text = re.sub(r"\ba (?:third|3rd) of\b", " 1 / 3 * ", text)
    text = re.sub(r"\ba quarter of\b|\bone quarter of\b", " 0.25 * ", text)
    text = re.sub(r"\btwice\b", " 2 * ", text)
    # "subtract 4 from 10" / "take 4 from 10" -> 10 - 4; "divide 10 by 4" -> 10 / 4
    text = re.sub(
        r"\b(?:subtract|subract|substract|subtact|take|take away|deduct|minus) (\S+) from (\S+)",
        r"\2 - \1",
        text,
    )
    # "the sum of 3, 7, 9 and 24" -> 3 + 7 + 9 + 24 (likewise the product)
    text = re.sub(
        r"\b(sum|total|product) of ((?:[\d.]+\s*(?:,|and|&)?\s*)+)",
        lambda m: (
            " "
            + (" + " if m.group(1) != "product" else " * ").join(re.findall(r"[\d.]+", m.group(2)))
            + " "
        ),
        text,
    )
    text = re.sub(r"\bdivide (\S+) by (\S+)", r"\1 / \2", text)
    text = re.sub(r"\bmultiply (\S+) (?:by|and|with|times) (\S+)", r"\1 * \2", text)
    text = re.sub(
        r"\b(?:add|sum(?: of)?|total of) (\S+) (?:and|to|plus|with) (\S+)", r"\1 + \2", text
    )
    text = re.sub(r"\bproduct of (\S+) and (\S+)", r"\1 * \2", text)
    text = re.sub(r"\bdifference between (\S+) and (\S+)", r"\1 - \2", text)
    text = re.sub(
        r"\b(\S+) (?:%|percent) (?:tip|discount|tax|off|vat) on (\S+)", r"\1 % of \2", text
    )
    text = re.sub(r"\b(\S+) (?:%|percent) (?:on|from)\b", r"\1 % of", text)
    text = re.sub(r"[$€£]", " ", text)
    return text


def _symbolise(tokens: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for phrase, symbol in _OPERATORS:
            words = phrase.split()
            if tokens[i : i + len(words)] == words:
                out.extend(symbol.split())
                i += len(words)
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


_MATH = re.compile(r"^(?:[-+*/^%()]|of|sqrt|\d+(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+)$")
_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e([-+]?\d+)(?![\w.])")


def has_scientific(text: str) -> bool:
    """True when ``text`` writes a number in scientific notation ("1e308", "2.5E-3")."""
    return _SCIENTIFIC.search(text.lower()) is not None


def _keep_scientific(original: str, rewritten: str) -> str:
    """``rewritten`` with the numbers ``original`` wrote in scientific notation ("1e308")
    whole again: the number reader splits them into "1 e 308", which read as 308."""
    for mantissa, exponent in _SCIENTIFIC.findall(original):
        sign, digits = (exponent[0], exponent[1:]) if exponent[0] in "+-" else ("", exponent)
        spaced = rf"(?<![\w.]){re.escape(mantissa)} e ?{re.escape(sign)} ?{digits}(?![\w.])"
        rewritten = re.sub(spaced, f"{mantissa}e{sign}{digits}", rewritten, count=1)
    return rewritten


# Algebra and calculus: an unknown ("2x", "x squared") or an operation on functions. The
# calculator evaluates numbers; reading "x squared plus 2x equals 8" as "2 + 2 * 8" would
# answer another question.
_ALGEBRA = re.compile(
    r"\b(?:limit|derivative|integral|integrate|differentiate|simplify|factori[sz]e)s?\b|"
    r"\d\s?x\b(?!\s*[\d(.])|\bx\s*(?:squared|cubed|\^|\+|-|=|equals)",
    re.IGNORECASE,
)


def is_algebra(text: str) -> bool:
    """True when ``text`` asks for algebra or calculus, not arithmetic on numbers."""
    return _ALGEBRA.search(normalise_numbers(text)) is not None


def calculator_expression(text: str) -> str | None:
    """An expression the calculator can evaluate, read from ``text``, or None.

    >>> calculator_expression("what's fifteen percent of eighty?")
    '15 % of 80'
    """
    if is_algebra(text):
        return None
    lowered = text.lower().strip()
    lowered = _LEADING.sub("", lowered, count=1)
    tokens = _symbolise(_keep_scientific(lowered, _rewrite(lowered)).split())
    # The longest run of arithmetic tokens; dangling "of" / "and" words are dropped.
    runs: list[list[str]] = [[]]
    for token in tokens:
        if _MATH.match(token):
            runs[-1].append(token)
        elif token in (
            "?",
            ".",
            "!",
            "=",
            "equals",
            "equal",
            "is",
            "the",
            "be",
            "for",
            "me",
            "please",
            "dollars",
            "bucks",
            "euros",
            "pounds",
            "exactly",
            "by",
        ):
            continue
        else:
            runs.append([])
    candidates = [run for run in runs if any(_is_number(t) for t in run)]
    if not candidates:
        return None
    run = max(candidates, key=len)
    while run and run[-1] in ("of", "+", "-", "*", "/", "^"):
        run = run[:-1]
    while run and run[0] in ("of", "*", "/", "^", "%", "+"):
        run = run[1:]
    if len([t for t in run if _is_number(t)]) < 2 and "sqrt" not in run and "^" not in run:
        return None
    if not any(t in ("+", "-", "*", "/", "^", "%", "sqrt") for t in run):
        return None
    expression = " ".join(run)
    expression = expression.replace("sqrt ", "sqrt ")
    expression = _wrap_sqrt(expression)
    try:
        evaluate(expression)
    except CalculatorError:
        return None
    return expression


def _is_number(token: str) -> bool:
    return bool(re.match(r"^\d+(?:\.\d+)?(?:e[-+]?\d+)?$|^\.\d+$", token))


def _wrap_sqrt(expression: str) -> str:
    """``sqrt 16`` -> ``sqrt(16)``; ``sqrt ( ... )`` stays as it is."""
    return re.sub(r"sqrt (\d+(?:\.\d+)?)", r"sqrt(\1)", expression).replace("sqrt (", "sqrt(")
