"""What every generated line shares: the seeded generator with its slot fillers and the
way people write (openers, closers, context, typos), the inline slot mark, and the
held-out queries no line may say.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import ClassVar

from understanding.arguments.numbers import spell_number
from understanding.gazetteer import cities
from understanding.tools import TOOL_NAMES

DATA = Path(__file__).resolve().parents[2] / "understanding" / "data"
# The tools whose requests the older makers compose into compounds and terse lines (the
# reads and the timer/list tools of issue 24 have makers of their own).
NEWER_TOOLS = ("device_status", "list_timers", "cancel_timer", "clear_list")
GENERATED_TOOLS = tuple(n for n in TOOL_NAMES if n not in NEWER_TOOLS)
INTENTS = (*GENERATED_TOOLS, *NEWER_TOOLS, "smalltalk", "oos")

# Cities outside the gazetteer: the phrasing is still the tool's, the argument check
# sends them to the cloud, so the classifier should not learn "unknown city" = cloud.
OTHER_CITIES = [
    "oslo", "lisbon", "dublin", "vienna", "prague", "warsaw", "athens", "helsinki",
    "copenhagen", "zurich", "brussels", "boston", "miami", "denver", "austin", "lima",
    "bogota", "santiago", "johannesburg", "cape town", "jakarta", "manila", "hanoi",
    "kuala lumpur", "perth", "brisbane", "montreal", "rio de janeiro", "tel aviv", "riyadh",
]  # fmt: skip


_SLOT_TYPE = re.compile(r"\[([A-Z_]+) :")


def _lower_type(match: re.Match[str]) -> str:
    return f"[{match.group(1).lower()} :"


class Gen:
    """Slot fillers and variation helpers around one seeded random generator."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.cities = sorted(cities())

    # -- basic choices ---------------------------------------------------------------
    def pick(self, options: list[str] | tuple[str, ...]) -> str:
        return self.r.choice(list(options))

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def city(self, known: float = 0.9) -> str:
        name = self.pick(self.cities) if self.chance(known) else self.pick(OTHER_CITIES)
        style = self.r.random()
        if style < 0.45:
            name = name.title()
        elif style < 0.55:
            name = name.upper() if len(name) < 8 else name
        if self.chance(0.15):
            name = self.typo(name)
        return name

    def number(self, low: int, high: int, words: float = 0.35) -> str:
        value = self.r.randint(low, high)
        return spell_number(value) if self.chance(words) else str(value)

    def typo(self, word: str) -> str:
        if len(word) < 4:
            return word
        i = self.r.randrange(1, len(word) - 1)
        kind = self.r.random()
        if kind < 0.3:
            return word[:i] + word[i + 1 :]  # drop
        if kind < 0.6:
            return word[:i] + word[i] + word[i:]  # double
        if kind < 0.85 and word[i].isalpha() and word[i + 1].isalpha():
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # swap
        return word[:i] + self.pick("aeiourstnl") + word[i + 1 :]  # replace

    def typos(self, text: str, rate: float = 0.08) -> str:
        words = text.split()
        return " ".join(
            self.typo(w) if len(w) > 4 and w.isalpha() and self.chance(rate) else w for w in words
        )

    # -- the way people write --------------------------------------------------------
    OPENERS: ClassVar[list[str]] = [
        "", "", "", "", "", "hey ", "hey, ", "hi ", "ok ", "okay so ", "yo ", "um ", "quick q: ",
        "please ", "pls ", "can you ", "could you ", "would you ", "hey there, ",
        "i need you to ", "i'd like you to ", "alright, ", "so ", "oh and ", "right, ",
        "excuse me, ", "hello! ", "good morning, ", "hiya ", "quick one: ", "computer, ",
    ]  # fmt: skip
    CLOSERS: ClassVar[list[str]] = [
        "", "", "", "", "", "", "?", " please", " pls", " thanks", " thank you", " thx", "!",
        " asap", " for me", " real quick", " if you can", ", cheers", " :)", " ty", ".",
        " please and thank you", " when you get a chance",
    ]  # fmt: skip
    CONTEXT: ClassVar[list[str]] = [
        "i'm cooking dinner for the family tonight and ",
        "my hands are full right now so ",
        "before i forget, ",
        "sorry to bother you but ",
        "i'm in a bit of a rush, ",
        "while i'm getting ready for work, ",
        "my friend just asked me and i don't know, ",
        "i'm planning my day and ",
        "we have guests coming over later, ",
        "i'm sitting on the couch and ",
        "this might be a silly question but ",
        "i just got home and ",
        "for the project i'm working on, ",
        "the kids are asleep so ",
        "it's been a long day, ",
        "one more thing: ",
        "so my daughter asked me something and i had no idea, ",
        "ok this is going to sound random but ",
        "i've been meaning to ask all morning, ",
        "my phone is about to die so quickly, ",
        "we're getting ready to head out the door and ",
        "i'm lying in bed and can't be bothered to get up, ",
        "last night i was thinking about it and ",
        "my partner wants to know, ",
        "i'm doing the weekly planning, ",
        "just got off a long call, ",
        "before the guests arrive, ",
        "i keep forgetting this, ",
    ]
    TAILS: ClassVar[list[str]] = [
        ", we're heading out soon",
        " because i'm going out later",
        ", thanks in advance",
        " before i forget",
        ", no rush",
        " if that's ok",
        ", i need it for later",
        " — it's for my mum",
        ", the kids are asking",
        ", sorry for all the questions",
    ]

    def dress(self, core: str, *, polite_verb: bool = True) -> str:
        """Wrap a core request in casual, polite or long-sentence clothing."""
        text = core
        roll = self.r.random()
        if roll < 0.2:
            text = self.pick(self.CONTEXT) + text
        elif roll < 0.55 and polite_verb:
            text = self.pick(self.OPENERS) + text
        if self.chance(0.1):
            text = text + self.pick(self.TAILS)
        elif self.chance(0.4):
            text = text + self.pick(self.CLOSERS)
        if self.chance(0.2):
            text = self.typos(text)
        case = self.r.random()
        if case < 0.35:
            text = text[:1].upper() + text[1:]
        elif case < 0.4:
            text = _SLOT_TYPE.sub(_lower_type, text.upper()) if len(text) < 40 else text
        return " ".join(text.split())


def slot(kind: str, words: str) -> str:
    """``words`` marked inline as a slot of type ``kind`` (``[kind : words]``), as SLURP
    writes them; empty words stay empty (no slot)."""
    words = " ".join(words.split())
    return f"[{kind} : {words}]" if words else ""


def plain(text: str) -> str:
    return " ".join(re.sub(r"\[\s*[^\[\]:]+?\s*:\s*([^\[\]]*?)\s*\]", r"\1", text).split())


def heldout_queries() -> set[str]:
    """The hand-written held-out set's queries: no generated line may say one of them
    (nothing measured on is trained on)."""
    path = DATA.parent.parent / "examples" / "understanding_heldout.jsonl"
    if not path.is_file():
        return set()
    with path.open(encoding="utf-8") as handle:
        return {
            " ".join(json.loads(line)["query"].lower().split()) for line in handle if line.strip()
        }
