"""Annotated utterances for the joint intent + slot model: reading, checking, composing.

An :class:`Utterance` is a list of words, one BIO slot tag per word, and the set of its
intents. Four layouts are read (``read_utterances(path, fmt, purpose)``):

* ``snips``: one ``word TAG`` line per word, then the intent line (several intents
  joined by ``#``), then a blank line (SNIPS, MixSNIPS, ATIS in the multi-intent
  literature's layout);
* ``slurp``: SLURP JSON lines; slots from ``sentence_annotation`` (``[type : words]``);
* ``jsonl``: ``{"text": ..., "intent": ...}`` lines whose text may mark slots inline as
  SLURP does (``"wake me at [time : five thirty am]"``); ``oos`` lines are out of scope;
  a line with no brackets has no slots, and one with ``"slots": null`` has slots nobody
  annotated (intent-only: it trains the intents, never the tagger);
* ``clinc``: CLINC150's JSON (intents only, no slots).

:func:`compose` builds multi-intent training utterances from single-intent ones, joined
by "and", "and then", "and also" and commas, the way MixSNIPS/MixATIS were built, so
users never annotate compound examples.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from understanding.intents.data import OOS, load_jsonl
from understanding.intents.errors import IntentDataError

__all__ = [
    "CONJUNCTIONS",
    "FORMATS",
    "LIST_SEPARATOR",
    "LOOSE_JOINERS",
    "LOOSE_SHARE",
    "Joints",
    "Utterance",
    "compose",
    "intent_only",
    "parse_inline",
    "read_utterances",
    "spans",
    "split_words",
]

FORMATS = ("jsonl", "snips", "slurp", "clinc")
# How MixSNIPS/MixATIS join requests (Qin et al. 2020): "A and B", "A and then B",
# "A and also B"; three requests as a list, "A , B and then C".
CONJUNCTIONS: tuple[tuple[str, ...], ...] = (("and",), ("and", "then"), ("and", "also"))
LIST_SEPARATOR: tuple[str, ...] = (",",)
# Looser joints people also use ("set a timer, then dim the lights"), now and then.
LOOSE_JOINERS: tuple[tuple[str, ...], ...] = ((",",), (",", "then"), ("then",))
LOOSE_SHARE = 0.1


@dataclass(frozen=True)
class Joints:
    """How :func:`compose` joins requests: the trainer's defaults are MixSNIPS's joints;
    a build that must not move when they change passes its own (the shipped router).

    ``last`` joins the last two requests, or ``loose`` for ``loose_share`` of the
    utterances; ``earlier`` joins the requests before them ("A , B and C"), or, when
    None, each such joint is drawn from ``last`` too. ``two_share`` of the utterances
    are two requests, the rest three.
    """

    last: tuple[tuple[str, ...], ...] = CONJUNCTIONS
    loose: tuple[tuple[str, ...], ...] = LOOSE_JOINERS
    loose_share: float = LOOSE_SHARE
    earlier: tuple[tuple[str, ...], ...] | None = (LIST_SEPARATOR,)
    two_share: float = 0.7


_WORD = re.compile(r"\d+(?:[.,:]\d+)*%?|\w+(?:['’]\w+)*|[^\w\s]")
_INLINE = re.compile(r"\[\s*([^\[\]:]+?)\s*:\s*([^\[\]]*?)\s*\]")


@dataclass(frozen=True)
class Utterance:
    """Words, one BIO tag per word, the intents, and (for composed ones) whose word is whose.

    ``word_intents`` gives, per word, the index into ``intents`` of the request the word
    belongs to (-1: a joining word such as "and"); empty means every word belongs to the
    single intent. ``tagged`` says, per word, whether its tag is known; empty means every
    word's is. An intent-only line (its slots unknown, not absent) knows none: its tags
    are ``O`` placeholders the trainer never learns from.
    """

    words: tuple[str, ...]
    tags: tuple[str, ...]
    intents: tuple[str, ...]
    where: str = ""
    word_intents: tuple[int, ...] = field(default=())
    tagged: tuple[bool, ...] = field(default=())

    @property
    def text(self) -> str:
        """The words joined by spaces."""
        return " ".join(self.words)

    @property
    def has_slots(self) -> bool:
        """Whether any word is tagged."""
        return any(t != "O" for t in self.tags)

    @property
    def known_tags(self) -> tuple[bool, ...]:
        """Per word, whether its tag is known (``tagged``, or every word's)."""
        return self.tagged or (True,) * len(self.words)

    @property
    def fully_tagged(self) -> bool:
        """Whether every word's tag is known (the slot metrics and the CRF read only these)."""
        return all(self.known_tags)


def intent_only(words: Sequence[str], intents: Sequence[str], where: str = "") -> Utterance:
    """An utterance whose slots nobody annotated: it trains the intent heads alone."""
    return Utterance(
        tuple(words), ("O",) * len(words), tuple(intents), where, (), (False,) * len(words)
    )


def split_words(text: str) -> list[str]:
    """Words of a query as the model reads them: "what's 15% of 80?" -> what's, 15%, of, 80, ?."""
    return _WORD.findall(text)


def spans(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """(type, start, end) word spans of BIO tags, end exclusive, as conlleval reads them.

    An ``I-x`` that does not continue an ``x`` span starts a new one (conlleval's rule).
    """
    out: list[tuple[str, int, int]] = []
    kind, start = "", -1
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, name = tag.partition("-")
        continues = prefix == "I" and name == kind and start >= 0
        if start >= 0 and not continues:
            out.append((kind, start, i))
            kind, start = "", -1
        if prefix in ("B", "I") and not continues:
            kind, start = name, i
    return out


def _bad(where: str, message: str) -> IntentDataError:
    return IntentDataError(f"{where}: {message}")


def parse_inline(text: str, where: str = "") -> tuple[list[str], list[str]]:
    """Words and BIO tags of a text with inline slots ``[type : words]``.

    Raises:
        IntentDataError: An unbalanced bracket or a slot without words.
    """
    words: list[str] = []
    tags: list[str] = []
    pos = 0
    for match in _INLINE.finditer(text):
        plain = split_words(text[pos : match.start()])
        words += plain
        tags += ["O"] * len(plain)
        kind = "_".join(match.group(1).split())
        inside = split_words(match.group(2))
        if not inside:
            raise _bad(where, f"slot [{match.group(1)} : ] has no words")
        words += inside
        tags += [f"B-{kind}"] + [f"I-{kind}"] * (len(inside) - 1)
        pos = match.end()
    rest = text[pos:]
    if "[" in rest or "]" in rest or any("[" in w or "]" in w for w in words):
        raise _bad(where, "unbalanced [ ] (write slots as [type : words])")
    plain = split_words(rest)
    words += plain
    tags += ["O"] * len(plain)
    return words, tags


def _read_lines(path: Path) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise IntentDataError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IntentDataError(f"{path}: cannot read: {exc}") from None


def read_snips(path: Path) -> list[Utterance]:
    """The ``word TAG`` / intent line / blank line layout."""
    lines = _read_lines(path)
    out: list[Utterance] = []
    words: list[str] = []
    tags: list[str] = []
    first = 0
    for number, line in enumerate([*lines, ""], start=1):
        parts = line.split()
        if not parts:
            if words:
                raise _bad(f"{path}:{number}", "utterance without an intent line")
            continue
        if len(parts) == 1:
            if not words:
                raise _bad(f"{path}:{number}", "intent line without words before it")
            intents = tuple(i for i in parts[0].split("#") if i)
            out.append(_checked(words, tags, intents, f"{path}:{first}"))
            words, tags = [], []
            continue
        if len(parts) != 2:
            raise _bad(f"{path}:{number}", "expected 'word TAG'")
        if not words:
            first = number
        words.append(parts[0])
        tags.append(parts[1])
    if not out:
        raise IntentDataError(f"{path}: no utterances")
    return out


def _checked(
    words: Sequence[str], tags: Sequence[str], intents: Sequence[str], where: str
) -> Utterance:
    if not words:
        raise _bad(where, "empty text")
    if not intents:
        raise _bad(where, "empty intent")
    for tag in tags:
        prefix, _, name = tag.partition("-")
        if tag != "O" and (prefix not in ("B", "I") or not name):
            raise _bad(where, f"bad slot tag {tag!r} (use O, B-type, I-type)")
    return Utterance(tuple(words), tuple(tags), tuple(intents), where)


def read_jsonl(path: Path) -> list[Utterance]:
    """``{"text", "intent"}`` lines, slots inline in the text (``[type : words]``).

    The lines are read and checked by the intents-only reader
    (:func:`understanding.intents.data.load_jsonl`); this adds the inline slots, the
    ``#``-joined intents and the intent-only lines: ``"slots": null`` says nobody
    annotated the line's slots (CLINC150's lines, say), so the trainer learns its intent
    and masks its slot loss; without the key, a line with no brackets has no slots.

    Raises:
        IntentDataError: A line as ``load_jsonl`` refuses it, a ``slots`` value other than
            null, or inline slots on a line that says its slots are unknown.
    """
    unknown = _unknown_slot_lines(path)
    out: list[Utterance] = []
    for example in load_jsonl(path):
        words, tags = parse_inline(example.text, example.where)
        intents = tuple(i.strip() for i in example.intent.split("#") if i.strip())
        if example.where in unknown:
            if any(t != "O" for t in tags):
                raise _bad(example.where, 'inline slots on a line with "slots": null')
            checked = _checked(words, tags, intents, example.where)
            out.append(intent_only(checked.words, checked.intents, example.where))
            continue
        out.append(_checked(words, tags, intents, example.where))
    return out


def _unknown_slot_lines(path: Path) -> set[str]:
    """The ``where`` (``path:line``) of the lines that say ``"slots": null``."""
    out: set[str] = set()
    for number, line in enumerate(_read_lines(path), start=1):
        if '"slots"' not in line:
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue  # load_jsonl names the line
        if not isinstance(obj, dict) or "slots" not in obj:
            continue
        if obj["slots"] is not None:
            raise _bad(
                where,
                '"slots" may only be null (slots unknown: the line trains its intent '
                "alone); mark slots inline as [type : words]",
            )
        out.add(where)
    return out


def read_slurp(path: Path) -> list[Utterance]:
    """SLURP lines: ``sentence_annotation`` carries the slots, ``intent`` the intent."""
    out: list[Utterance] = []
    for number, line in enumerate(_read_lines(path), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _bad(where, f"not JSON ({exc.msg})") from None
        text = obj.get("sentence_annotation") or obj.get("sentence")
        intent = obj.get("intent")
        if not isinstance(text, str) or not isinstance(intent, str):
            raise _bad(where, "expected 'sentence_annotation' and 'intent' strings")
        words, tags = parse_inline(text, where)
        out.append(_checked(words, tags, (intent,), where))
    if not out:
        raise IntentDataError(f"{path}: no examples")
    return out


def read_clinc(path: Path, purpose: str) -> list[Utterance]:
    """CLINC150 splits as utterances without slots (see ``intents.data.load_examples``)."""
    from understanding.intents.data import load_examples

    out = []
    for ex in load_examples(path, "clinc", purpose=purpose):
        words = split_words(ex.text) or [ex.text]
        out.append(Utterance(tuple(words), ("O",) * len(words), (ex.intent,), ex.where))
    return out


def infer_format(path: Path, fmt: str | None) -> str:
    """The given format, else guessed: ``.json`` is clinc, ``.txt`` snips, else jsonl."""
    if fmt in FORMATS:
        return str(fmt)
    if fmt not in (None, "", "auto"):
        raise IntentDataError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
    suffix = Path(path).suffix.lower()
    return {".json": "clinc", ".txt": "snips"}.get(suffix, "jsonl")


def read_utterances(path: Path, fmt: str | None, *, purpose: str = "train") -> list[Utterance]:
    """Utterances from any of :data:`FORMATS` (``purpose`` picks CLINC's splits)."""
    fmt = infer_format(path, fmt)
    if fmt == "snips":
        return read_snips(path)
    if fmt == "slurp":
        return read_slurp(path)
    if fmt == "clinc":
        return read_clinc(path, purpose)
    return read_jsonl(path)


def compose(
    singles: Sequence[Utterance],
    n: int,
    rng: random.Random,
    *,
    max_parts: int = 3,
    oos_label: str = OOS,
    joints: Joints | None = None,
) -> list[Utterance]:
    """``n`` multi-intent utterances, each two (70%) or three single-intent ones of
    different intents, joined as MixSNIPS/MixATIS were built.

    By default (:class:`Joints`) the last two requests are joined by "and", "and then"
    or "and also" (or, for one in :data:`LOOSE_SHARE`, a comma, ", then" or "then", as
    people also say it); a third request goes in front, after a comma ("A , B and then
    C"). The joining words are tagged ``O`` and belong to no request (``word_intents``
    -1).
    """
    how = joints or Joints()
    pool = [u for u in singles if len(u.intents) == 1 and u.intents[0] != oos_label]
    by_intent: dict[str, list[Utterance]] = {}
    for u in pool:
        by_intent.setdefault(u.intents[0], []).append(u)
    names = sorted(by_intent)
    if len(names) < 2 or n <= 0:
        return []
    out: list[Utterance] = []
    for _ in range(n):
        k = 2 if max_parts < 3 or len(names) < 3 or rng.random() < how.two_share else 3
        chosen = rng.sample(names, k)
        parts = [rng.choice(by_intent[name]) for name in chosen]
        joiners = how.last if how.earlier is None else how.earlier
        earlier = [joiners[0] if len(joiners) == 1 else rng.choice(joiners) for _ in range(k - 2)]
        loose = rng.random() < how.loose_share and bool(how.loose)
        out.append(join(parts, [*earlier, rng.choice(how.loose if loose else how.last)]))
    return out


def join(parts: Sequence[Utterance], joiners: Sequence[Iterable[str]]) -> Utterance:
    """One utterance of ``parts`` with ``joiners[i]`` between part i and i + 1."""
    words: list[str] = []
    tags: list[str] = []
    owner: list[int] = []
    intents: list[str] = []
    known: list[bool] = []
    for i, part in enumerate(parts):
        if i:
            joint = list(joiners[i - 1])
            words += joint
            tags += ["O"] * len(joint)
            owner += [-1] * len(joint)
            known += [True] * len(joint)
        intents.append(part.intents[0])
        words += part.words
        tags += part.tags
        owner += [i] * len(part.words)
        known += part.known_tags
    # A part whose slots are unknown keeps them unknown in the compound (its words train
    # the intents and the word-to-request head, never the tagger).
    tagged = () if all(known) else tuple(known)
    return Utterance(tuple(words), tuple(tags), tuple(intents), "composed", tuple(owner), tagged)
