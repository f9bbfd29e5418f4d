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

import itertools
from collections.abc import Sequence

import numpy as np

__all__ = ["allowed_transitions", "contiguous_owners", "log_softmax", "viterbi", "with_learned"]

NEG = -1e9
MAX_PARTS = 4  # contiguous requests are searched in every order up to this many


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
    """The best tag index per word for ``scores`` [words, tags] under ``transitions``.

    Each word's own best tag is the best sequence when its start and transitions score
    as much as any could (with BIO's constraints alone and no learned scores: whenever it
    is a valid BIO sequence, nearly always); the search runs only when it is not.
    """
    start, trans = transitions
    n_words = scores.shape[0]
    if n_words == 0:
        return []
    greedy: list[int] = scores.argmax(axis=1).tolist()
    gain = start[greedy[0]] + sum(trans[a, b] for a, b in itertools.pairwise(greedy))
    if gain >= start.max() + (n_words - 1) * trans.max():
        return greedy
    return _search(np.asarray(scores, dtype=np.float64), start, trans)


def _search(scores: np.ndarray, start: np.ndarray, trans: np.ndarray) -> list[int]:
    """Viterbi's dynamic programme over every tag sequence."""
    n_words, n_tags = scores.shape
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


def contiguous_owners(scores: np.ndarray, max_parts: int = MAX_PARTS) -> list[int]:
    """Each word's request (a column of ``scores`` [words, requests], log-probabilities)
    such that every request owns one unbroken run of words and the sum is the best.

    A compound request says one thing after another ("order two lattes and then water
    the ficus"): a word the head alone would give to the other request ("ficus") stays
    with its neighbours. Searched over every order of the requests (up to
    ``max_parts``; past it, or with fewer words than requests, each word's best).
    """
    n, k = scores.shape
    if k == 1:
        return [0] * n
    if n < k or k > max_parts:
        return [int(o) for o in scores.argmax(axis=1)]
    # cum[s, c]: the first s words' scores for request c. A cut at s between request a
    # before and b after adds cum[s, a] - cum[s, b]; the cuts rise strictly.
    cum = np.vstack([np.zeros(k), np.cumsum(scores, axis=0)])
    at = np.arange(n + 1)
    best: tuple[float, list[int], tuple[int, ...]] = (-np.inf, [], ())
    for order in itertools.permutations(range(k)):
        value = np.full(n + 1, -np.inf)
        value[1:n] = cum[1:n, order[0]] - cum[1:n, order[1]]
        backs = []
        for j in range(2, k):
            running = np.maximum.accumulate(value)
            backs.append(np.maximum.accumulate(np.where(value == running, at, 0)))
            value = np.full(n + 1, -np.inf)
            value[j:n] = running[j - 1 : n - 1] + cum[j:n, order[j - 1]] - cum[j:n, order[j]]
        cut = int(value.argmax())
        total = float(value[cut] + cum[n, order[-1]])
        if total > best[0]:
            cuts = [cut]
            for back in reversed(backs):
                cuts.append(int(back[cuts[-1] - 1]))
            best = (total, cuts[::-1], order)
    _, cuts, order = best
    bounds = [0, *cuts, n]
    return [order[j] for j in range(k) for _ in range(bounds[j], bounds[j + 1])]
