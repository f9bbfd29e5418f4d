"""Training rows and batches of the joint model: each utterance's word-piece ids with its
labels (intents, each word's tag and request), batched by similar length and padded."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from understanding.slu.data import Utterance
from understanding.slu.pieces import WordPiecer

__all__ = ["IGNORE", "Encoded", "batches", "tensors"]

# The label of a position with no target (torch's cross-entropy ``ignore_index``).
IGNORE = -100


class Encoded:
    """Token ids and labels of one utterance, ready to batch."""

    __slots__ = ("first", "ids", "intents", "slot", "tagged", "word_intent", "words")

    def __init__(
        self,
        u: Utterance,
        piecer: WordPiecer,
        intent_index: dict[str, int],
        tag_index: dict[str, int],
    ) -> None:
        pieces = piecer(u.words)
        self.ids = pieces.ids
        self.first = pieces.first
        n = len(self.ids)
        self.slot = np.full(n, IGNORE, dtype=np.int64)
        self.word_intent = np.full(n, IGNORE, dtype=np.int64)
        self.intents = np.zeros(len(intent_index), dtype=np.float32)
        for name in u.intents:
            if name in intent_index:
                self.intents[intent_index[name]] = 1.0
        in_scope = [intent_index.get(name, -1) for name in u.intents]
        known = u.known_tags
        # Whether the CRF may read the utterance: its path needs every word's tag.
        self.tagged = all(known)
        for w, position in enumerate(pieces.first):
            if position < 0:
                continue
            if known[w]:  # an unknown tag stays IGNORE: no slot loss, no tagger gradient
                self.slot[position] = tag_index.get(u.tags[w], 0)
            owner = u.word_intents[w] if u.word_intents else 0
            if owner >= 0 and in_scope[owner] >= 0:
                self.word_intent[position] = in_scope[owner]
        self.words = pieces.first[pieces.first >= 0]  # the pieces the tagger reads


def batches(rows: list[Encoded], batch_size: int, rng: random.Random) -> list[list[Encoded]]:
    """The rows in shuffled batches of similar length (sorted within chunks of 50
    batches), so that padding stays short."""
    order = list(range(len(rows)))
    rng.shuffle(order)
    chunk = batch_size * 50
    out = []
    for c in range(0, len(order), chunk):
        part = sorted(order[c : c + chunk], key=lambda i: len(rows[i].ids))
        out += [
            [rows[i] for i in part[b : b + batch_size]] for b in range(0, len(part), batch_size)
        ]
    rng.shuffle(out)
    return out


def tensors(batch: Sequence[Encoded]) -> tuple[Any, ...]:
    """The batch padded to its longest row, as torch tensors: ids, attention mask, slot
    and word-intent labels, intents, the pieces the tagger reads and which are words."""
    import torch

    t = max(len(r.ids) for r in batch)
    ids = np.zeros((len(batch), t), dtype=np.int64)
    mask = np.zeros((len(batch), t), dtype=np.int64)
    slot = np.full((len(batch), t), IGNORE, dtype=np.int64)
    word_intent = np.full((len(batch), t), IGNORE, dtype=np.int64)
    for i, r in enumerate(batch):
        n = len(r.ids)
        ids[i, :n] = r.ids
        mask[i, :n] = 1
        slot[i, :n] = r.slot
        word_intent[i, :n] = r.word_intent
    intents = np.stack([r.intents for r in batch])
    n_words = max(1, max(len(r.words) for r in batch))
    words = np.zeros((len(batch), n_words), dtype=np.int64)
    word_on = np.zeros((len(batch), n_words), dtype=bool)
    for i, r in enumerate(batch):
        words[i, : len(r.words)] = r.words
        word_on[i, : len(r.words)] = True
    return (
        torch.from_numpy(ids),
        torch.from_numpy(mask),
        torch.from_numpy(slot),
        torch.from_numpy(word_intent),
        torch.from_numpy(intents),
        torch.from_numpy(words),
        torch.from_numpy(word_on),
    )
