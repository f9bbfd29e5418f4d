"""Evaluating a trained model on annotated utterances (``edge-agent eval-intents``).

Both kinds of model answer with the same keys: ``intent_accuracy``, ``slot_f1``,
``exact_match`` (None for an intents-only model) and, where the data has out-of-scope
lines, the routing keys of :mod:`understanding.intents.evaluate`, at the model's threshold
and at its side-effect floor too (``SIDE_EFFECT_KEYS``: what a tool of yours that acts
would see).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from understanding.intents.evaluate import METRIC_KEYS, routing_metrics
from understanding.slu.data import Utterance
from understanding.slu.metrics import slu_metrics

__all__ = ["EVAL_KEYS", "SIDE_EFFECT_KEYS", "evaluate_heads", "evaluate_joint"]

SIDE_EFFECT_KEYS = (
    "oos_recall_side_effect",
    "in_scope_accuracy_side_effect",
    "escalated_in_scope_side_effect",
)
EVAL_KEYS = ("intent_accuracy", "slot_f1", "exact_match", *METRIC_KEYS, *SIDE_EFFECT_KEYS)


def _routing(
    data: Sequence[Utterance], top: list[str], keep: np.ndarray, score: np.ndarray, oos: str
) -> dict[str, float | None]:
    """The routing keys where the data has out-of-scope lines, else None."""
    if not any(oos in u.intents for u in data):
        return dict.fromkeys(METRIC_KEYS)
    gold = [oos if oos in u.intents else u.intents[0] for u in data]
    return routing_metrics(gold, top, keep, score, oos_label=oos)


def evaluate_joint(model: Any, data: Sequence[Utterance]) -> dict[str, float | None]:
    """A :class:`understanding.slu.SluModel` on ``data``, one utterance at a time."""
    oos = model.oos_label
    gi, gt, pi, pt, top = [], [], [], [], []
    keep = np.zeros(len(data), dtype=bool)
    keep_acting = np.zeros(len(data), dtype=bool)
    score = np.zeros(len(data))
    in_scope = intents_right = 0
    for k, u in enumerate(data):
        p = model.predict_words(u.words)
        keep[k], score[k] = p.in_scope, p.oos_score
        keep_acting[k] = p.in_scope and getattr(p, "side_effect_ok", True)
        top.append(p.top_intent)
        if oos in u.intents:
            continue
        predicted = p.intents if p.in_scope else (oos,)
        in_scope += 1
        intents_right += set(predicted) == set(u.intents)
        if not u.fully_tagged:  # an intent-only line: its slots are unknown, not absent
            continue
        gi.append(u.intents)
        gt.append(u.tags)
        pi.append(predicted)
        pt.append(p.tags)
    joint = slu_metrics(gi, gt, pi, pt)
    out: dict[str, float | None] = {
        "intent_accuracy": intents_right / in_scope if in_scope else 0.0,
        "slot_f1": joint["slot_f1"],
        "exact_match": joint["exact_match"],
    }
    out.update(_routing(data, top, keep, score, oos))
    out.update(_side_effect(_routing(data, top, keep_acting, score, oos)))
    return out


def _side_effect(routing: dict[str, float | None]) -> dict[str, float | None]:
    """The side-effect keys from routing figures measured at the side-effect floor."""
    return {
        f"{key}_side_effect": routing[key]
        for key in ("oos_recall", "in_scope_accuracy", "escalated_in_scope")
    }


def evaluate_heads(model: Any, data: Sequence[Utterance]) -> dict[str, float | None]:
    """An intents-only :class:`understanding.intents.IntentModel` on ``data``."""
    from understanding.intents.model import features_from_layers

    feats = np.stack([features_from_layers(model.encoder.embed_layers(u.text)) for u in data])
    batch = model.predict_features(feats)
    top = [model.in_scope_classes[i] for i in batch.top]
    oos = model.oos_label
    in_scope = [k for k, u in enumerate(data) if oos not in u.intents]
    right = sum(
        1
        for k in in_scope
        if len(data[k].intents) == 1 and top[k] == data[k].intents[0] and batch.in_scope[k]
    )
    out: dict[str, float | None] = {
        "intent_accuracy": right / len(in_scope) if in_scope else None,
        "slot_f1": None,
        "exact_match": None,
    }
    out.update(_routing(data, top, batch.in_scope, batch.oos_score, oos))
    out.update(_side_effect(_routing(data, top, batch.side_effect_ok, batch.oos_score, oos)))
    return out
