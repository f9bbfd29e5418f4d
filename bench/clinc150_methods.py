"""Out-of-scope methods compared on CLINC150 validation, cross-validated (issue 30).

Used by ``bench/clinc150.py --compare``. Every head is trained on CLINC150's ``train``
split (plus ``oos_train`` where the method uses out-of-scope lines); every score is then
measured on ``val`` + ``oos_val``, which no head saw. The threshold rule (the lowest
threshold that escalates at most ``max_escalation`` of in-scope lines) is cross-validated:
the validation lines are cut into 5 stratified folds, each fold's threshold is chosen on
the other four and the fold is measured with it, for 3 different cuts (15 folds). Each
figure is the mean over the folds, with its standard deviation.

Methods (scores: higher = more out of scope):

* ``softmax``: 1 - the best softmax probability, no out-of-scope lines (the classic
  threshold on the softmax);
* ``oos_class``: the same, with ``oos_train`` as one more class;
* ``oos_negatives``: ``oos_train`` lines trained toward the uniform distribution
  (outlier exposure) instead of a class;
* ``mahalanobis``: distance to the nearest intent mean (shared covariance, last layer);
* ``knn``: 1 - the mean cosine of the 10 nearest training lines (the last three layers'
  embeddings, averaged), no head at all;
* ``oos_class+0.5maha`` and ``oos_class+knn``: standardised sums (the trainer's
  ``msp+0.5maha`` with an oos class is the first).

The fine-tuned encoder (the joint trainer on intent-only lines) is not in the table: its
three epochs over CLINC150's 15,000 lines take about 11 CPU-minutes at its measured rate
(docs/edge.md), past the 10-minute laptop budget before any cross-validation, and more
than an hour of wall time on the shared machine this was measured on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

METHOD_NAMES = (
    "softmax",
    "oos_class",
    "oos_negatives",
    "mahalanobis",
    "knn",
    "oos_class+0.5maha",
    "oos_class+knn",
)


def _knn_score(x_eval: np.ndarray, x_bank: np.ndarray, k: int = 10) -> np.ndarray:
    """1 - mean cosine of the k nearest bank rows, layers 4-6 averaged (rows unit-norm)."""
    out = np.empty(len(x_eval))
    for start in range(0, len(x_eval), 512):
        block = x_eval[start : start + 512]
        sims = sum(block[:, layer] @ x_bank[:, layer].T for layer in (3, 4, 5)) / 3.0
        top = -np.partition(-sims, k - 1, axis=1)[:, :k]
        out[start : start + 512] = 1.0 - top.mean(axis=1)
    return out


def method_scores(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_oos_train: np.ndarray,
    x_val: np.ndarray,
    n_classes: int,
    log: Any = print,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Scores and top intents on ``x_val`` (n, 6, 384) for every method."""
    from understanding.intents.heads import GaussianHead, SoftmaxHead, softmax

    flat_train = x_train.reshape(len(x_train), -1)
    flat_oos = x_oos_train.reshape(len(x_oos_train), -1)
    flat_val = x_val.reshape(len(x_val), -1)
    heads = {}
    log("fitting the softmax head without out-of-scope lines")
    heads["softmax"] = SoftmaxHead.fit(flat_train, y_train, n_classes)
    log("fitting the softmax head with oos_train as a class")
    heads["oos_class"] = SoftmaxHead.fit(
        np.concatenate([flat_train, flat_oos]),
        np.concatenate([y_train, np.full(len(flat_oos), n_classes)]),
        n_classes + 1,
    )
    log("fitting the softmax head with oos_train as negatives")
    heads["oos_negatives"] = SoftmaxHead.fit(
        np.concatenate([flat_train, flat_oos]),
        np.concatenate([y_train, np.full(len(flat_oos), -1)]),
        n_classes,
    )
    scores: dict[str, np.ndarray] = {}
    tops: dict[str, np.ndarray] = {}
    for name, head in heads.items():
        probs = softmax(head.logits(flat_val))[:, :n_classes]
        scores[name] = 1.0 - probs.max(axis=1)
        tops[name] = probs.argmax(axis=1)
    gaussian = GaussianHead.fit(x_train[:, 5], y_train, n_classes)
    scores["mahalanobis"] = gaussian.min_distance(x_val[:, 5])
    scores["knn"] = _knn_score(x_val, x_train)
    tops["mahalanobis"] = tops["knn"] = tops["softmax"]
    tops["oos_class+0.5maha"] = tops["oos_class+knn"] = tops["oos_class"]
    return scores, tops


def combined(
    scores: dict[str, np.ndarray], weights: dict[str, float], in_rows: np.ndarray
) -> np.ndarray:
    """Standardised (on in-scope rows) weighted sum of scores."""
    total = np.zeros(len(in_rows))
    for name, weight in weights.items():
        s = scores[name]
        total += weight * (s - s[in_rows].mean()) / (s[in_rows].std() or 1.0)
    return total


def compare(
    scores: dict[str, np.ndarray],
    tops: dict[str, np.ndarray],
    gold: list[str],
    classes: list[str],
    *,
    max_escalation: float,
    oos_label: str = "oos",
    seeds: tuple[int, ...] = (0, 1, 2),
) -> dict[str, dict[str, float | None]]:
    """Cross-validated figures (mean and std over 5 folds x ``seeds``) per method."""
    from understanding.intents.calibrate import CrossValidation, cross_validate
    from understanding.intents.ood import auroc

    is_oos = np.asarray([g == oos_label for g in gold])
    all_scores = dict(scores)
    all_scores["oos_class+0.5maha"] = combined(
        scores, {"oos_class": 1.0, "mahalanobis": 0.5}, ~is_oos
    )
    all_scores["oos_class+knn"] = combined(scores, {"oos_class": 1.0, "knn": 1.0}, ~is_oos)
    out: dict[str, dict[str, float | None]] = {}
    for name in METHOD_NAMES:
        s = all_scores[name]
        predicted = [classes[i] for i in tops[name]]
        folds = []
        for seed in seeds:
            cv = cross_validate(
                s, gold, predicted, oos_label=oos_label, max_escalation=max_escalation, seed=seed
            )
            folds.extend(cv.folds)
        summary = CrossValidation(folds).summary()
        summary["oos_auroc"] = round(auroc(s[is_oos], s[~is_oos]), 4)
        summary["oos_recall_lower"] = round(CrossValidation(folds).lower("oos_recall"), 4)
        out[name] = summary
    return out
