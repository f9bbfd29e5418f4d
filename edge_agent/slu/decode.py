"""Decoding the slot tagger: the best BIO sequence whose transitions are all valid.

Per-word tag scores (log-probabilities) go through Viterbi with a transition matrix
that forbids what BIO forbids: ``I-x`` only after ``B-x`` or ``I-x`` (never first). So
a decoded sequence always reads as whole spans, and a span never starts mid-word.

>>> tags = ["O", "B-time", "I-time"]
>>> scores = np.log(np.array([[0.1, 0.2, 0.7], [0.1, 0.1, 0.8]]))
>>> [tags[i] for i in viterbi(scores, allowed_transitions(tags))]
['B-time', 'I-time']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["allowed_transitions", "log_softmax", "viterbi", "with_learned"]

NEG = -1e9


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Log-probabilities along the last axis."""
    x = np.asarray(logits, dtype=np.float64)
    x = x - x.max(axis=-1, keepdims=True)
    out: np.ndarray = x - np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return out


def allowed_transitions(tags: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(start [tags], transition [from, to]) scores: 0 where BIO allows it, else -1e9."""
    n = len(tags)
    start = np.zeros(n)
    trans = np.zeros((n, n))
    for j, tag in enumerate(tags):
        if not tag.startswith("I-"):
            continue
        start[j] = NEG
        kind = tag[2:]
        for i, prev in enumerate(tags):
            if prev not in (f"B-{kind}", f"I-{kind}"):
                trans[i, j] = NEG
    return start, trans


def with_learned(
    allowed: tuple[np.ndarray, np.ndarray], learned: tuple[np.ndarray, np.ndarray] | None
) -> tuple[np.ndarray, np.ndarray]:
    """BIO's hard constraints plus the tag-to-tag scores a CRF learned (if any)."""
    if learned is None:
        return allowed
    return allowed[0] + learned[0], allowed[1] + learned[1]


def viterbi(scores: np.ndarray, transitions: tuple[np.ndarray, np.ndarray]) -> list[int]:
    """The best tag index per word for ``scores`` [words, tags] under ``transitions``."""
    start, trans = transitions
    n_words, n_tags = scores.shape
    if n_words == 0:
        return []
    best = start + scores[0]
    back = np.zeros((n_words, n_tags), dtype=np.int64)
    cand = np.empty((n_tags, n_tags))
    columns = np.arange(n_tags)
    for t in range(1, n_words):
        np.add(best[:, None], trans, out=cand)
        back[t] = cand.argmax(axis=0)
        best = cand[back[t], columns] + scores[t]
    path = [int(best.argmax())]
    for t in range(n_words - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    return path[::-1]
