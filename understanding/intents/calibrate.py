"""Cross-validated thresholds: what a threshold rule does on validation lines it never saw.

A threshold chosen on the same lines it is measured on flatters itself (CLINC150: 0.83-0.85
out-of-scope recall on validation, 0.70 on test). Here the validation lines are cut into
``k`` stratified folds (every intent and the out-of-scope lines spread over all folds); each
fold's threshold is chosen on the other folds' in-scope scores (:func:`select_threshold`)
and the fold is measured with it. The mean of the folds says what the rule does on new
lines, their standard deviation how much that moves; the trainer ranks methods by
``mean - std`` of out-of-scope recall, so a method that is good on one fold only loses.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from understanding.intents.evaluate import routing_metrics
from understanding.intents.ood import select_threshold

__all__ = ["CrossValidation", "cross_validate", "stratified_folds"]


def stratified_folds(labels: Sequence[str], k: int, seed: int = 0) -> np.ndarray:
    """Fold number (0..k-1) per line; each label's lines are dealt round-robin, shuffled."""
    if k < 2:
        raise ValueError(f"need at least 2 folds, not {k}")
    by_label: dict[str, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        by_label[label].append(i)
    rng = random.Random(seed)
    folds = np.zeros(len(labels), dtype=np.int64)
    start = 0
    for label in sorted(by_label):
        rows = by_label[label]
        rng.shuffle(rows)
        for j, i in enumerate(rows):
            folds[i] = (start + j) % k
        start = (start + len(rows)) % k  # small classes do not all land in fold 0
    return folds


@dataclass(frozen=True)
class CrossValidation:
    """Per-fold figures of one threshold rule, and their mean and standard deviation."""

    folds: list[dict[str, float | None]]

    def _values(self, key: str) -> list[float]:
        return [float(v) for f in self.folds if (v := f.get(key)) is not None]

    def mean(self, key: str) -> float | None:
        """Mean over the folds where ``key`` is defined."""
        values = self._values(key)
        return float(np.mean(values)) if values else None

    def std(self, key: str) -> float | None:
        """Standard deviation over the folds (0 for one fold)."""
        values = self._values(key)
        return float(np.std(values)) if values else None

    def lower(self, key: str) -> float:
        """``mean - std``: what the rule gives on a fold that goes badly."""
        return (self.mean(key) or 0.0) - (self.std(key) or 0.0)

    def summary(self) -> dict[str, float | None]:
        """``{key}_mean`` and ``{key}_std`` for every figure (threshold included)."""
        keys = list(self.folds[0]) if self.folds else []
        out: dict[str, float | None] = {}
        for key in keys:
            mean, std = self.mean(key), self.std(key)
            out[f"{key}_mean"] = None if mean is None else round(mean, 4)
            out[f"{key}_std"] = None if std is None else round(std, 4)
        return out


def cross_validate(
    score: np.ndarray,
    gold: Sequence[str],
    predicted: Sequence[str],
    *,
    oos_label: str,
    max_escalation: float,
    k: int = 5,
    seed: int = 0,
) -> CrossValidation:
    """Choose the threshold on ``k - 1`` folds, measure on the last, for every fold.

    Args:
        score: Out-of-scope score per validation line (higher = more out of scope).
        gold: Gold intent per line (``oos_label`` for out-of-scope lines).
        predicted: The best in-scope intent per line.
        max_escalation: The in-scope share the threshold may send away (as in training).
    """
    s = np.asarray(score, dtype=np.float64)
    gold_arr = np.asarray(gold, dtype=object)
    pred_arr = np.asarray(predicted, dtype=object)
    is_oos = gold_arr == oos_label
    folds = stratified_folds(list(gold), k, seed)
    rows: list[dict[str, float | None]] = []
    for fold in range(k):
        test = folds == fold
        tune = ~test
        if not (tune & ~is_oos).any() or not (test & ~is_oos).any():
            continue
        choice = select_threshold(
            s[tune & ~is_oos], s[tune & is_oos], max_escalation=max_escalation
        )
        metrics = routing_metrics(
            list(gold_arr[test]),
            list(pred_arr[test]),
            s[test] <= choice.threshold,
            s[test],
            oos_label=oos_label,
        )
        rows.append({"threshold": choice.threshold, **metrics})
    return CrossValidation(rows)
