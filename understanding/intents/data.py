"""Labelled examples: loading, checking and splitting.

Two layouts are read:

* JSON lines, one ``{"text": str, "intent": str}`` object a line (blank lines skipped).
  Out-of-scope examples (queries the device must send to the cloud) carry the intent
  ``oos`` (or the label given as ``oos_label``).
* CLINC150's JSON layout: an object of splits (``train``, ``val``, ``oos_train``, ...),
  each a list of ``[text, intent]`` pairs.

Every error names the file and the line (JSON lines) or the split and item (CLINC).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from understanding.intents.errors import IntentDataError

__all__ = [
    "OOS",
    "Example",
    "check_training_examples",
    "examples_sha256",
    "infer_format",
    "load_clinc",
    "load_examples",
    "load_jsonl",
    "make_example",
    "stratified_split",
]

OOS = "oos"


@dataclass(frozen=True)
class Example:
    """One labelled query; ``where`` says where it came from (for error messages)."""

    text: str
    intent: str
    where: str = ""


def _bad(where: str, message: str) -> IntentDataError:
    return IntentDataError(f"{where}: {message}" if where else message)


def make_example(text: object, intent: object, where: str) -> Example:
    """A checked :class:`Example` (stripped), or an error naming ``where``."""
    if not isinstance(text, str):
        raise _bad(where, f"text must be a string, not {type(text).__name__}")
    if not isinstance(intent, str):
        raise _bad(where, f"intent must be a string, not {type(intent).__name__}")
    if not text.strip():
        raise _bad(where, "empty text")
    if not intent.strip():
        raise _bad(where, "empty intent")
    return Example(text=text.strip(), intent=intent.strip(), where=where)


def load_jsonl(path: Path) -> list[Example]:
    """Read ``{"text", "intent"}`` objects, one a line.

    Raises:
        IntentDataError: The file is missing, empty, or a line is not such an object.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise IntentDataError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IntentDataError(f"{path}: cannot read: {exc}") from None
    examples = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _bad(where, f"not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise _bad(where, 'expected an object {"text": ..., "intent": ...}')
        for key in ("text", "intent"):
            if key not in obj:
                raise _bad(where, f"missing {key!r}")
        examples.append(make_example(obj["text"], obj["intent"], where))
    if not examples:
        raise IntentDataError(f"{path}: no examples")
    return examples


def load_clinc(path: Path, splits: Sequence[str]) -> dict[str, list[Example]]:
    """Read the named splits of a CLINC150-layout JSON file.

    Splits that the file lacks are left out of the result; the caller decides which are
    required.

    Raises:
        IntentDataError: The file is not a JSON object of ``[text, intent]`` lists.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IntentDataError(f"{path}: no such file") from None
    except json.JSONDecodeError as exc:
        raise IntentDataError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IntentDataError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise IntentDataError(f"{path}: expected an object of splits (train, val, ...)")
    out: dict[str, list[Example]] = {}
    for split in splits:
        if split not in data:
            continue
        items = data[split]
        if not isinstance(items, list):
            raise IntentDataError(f"{path}: split {split!r} is not a list")
        rows = []
        for i, item in enumerate(items):
            where = f"{path}: {split}[{i}]"
            if not (isinstance(item, list) and len(item) == 2):
                raise _bad(where, "expected [text, intent]")
            rows.append(make_example(item[0], item[1], where))
        out[split] = rows
    return out


def infer_format(path: Path, fmt: str | None) -> str:
    """``jsonl`` or ``clinc``: the given format, else guessed from the file's suffix."""
    if fmt in ("jsonl", "clinc"):
        return fmt
    if fmt not in (None, "", "auto"):
        raise IntentDataError(f"unknown format {fmt!r} (use jsonl or clinc)")
    return "clinc" if Path(path).suffix.lower() == ".json" else "jsonl"


def load_examples(path: Path, fmt: str | None, *, purpose: str) -> list[Example]:
    """Examples for ``purpose`` ``"train"``, ``"val"`` or ``"eval"`` from either layout.

    For CLINC files: train = ``train`` + ``oos_train``; val = ``val`` + ``oos_val``;
    eval = ``test`` + ``oos_test`` when the file has them, else val + ``oos_val``.
    """
    fmt = infer_format(path, fmt)
    if fmt == "jsonl":
        return load_jsonl(path)
    names = {
        "train": ("train", "oos_train"),
        "val": ("val", "oos_val"),
        "eval": ("test", "oos_test"),
    }[purpose]
    splits = load_clinc(path, [*names, "val", "oos_val"])
    if purpose == "eval" and "test" not in splits:
        names = ("val", "oos_val")
    if names[0] not in splits:
        raise IntentDataError(f"{path}: no {names[0]!r} split")
    return [ex for name in names for ex in splits.get(name, [])]


def check_training_examples(
    examples: Sequence[Example], *, oos_label: str = OOS, role: str = "training"
) -> None:
    """Refuse example sets that cannot train a router.

    Every in-scope intent needs at least two examples (one cannot define a class's
    spread, and a held-out split would leave it empty) and there must be two intents.

    Raises:
        IntentDataError: Naming the intent and the line of its only example.
    """
    if not examples:
        raise IntentDataError(f"no {role} examples")
    by_intent: dict[str, list[Example]] = defaultdict(list)
    for ex in examples:
        by_intent[ex.intent].append(ex)
    for intent, rows in sorted(by_intent.items()):
        if intent != oos_label and len(rows) < 2:
            raise _bad(
                rows[0].where,
                f"intent {intent!r} has a single {role} example; give it at least 2",
            )
    in_scope = [i for i in by_intent if i != oos_label]
    if len(in_scope) < 2:
        raise IntentDataError(
            f"{role} data has {len(in_scope)} in-scope intent(s); a router needs at least 2"
        )


def stratified_split(
    examples: Sequence[Example], val_fraction: float = 0.2, seed: int = 0
) -> tuple[list[Example], list[Example]]:
    """Hold out ``val_fraction`` of each intent (at least one, leaving at least one).

    Deterministic for a given ``seed``. Used when no validation file is given.
    """
    if not 0.0 < val_fraction < 1.0:
        raise IntentDataError(f"val_fraction must be in (0, 1), not {val_fraction}")
    by_intent: dict[str, list[Example]] = defaultdict(list)
    for ex in examples:
        by_intent[ex.intent].append(ex)
    rng = random.Random(seed)
    train: list[Example] = []
    val: list[Example] = []
    for intent in sorted(by_intent):
        rows = list(by_intent[intent])
        if len(rows) < 2:
            raise _bad(
                rows[0].where,
                f"intent {intent!r} has a single example: cannot hold one out for "
                "validation; add examples or give a validation file",
            )
        rng.shuffle(rows)
        k = min(len(rows) - 1, max(1, round(len(rows) * val_fraction)))
        val.extend(rows[:k])
        train.extend(rows[k:])
    return train, val


def examples_sha256(examples: Iterable[Example]) -> str:
    """A digest of the examples' text and labels (order matters), for the manifest."""
    digest = hashlib.sha256()
    for ex in examples:
        digest.update(ex.text.encode("utf-8"))
        digest.update(b"\t")
        digest.update(ex.intent.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()
