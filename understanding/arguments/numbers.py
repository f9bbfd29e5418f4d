"""Numbers as people say them: "three and a half", "a dozen", "twenty-five", "1,500".

``find_numbers`` walks a token list and returns each number span with its value;
``normalise_numbers`` rewrites the text with digits so the other extractors (units,
durations, arithmetic) only ever see digits. The walk is a small state machine over
English number words (units, tens, scales, "and", "point", fractions), not a regex,
so it composes: "one hundred and twenty five point five" is 125.5.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

SMALL: dict[str, int] = {
    "zero": 0, "oh": 0, "nil": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS: dict[str, int] = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES: dict[str, int] = {"thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
# Words that multiply what came before them ("three quarters", "two dozen").
MULTIPLIERS: dict[str, float] = {
    "dozen": 12, "dozens": 12, "quarters": 0.25, "quarter": 0.25, "thirds": 1 / 3,
    "third": 1 / 3, "halves": 0.5,
}  # fmt: skip
FRACTIONS: dict[str, float] = {"half": 0.5, "quarter": 0.25, "third": 1 / 3}
# Common misspellings of number words.
TYPOS: dict[str, str] = {
    "fourty": "forty", "ninty": "ninety", "tweleve": "twelve", "twelv": "twelve",
    "thre": "three", "tree": "three", "fiften": "fifteen", "twnty": "twenty",
    "hundered": "hundred", "hundert": "hundred", "thousend": "thousand", "seven": "seven",
}  # fmt: skip

_DIGITS = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[+-]?\.\d+$")


@dataclass(frozen=True)
class NumberSpan:
    """A number found in a token list: tokens ``[start, end)`` mean ``value``."""

    start: int
    end: int
    value: float


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens; digits split from letters ("20min" -> "20 min")."""
    return list(_tokenize(text))


@lru_cache(maxsize=4096)
def _tokenize(text: str) -> tuple[str, ...]:
    # Cached: one decision tokenizes the same query and clauses several times.
    text = text.lower().replace("’", "'")
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)  # twenty-five, forty-two
    text = re.sub(r"(\d)([a-z°%$€£])", r"\1 \2", text)
    text = re.sub(r"([a-z°$€£])(\d)", r"\1 \2", text)
    text = re.sub(r"(\d)\s*-\s*(?=[a-z])", r"\1 ", text)  # 20-minute
    text = re.sub(r"([?!;:()\[\]\"/^*+=×÷%])", r" \1 ", text)
    text = re.sub(r",(?!\d{3})", " , ", text)
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " . ", text)
    return tuple(text.split())


def _word(token: str) -> str:
    return TYPOS.get(token, token)


def _is_number_word(token: str) -> bool:
    word = _word(token)
    return word in SMALL or word in TENS or word in SCALES or word == "hundred"


def _digit_value(token: str) -> float | None:
    if _DIGITS.match(token):
        return float(token.replace(",", ""))
    return None


def find_numbers(tokens: list[str]) -> list[NumberSpan]:
    """Every number span in ``tokens``, left to right, non-overlapping."""
    spans: list[NumberSpan] = []
    i = 0
    while i < len(tokens):
        span = _read_number(tokens, i)
        if span is None:
            i += 1
        else:
            spans.append(span)
            i = span.end
    return spans


def _starts_number(tokens: list[str], i: int) -> bool:
    token = _word(tokens[i])
    nxt = _word(tokens[i + 1]) if i + 1 < len(tokens) else ""
    if _digit_value(token) is not None or _is_number_word(token):
        return token != "oh" or _is_number_word(nxt)
    if token in ("a", "an", "one"):
        return nxt in ("hundred", "thousand", "million", "dozen", "couple", "half") or (
            nxt in ("quarter", "third")
            and (i + 2 >= len(tokens) or tokens[i + 2] != "of")
            and token != "one"
        )
    if token == "half" and nxt in ("a", "an") and i + 2 < len(tokens):
        return _word(tokens[i + 2]) == "dozen"
    return token in ("point", "couple") and (
        token == "couple" or (i + 1 < len(tokens) and _word(tokens[i + 1]) in SMALL)
    )


