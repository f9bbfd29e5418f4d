"""Threshold selection, AUROC and the routing metrics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from understanding.intents.evaluate import METRIC_KEYS, routing_metrics
from understanding.intents.ood import METHODS, auroc, combine, select_threshold


def test_threshold_escalates_at_most_the_budget() -> None:
    in_scores = np.arange(100, dtype=float)  # 0..99
    choice = select_threshold(in_scores, np.array([98.5, 50.0, 120.0]), max_escalation=0.02)
    assert choice.threshold == 97.0
    assert choice.escalated_in_scope == pytest.approx(0.02)
    assert choice.oos_recall == pytest.approx(2 / 3)


def test_zero_budget_keeps_every_in_scope_query() -> None:
    choice = select_threshold(np.array([0.1, 0.5, 0.3]), None, max_escalation=0.0)
    assert choice.threshold == 0.5
    assert choice.escalated_in_scope == 0.0
    assert choice.oos_recall is None


def test_threshold_errors() -> None:
    with pytest.raises(ValueError, match="no in-scope"):
        select_threshold(np.array([]), None)
    with pytest.raises(ValueError, match="max_escalation"):
        select_threshold(np.array([1.0]), None, max_escalation=1.5)


@settings(max_examples=100, deadline=None)
@given(
    in_scores=st.lists(st.integers(-20, 20), min_size=1, max_size=60),
    budget=st.floats(0.0, 0.5),
)
def test_threshold_is_the_lowest_within_budget(in_scores: list[int], budget: float) -> None:
    scores = np.asarray(in_scores, dtype=float)
    choice = select_threshold(scores, None, max_escalation=budget)
    escalated = (scores > choice.threshold).mean()
    assert escalated <= budget + 1e-9
    lower = scores[scores < choice.threshold]
    if len(lower):  # any lower threshold would escalate too many
        assert (scores > lower.max()).mean() > budget


@settings(max_examples=100, deadline=None)
@given(
    pos=st.lists(st.integers(0, 6), min_size=1, max_size=20),
    neg=st.lists(st.integers(0, 6), min_size=1, max_size=20),
)
def test_auroc_matches_pairwise_counting(pos: list[int], neg: list[int]) -> None:
    pairs = [1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg]
    assert auroc(np.array(pos), np.array(neg)) == pytest.approx(sum(pairs) / len(pairs))


def test_auroc_extremes() -> None:
    assert auroc(np.array([2.0, 3.0]), np.array([0.0, 1.0])) == 1.0
    assert auroc(np.array([0.0]), np.array([1.0])) == 0.0
    assert np.isnan(auroc(np.array([]), np.array([1.0])))


def test_combine_standardises_then_weights() -> None:
    comps = {"msp": np.array([1.0, 3.0]), "maha": np.array([10.0, 30.0])}
    stats = {"msp": (1.0, 2.0), "maha": (10.0, 20.0)}
    np.testing.assert_allclose(combine(comps, METHODS["msp+0.5maha"], stats), [0.0, 1.5])


def test_routing_metrics_on_a_table() -> None:
    gold = ["a", "a", "b", "b", "oos", "oos"]
    pred = ["a", "b", "b", "b", "a", "b"]
    keep = np.array([True, True, False, True, False, True])
    score = np.array([0.1, 0.2, 0.9, 0.3, 0.8, 0.25])
    m = routing_metrics(gold, pred, keep, score)
    assert list(m) == list(METRIC_KEYS)
    assert m["in_scope_accuracy"] == 0.5  # a->a kept, b->b kept; a->b wrong; b escalated
    assert m["oos_recall"] == 0.5
    assert m["oos_precision"] == 0.5
    assert m["escalated_in_scope"] == 0.25
    assert m["oos_auroc"] == pytest.approx(5 / 8)  # 0.8 beats 3 of 4, 0.25 beats 2


def test_routing_metrics_without_oos_examples() -> None:
    m = routing_metrics(["a"], ["a"], np.array([True]), np.array([0.0]))
    assert m["in_scope_accuracy"] == 1.0
    assert m["oos_recall"] is None and m["oos_auroc"] is None and m["oos_precision"] is None
