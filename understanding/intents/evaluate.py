"""Routing metrics: how well a model keeps in-scope queries and escalates the rest.

Definitions (as in Larson et al. 2019, CLINC150):

* ``in_scope_accuracy``: in-scope queries given the right intent AND kept in scope.
* ``oos_recall``: out-of-scope queries escalated (sent to the cloud).
* ``oos_precision``: escalated queries that really were out of scope.
* ``oos_auroc``: how well the OOS score ranks out-of-scope above in-scope queries,
  independent of the threshold.
* ``escalated_in_scope``: in-scope queries escalated (the threshold's cost).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from understanding.intents.ood import auroc

__all__ = ["METRIC_KEYS", "routing_metrics"]

METRIC_KEYS = (
    "in_scope_accuracy",
    "oos_recall",
    "oos_precision",
    "oos_auroc",
    "escalated_in_scope",
)


def _ratio(num: float, den: float) -> float | None:
    return float(num / den) if den else None


def routing_metrics(
    true_intents: Sequence[str],
    predicted: Sequence[str],
    in_scope: np.ndarray,
    oos_score: np.ndarray,
    *,
    oos_label: str = "oos",
) -> dict[str, float | None]:
    """The five routing metrics as fractions (None where undefined, e.g. no OOS data).

    Args:
        true_intents: Gold labels (``oos_label`` for out-of-scope queries).
        predicted: The best in-scope intent per query (whatever the threshold said).
        in_scope: The threshold's decision per query.
        oos_score: The OOS score per query.
    """
    gold = np.asarray(true_intents, dtype=object)
    pred = np.asarray(predicted, dtype=object)
    keep = np.asarray(in_scope, dtype=bool)
    score = np.asarray(oos_score, dtype=np.float64)
    is_oos = gold == oos_label
    is_in = ~is_oos
    n_in, n_oos = int(is_in.sum()), int(is_oos.sum())
    escalated = ~keep
    return {
        "in_scope_accuracy": _ratio(float((is_in & keep & (pred == gold)).sum()), n_in),
        "oos_recall": _ratio(float((is_oos & escalated).sum()), n_oos),
        "oos_precision": _ratio(float((is_oos & escalated).sum()), float(escalated.sum())),
        "oos_auroc": auroc(score[is_oos], score[is_in]) if n_in and n_oos else None,
        "escalated_in_scope": _ratio(float((is_in & escalated).sum()), n_in),
    }