def _read_number(tokens: list[str], start: int) -> NumberSpan | None:
    if not _starts_number(tokens, start):
        return None
    reading = _Reading(tokens, start)
    idiom = _idiom(reading.word, start)
    if idiom is not None:
        return idiom
    if reading.word(start) in ("a", "an", "one") and reading.word(start + 1) in (
        "hundred",
        "thousand",
        "million",
        "dozen",
    ):  # "a hundred": the scale word reads on from one
        reading.current, reading.seen, reading.i = 1.0, True, start + 1
    while reading.i < len(tokens) and reading.step():
        pass
    if not reading.seen:
        return None
    return NumberSpan(start, reading.i, reading.total + reading.current)


def _idiom(word: Callable[[int], str], i: int) -> NumberSpan | None:
    """The phrases that are one number as a whole: "half a dozen", "a couple (of)", "a
    half" / "a quarter" alone."""
    if word(i) == "half" and word(i + 1) in ("a", "an") and word(i + 2) == "dozen":
        return NumberSpan(i, i + 3, 6.0)
    if word(i) in ("a", "couple") and (word(i) == "couple" or word(i + 1) == "couple"):
        end = i + (1 if word(i) == "couple" else 2)
        if word(end) == "of":
            end += 1
        return NumberSpan(i, end, 2.0)
    if word(i) in ("a", "an") and word(i + 1) in FRACTIONS:
        return NumberSpan(i, i + 2, FRACTIONS[word(i + 1)])
    return None


@dataclass(slots=True)
class _Reading:
    """A number read word by word from ``tokens[i]`` on: ``total`` holds the finished
    scales ("two thousand"), ``current`` the group being read ("three hundred and five");
    ``seen`` once a word has given a value."""

    tokens: list[str]
    i: int
    total: float = 0.0
    current: float = 0.0
    seen: bool = False

    def word(self, k: int) -> str:
        """The number word at ``k`` with its typo fixed ("" past the end)."""
        return _word(self.tokens[k]) if k < len(self.tokens) else ""

    def step(self) -> bool:
        """Read the word at ``i``: True to read on, False when the number has ended
        (before that word, or with it: "point five", "and a half")."""
        w = self.word(self.i)
        digit = _digit_value(w)
        if digit is not None:
            return self._digits(digit)
        if w in SMALL or w in TENS:
            return self._small(w, SMALL.get(w, TENS.get(w, 0)))
        if w == "hundred":
            return self._hundred()
        if w in SCALES:
            return self._scale(SCALES[w])
        if w in ("dozen", "dozens") and self.seen:
            return self._times(12)
        if w in ("quarters", "thirds", "halves") and self.seen and self.current < 20:
            return self._times(MULTIPLIERS[w])
        if w == "point" and _decimals_follow(self.word(self.i + 1)):
            self._point()
            return False
        if w == "and" and self.seen:
            return self._and()
        return False

    def _digits(self, value: float) -> bool:
        if self.seen:  # "twenty 5": two numbers
            return False
        self.current, self.seen = value, True
        self.i += 1
        return True

    def _small(self, w: str, value: float) -> bool:
        """A unit, teen or tens word: a new group, or the rest of one ("hundred five",
        "twenty five"); any other follower ("five six") ends the number."""
        fresh = not self.seen or (self.current == 0 and self.total > 0)
        after_hundred = self.seen and self.current >= 100 and self.current % 100 == 0
        after_tens = (
            self.seen
            and w in SMALL
            and 0 < value < 10
            and self.current % 100 >= 20
            and self.current % 10 == 0
        )
        if fresh:
            self.current = value
        elif after_hundred or after_tens:
            self.current += value
        else:
            return False
        self.seen = True
        self.i += 1
        return True

    def _hundred(self) -> bool:
        """ "three hundred": only after a whole group under 100."""
        if not (self.seen and self.current % 1 == 0 and 0 < self.current < 100):
            return False
        self.current *= 100
        self.i += 1
        return True

    def _scale(self, scale: int) -> bool:
        """ "thousand", "million"...: the group so far (or one) is done at that scale."""
        if not self.seen:
            return False
        self.total += (self.current or 1) * scale
        self.current = 0
        self.i += 1
        return True

    def _times(self, factor: float) -> bool:
        """ "two dozen", "three quarters"."""
        self.current *= factor
        self.i += 1
        return True

    def _point(self) -> None:
        """The decimals after "point", as words ("five oh two") or digits ("25")."""
        digits = ""
        k = self.i + 1
        n = len(self.tokens)
        while k < n and (
            (self.word(k) in SMALL and SMALL[self.word(k)] < 10) or self.word(k) == "oh"
        ):
            digits += str(SMALL.get(self.word(k), 0))
            k += 1
        if not digits and k < n and _digit_value(self.word(k)) is not None:
            digits = self.word(k)
            k += 1
        self.current = (self.total + self.current) + float("0." + digits)
        self.total = 0
        self.seen = True
        self.i = k

    def _and(self) -> bool:
        """ "and a half" ends the number with its fraction; "hundred and five" and "two
        thousand and ten" read on; any other "and" is not part of the number."""
        nxt, after = self.word(self.i + 1), self.word(self.i + 2)
        if nxt in ("a", "an", "one") and after in FRACTIONS:
            self.current += FRACTIONS[after]
            self.i += 3
            return False
        if nxt in FRACTIONS:
            self.current += FRACTIONS[nxt]
            self.i += 2
            return False
        if (nxt in SMALL or nxt in TENS) and (self.total > 0 or self.current >= 100):
            self.i += 1
            return True
        return False


