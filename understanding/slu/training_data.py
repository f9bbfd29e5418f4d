"""The data of a training run of the joint model: validation split off when none is
given, labels read and checked, utterances encoded, and what each epoch draws (the
multi-intent and out-of-scope lines, a share of the single-intent ones, and compounds
composed from them)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from understanding.intents.errors import IntentDataError
from understanding.slu.batches import Encoded
from understanding.slu.data import Joints, Utterance, compose
from understanding.slu.model import TOKENIZER_FILE
from understanding.slu.pieces import WordPiecer

__all__ = ["TrainingData", "encoder_tokenizer", "split_validation"]


def encoder_tokenizer() -> Path:
    """The device encoder's tokenizer (the model folder gets a copy)."""
    return Path(__file__).resolve().parent.parent / "models" / "encoder" / TOKENIZER_FILE


def _labels(train: Sequence[Utterance], oos_label: str) -> tuple[list[str], list[str]]:
    intents = sorted({i for u in train for i in u.intents if i != oos_label})
    kinds = sorted({t[2:] for u in train for t in u.tags if t != "O"})
    tags = ["O"] + [f"{p}-{k}" for k in kinds for p in ("B", "I")]
    return intents, tags


def _check(
    train: Sequence[Utterance], val: Sequence[Utterance], intents: list[str], oos_label: str
) -> None:
    if len(intents) < 2:
        raise IntentDataError(f"training data has {len(intents)} intent(s); need at least 2")
    counts: dict[str, int] = {}
    for u in train:
        for i in u.intents:
            counts[i] = counts.get(i, 0) + 1
    for u in train:
        for i in u.intents:
            if i != oos_label and counts[i] < 2:
                raise IntentDataError(f"{u.where}: intent {i!r} has a single training example")
    known = set(intents) | {oos_label}
    for u in val:
        for i in u.intents:
            if i not in known:
                raise IntentDataError(
                    f"{u.where}: validation intent {i!r} has no training examples"
                )


def split_validation(
    utterances: Sequence[Utterance], fraction: float, seed: int
) -> tuple[list[Utterance], list[Utterance]]:
    """Hold out ``fraction`` of each intent (deterministic), keeping one to train on."""
    by: dict[str, list[Utterance]] = {}
    for u in utterances:
        by.setdefault("#".join(u.intents), []).append(u)
    rng = random.Random(seed)
    train: list[Utterance] = []
    val: list[Utterance] = []
    for key in sorted(by):
        rows = list(by[key])
        rng.shuffle(rows)
        k = min(len(rows) - 1, round(len(rows) * fraction))
        val += rows[:k]
        train += rows[k:]
    return train, val


@dataclass
class TrainingData:
    """The checked training and validation utterances, their labels and encoded rows,
    and what each epoch draws from them."""

    train: list[Utterance]
    val: list[Utterance]
    oos_label: str
    held_out: bool  # the validation utterances were held out of ``train``
    intents: list[str]
    tags: list[str]
    encode: Callable[[Sequence[Utterance]], list[Encoded]]
    always: list[Encoded]  # the multi-intent and out-of-scope lines: in every epoch
    singles: list[Encoded]  # the in-scope single-intent lines: ``n_alone`` drawn an epoch
    n_alone: int
    to_compose: list[Utterance]  # the single-intent lines compounds are composed from
    n_compose: int
    val_rows: list[Encoded]

    @classmethod
    def prepare(
        cls,
        train: Sequence[Utterance],
        val: Sequence[Utterance] | None,
        *,
        oos_label: str,
        val_fraction: float,
        seed: int,
        alone_ratio: float,
        compose_ratio: float,
        say: Callable[[str], None],
    ) -> TrainingData:
        """Split off validation data if none is given, check both, and encode them."""
        if val is None:
            train_list, val_list = split_validation(train, val_fraction, seed)
            say(f"no validation data: held out {len(val_list)} of {len(train)} utterances")
        else:
            train_list, val_list = list(train), list(val)
        intents, tags = _labels(train_list, oos_label)
        _check(train_list, val_list, intents, oos_label)
        intent_index = {n: i for i, n in enumerate(intents)}
        tag_index = {t: i for i, t in enumerate(tags)}
        piecer = WordPiecer(encoder_tokenizer())

        def encode(rows: Sequence[Utterance]) -> list[Encoded]:
            return [Encoded(u, piecer, intent_index, tag_index) for u in rows]

        encoded = encode(train_list)
        pairs = list(zip(encoded, train_list, strict=True))
        singles = [r for r, u in pairs if _in_scope_single(u, oos_label)]
        single = [u for u in train_list if len(u.intents) == 1]
        return cls(
            train=train_list,
            oos_label=oos_label,
            val=val_list,
            held_out=val is None,
            intents=intents,
            tags=tags,
            encode=encode,
            always=[r for r, u in pairs if not _in_scope_single(u, oos_label)],
            singles=singles,
            n_alone=min(len(singles), max(1, round(len(singles) * alone_ratio))),
            to_compose=single,
            n_compose=int(len(single) * compose_ratio),
            val_rows=encode(val_list),
        )

    @property
    def alone_per_epoch(self) -> int:
        return len(self.always) + self.n_alone

    def epoch_rows(self, rng: random.Random, joints: Joints | None) -> list[Encoded]:
        """One epoch's rows: the multi-intent and out-of-scope lines, ``alone_ratio`` of
        the in-scope single-intent ones (a new draw each epoch) and ``compose_ratio`` as
        many composed from them."""
        rows = self.always + rng.sample(self.singles, self.n_alone)
        composed = compose(
            self.to_compose, self.n_compose, rng, oos_label=self.oos_label, joints=joints
        )
        return rows + self.encode(composed)


def _in_scope_single(u: Utterance, oos_label: str) -> bool:
    return len(u.intents) == 1 and u.intents[0] != oos_label
