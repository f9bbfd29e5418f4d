"""Joint metrics: intent accuracy, conlleval slot F1, exact match.

* ``intent_accuracy``: utterances whose whole set of intents is right;
* ``slot_f1``: span-level micro F1 as conlleval computes it (a span counts when its type
  and both ends are right; ``I-x`` without a ``B-x`` starts a span);
* ``exact_match``: utterances with the intents and every slot right.
"""

from __future__ import annotations

from collections.abc import Sequence

from understanding.slu.data import spans

__all__ = ["SLU_METRIC_KEYS", "slu_metrics"]

SLU_METRIC_KEYS = ("intent_accuracy", "slot_f1", "slot_precision", "slot_recall", "exact_match")


def slu_metrics(
    gold_intents: Sequence[Sequence[str]],
    gold_tags: Sequence[Sequence[str]],
    pred_intents: Sequence[Sequence[str]],
    pred_tags: Sequence[Sequence[str]],
) -> dict[str, float]:
    """The metrics above, as fractions (slot figures 0.0 when no spans exist anywhere)."""
    n = len(gold_intents)
    right_intents = right_all = 0
    n_gold = n_pred = n_right = 0
    for gi, gt, pi, pt in zip(gold_intents, gold_tags, pred_intents, pred_tags, strict=True):
        g_spans, p_spans = set(spans(gt)), set(spans(pt))
        n_gold += len(g_spans)
        n_pred += len(p_spans)
        n_right += len(g_spans & p_spans)
        intents_ok = set(gi) == set(pi)
        right_intents += intents_ok
        right_all += intents_ok and g_spans == p_spans
    precision = n_right / n_pred if n_pred else 0.0
    recall = n_right / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "intent_accuracy": right_intents / n if n else 0.0,
        "slot_f1": f1,
        "slot_precision": precision,
        "slot_recall": recall,
        "exact_match": right_all / n if n else 0.0,
    }
