"""Out-of-scope scores and the threshold that turns them into a decision.

Every score is "higher = more likely out of scope". Components:

* ``msp``: one minus the largest in-scope softmax probability (Hendrycks & Gimpel 2017);
  with an ``oos`` class in the head, its mass lowers every in-scope probability.
* ``energy``: minus the log-sum-exp of the in-scope logits (Liu et al. 2020).
* ``maha``: squared Mahalanobis distance of the sentence embedding to the nearest
  class mean (shared covariance).

Methods combine components after standardising each on in-scope validation scores
(mean 0, std 1), so a weight of 1 means "as much as the other". The trainer tries the
methods in :data:`METHODS` and keeps the one that validation prefers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "METHODS",
    "ThresholdChoice",
    "auroc",
    "combine",
    "select_threshold",
    "side_effect_floor",
]

# method name -> {component: weight}
METHODS: dict[str, dict[str, float]] = {
    "msp": {"msp": 1.0},
    "energy": {"energy": 1.0},
    "maha": {"maha": 1.0},
    "msp+0.5maha": {"msp": 1.0, "maha": 0.5},
    "msp+maha": {"msp": 1.0, "maha": 1.0},
    "energy+0.5maha": {"energy": 1.0, "maha": 0.5},
}


def combine(
    components: dict[str, np.ndarray],
    weights: dict[str, float],
    stats: dict[str, tuple[float, float]],
) -> np.ndarray:
    """Weighted sum of standardised components; ``stats`` maps name -> (mean, std)."""
    total: np.ndarray | None = None
    for name, weight in weights.items():
        mean, std = stats[name]
        part = weight * (np.asarray(components[name], dtype=np.float64) - mean) / std
        total = part if total is None else total + part
    if total is None:
        raise ValueError("a method needs at least one component")
    return total


def auroc(oos_scores: np.ndarray, in_scores: np.ndarray) -> float:
    """Probability that an OOS query scores higher than an in-scope one (ties count half)."""
    pos = np.asarray(oos_scores, dtype=np.float64)
    neg = np.asarray(in_scores, dtype=np.float64)
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    allv = np.concatenate([pos, neg])
    order = allv.argsort(kind="mergesort")
    ranks = np.empty(len(allv), dtype=np.float64)
    sorted_v = allv[order]
    # average ranks over ties
    i = 0
    while i < len(sorted_v):
        j = i
        while j + 1 < len(sorted_v) and sorted_v[j + 1] == sorted_v[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    u = ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2.0
    return float(u / (len(pos) * len(neg)))


@dataclass(frozen=True)
class ThresholdChoice:
    """A threshold on the OOS score and what it does on the data that chose it."""

    threshold: float
    escalated_in_scope: float
    oos_recall: float | None


def select_threshold(
    in_scores: np.ndarray, oos_scores: np.ndarray | None, *, max_escalation: float = 0.01
) -> ThresholdChoice:
    """The lowest threshold that sends at most ``max_escalation`` of in-scope queries away.

    A query is out of scope when its score is strictly above the threshold. The lowest
    such threshold escalates the most out-of-scope queries for the in-scope budget.
    Only validation scores may be passed here, never test scores.

    Args:
        in_scores: OOS scores of in-scope validation queries (at least one).
        oos_scores: OOS scores of out-of-scope validation queries (may be empty/None).
        max_escalation: Largest share of in-scope queries that may be escalated.
    """
    if not 0.0 <= max_escalation < 1.0:
        raise ValueError(f"max_escalation must be in [0, 1), not {max_escalation}")
    s = np.sort(np.asarray(in_scores, dtype=np.float64))
    n = len(s)
    if n == 0:
        raise ValueError("no in-scope validation scores")
    allowed = int(np.floor(max_escalation * n + 1e-9))
    # Keep the (n - allowed) lowest scores in scope: threshold = the highest of them.
    threshold = float(s[n - allowed - 1])
    escalated = float((s > threshold).mean())
    recall = None
    if oos_scores is not None and len(oos_scores) > 0:
        recall = float((np.asarray(oos_scores, dtype=np.float64) > threshold).mean())
    return ThresholdChoice(threshold=threshold, escalated_in_scope=escalated, oos_recall=recall)


def side_effect_floor(
    in_scores: np.ndarray,
    oos_scores: np.ndarray | None,
    threshold: float,
    *,
    max_escalation: float = 0.05,
) -> float:
    """The side-effect floor: a second, stricter threshold for tools that act.

    The budget (``max_escalation`` of in-scope validation queries) bounds what the floor
    may cost; it spends it only where it buys out-of-scope recall on validation: the
    floor is the highest one that escalates the same out-of-scope validation queries as
    the budget's threshold, and never above ``threshold``. Without out-of-scope
    validation queries (or when the threshold already escalates all the budget would),
    the floor is the threshold.
    """
    oos = np.asarray(oos_scores if oos_scores is not None else [], dtype=np.float64)
    budget = select_threshold(in_scores, oos, max_escalation=max_escalation).threshold
    caught = oos[oos > budget]
    if len(caught) == 0:
        return float(threshold)
    lowest = float(caught.min())
    below = np.concatenate([np.asarray(in_scores, dtype=np.float64), oos])
    below = below[below < lowest]
    floor = max(budget, float(below.max())) if len(below) else budget
    return float(min(floor, threshold))