def _decimals_follow(nxt: str) -> bool:
    """Whether "point" is a decimal point: a digit word or plain digits come next."""
    return nxt in SMALL or (_digit_value(nxt) is not None and "." not in nxt)


def format_number(value: float) -> str:
    """Digits for a value: ints without a decimal point, others with up to 10 places."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.10f}".rstrip("0").rstrip(".")


@lru_cache(maxsize=4096)
def normalise_numbers(text: str) -> str:
    """The text, tokenized, with every number span written as digits.

    >>> normalise_numbers("Three and a half kilos")
    '3.5 kilos'
    """
    tokens = tokenize(text)
    out: list[str] = []
    i = 0
    for span in find_numbers(tokens):
        out.extend(tokens[i : span.start])
        out.append(format_number(span.value))
        i = span.end
    out.extend(tokens[i:])
    return " ".join(out)


def parse_number(text: str) -> float | None:
    """The value of ``text`` when it is exactly one number ("twenty five"), else None."""
    tokens = tokenize(text)
    spans = find_numbers(tokens)
    if len(spans) == 1 and spans[0].start == 0 and spans[0].end == len(tokens):
        return spans[0].value
    return None


_SMALL_WORDS = [w for w, _ in sorted(SMALL.items(), key=lambda kv: kv[1]) if w not in ("oh", "nil")]
_TENS_WORDS = {v: w for w, v in TENS.items() if w != "fourty"}


def spell_number(value: int) -> str:
    """English words for a whole number, the inverse of ``find_numbers``.

    Used to write training phrasings and property tests ("1234" -> "one thousand two
    hundred and thirty four").

    >>> spell_number(1234)
    'one thousand two hundred and thirty four'
    """
    if value < 0:
        return "minus " + spell_number(-value)
    if value < 20:
        return _SMALL_WORDS[value]
    if value < 100:
        tens, rest = divmod(value, 10)
        return _TENS_WORDS[tens * 10] + (f" {_SMALL_WORDS[rest]}" if rest else "")
    if value < 1000:
        hundreds, rest = divmod(value, 100)
        head = f"{_SMALL_WORDS[hundreds]} hundred"
        return head + (f" and {spell_number(rest)}" if rest else "")
    for scale_value, scale_word in (
        (1_000_000_000, "billion"),
        (1_000_000, "million"),
        (1000, "thousand"),
    ):
        if value >= scale_value:
            head_value, rest = divmod(value, scale_value)
            head = f"{spell_number(head_value)} {scale_word}"
            if not rest:
                return head
            joiner = " and " if rest < 100 else " "
            return head + joiner + spell_number(rest)
    raise AssertionError("unreachable")
