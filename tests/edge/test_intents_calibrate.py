"""Cross-validated thresholds (issue 30): folds are stratified, and a fold's threshold is
chosen without the fold's own lines."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from understanding.intents.calibrate import CrossValidation, cross_validate, stratified_folds
from understanding.intents.ood import select_threshold, side_effect_floor


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(st.sampled_from(["a", "b", "c", "oos"]), min_size=1, max_size=80),
    k=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=5),
)
def test_every_label_is_dealt_evenly_over_the_folds(labels: list[str], k: int, seed: int) -> None:
    folds = stratified_folds(labels, k, seed)
    assert len(folds) == len(labels)
    assert set(folds.tolist()) <= set(range(k))
    for label in set(labels):
        counts = Counter(int(f) for f, lab in zip(folds, labels, strict=True) if lab == label)
        per_fold = [counts.get(f, 0) for f in range(k)]
        assert max(per_fold) - min(per_fold) <= 1
    assert (stratified_folds(labels, k, seed) == folds).all()  # deterministic


def test_one_fold_is_refused() -> None:
    with pytest.raises(ValueError, match="2 folds"):
        stratified_folds(["a", "b"], 1)


def test_a_folds_threshold_never_sees_the_fold() -> None:
    rng = np.random.default_rng(0)
    gold = ["a"] * 50 + ["b"] * 50 + ["oos"] * 20
    score = np.concatenate([rng.normal(0, 1, 100), rng.normal(3, 1, 20)])
    predicted = ["a"] * 50 + ["b"] * 50 + ["a"] * 20
    cv = cross_validate(score, gold, predicted, oos_label="oos", max_escalation=0.1, k=5)
    folds = stratified_folds(gold, 5, 0)
    is_in = np.asarray([g != "oos" for g in gold])
    assert len(cv.folds) == 5
    for fold, row in enumerate(cv.folds):
        tune = folds != fold
        want = select_threshold(score[tune & is_in], None, max_escalation=0.1).threshold
        assert row["threshold"] == want
        test = folds == fold
        assert row["oos_recall"] == pytest.approx(float((score[test & ~is_in] > want).mean()))
    summary = cv.summary()
    assert summary["oos_recall_mean"] == pytest.approx(
        np.mean([r["oos_recall"] for r in cv.folds]), abs=1e-4
    )
    assert cv.lower("oos_recall") <= (cv.mean("oos_recall") or 0.0)


def test_the_summary_skips_undefined_figures() -> None:
    cv = CrossValidation(
        [{"oos_recall": None, "threshold": 1.0}, {"oos_recall": None, "threshold": 3.0}]
    )
    summary = cv.summary()
    assert summary["oos_recall_mean"] is None
    assert summary["threshold_mean"] == 2.0 and summary["threshold_std"] == 1.0


@settings(max_examples=80, deadline=None)
@given(
    in_scores=st.lists(st.floats(-5, 5), min_size=1, max_size=60),
    oos_scores=st.lists(st.floats(-5, 8), max_size=20),
    budget=st.sampled_from([0.0, 0.05, 0.1, 0.3]),
)
def test_the_side_effect_floor_buys_recall_within_its_budget(
    in_scores: list[float], oos_scores: list[float], budget: float
) -> None:
    ins, oos = np.asarray(in_scores), np.asarray(oos_scores)
    threshold = select_threshold(ins, oos, max_escalation=0.01).threshold
    floor = side_effect_floor(ins, oos, threshold, max_escalation=budget)
    at_budget = select_threshold(ins, oos, max_escalation=budget).threshold
    assert floor <= threshold
    assert (ins > floor).mean() <= max(budget, (ins > threshold).mean()) + 1e-9
    if len(oos):  # it escalates every out-of-scope line the budget would, or the threshold's
        want = max((oos > at_budget).mean(), (oos > threshold).mean())
        assert (oos > floor).mean() >= want - 1e-9


def test_without_out_of_scope_lines_the_floor_is_the_threshold() -> None:
    ins = np.linspace(0.0, 1.0, 50)
    assert side_effect_floor(ins, None, 0.9, max_escalation=0.2) == 0.9
