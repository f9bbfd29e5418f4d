"""Validating the joint model while and after it trains: its outputs on the validation
rows, the device's decoding of them, the metrics that pick the best state, and the
out-of-scope threshold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from understanding.intents.evaluate import routing_metrics
from understanding.slu.batches import Encoded, tensors
from understanding.slu.data import Utterance
from understanding.slu.decode import allowed_transitions, with_learned
from understanding.slu.metrics import slu_metrics
from understanding.slu.model import decode

__all__ = ["Outputs", "evaluate", "learned_scores", "predict_torch", "score", "with_margin"]

# One utterance's (intent, slot, word-intent) logits.
Outputs = tuple[np.ndarray, np.ndarray, np.ndarray]


def predict_torch(net: Any, rows: Sequence[Encoded], batch_size: int = 64) -> list[Outputs]:
    """The torch network's outputs on each row (in the rows' order), without gradients."""
    import torch

    net.eval()
    out: list[Outputs] = [None] * len(rows)  # type: ignore[list-item]
    order = sorted(range(len(rows)), key=lambda i: len(rows[i].ids))
    with torch.no_grad():
        for b in range(0, len(order), batch_size):
            idx = order[b : b + batch_size]
            ids, mask, *_ = tensors([rows[i] for i in idx])
            a, s, w = net(ids, mask)
            for k, i in enumerate(idx):
                n = len(rows[i].ids)
                out[i] = (a[k].numpy(), s[k, :n].numpy(), w[k, :n].numpy())
    net.train()
    return out


def learned_scores(net: Any) -> tuple[np.ndarray, np.ndarray]:
    """The CRF's (start, transition) scores as numpy arrays."""
    return (
        net.tag_start.detach().numpy().astype(np.float64),
        net.tag_transitions.detach().numpy().astype(np.float64),
    )


def evaluate(
    outputs: Sequence[Outputs],
    rows: Sequence[Encoded],
    val: Sequence[Utterance],
    intents: list[str],
    tags: list[str],
    oos_label: str,
    threshold: float | None,
    learned: tuple[np.ndarray, np.ndarray],
) -> tuple[dict[str, float | None], np.ndarray]:
    """Joint metrics (in-scope utterances) + routing metrics (when OOS lines exist)."""
    transitions = with_learned(allowed_transitions(tags), learned)
    gold_i, gold_t, pred_i, pred_t, top = [], [], [], [], []
    intents_right = in_scope = 0
    scores = np.zeros(len(val))
    for k, ((a, s, w), r, u) in enumerate(zip(outputs, rows, val, strict=True)):
        d = decode(a, s, w, r.first, tags, transitions)
        scores[k] = 1.0 - float(d.probs.max())
        top.append(intents[int(d.probs.argmax())])
        if oos_label in u.intents:
            continue
        predicted = [intents[i] for i in d.intents]
        in_scope += 1
        intents_right += set(predicted) == set(u.intents)
        if not u.fully_tagged:  # slots unknown: the intents are measured, not the slots
            continue
        gold_i.append(u.intents)
        gold_t.append(u.tags)
        pred_i.append(predicted)
        pred_t.append(d.tags)
    metrics: dict[str, float | None] = dict(slu_metrics(gold_i, gold_t, pred_i, pred_t))
    metrics["intent_accuracy"] = intents_right / in_scope if in_scope else 0.0
    is_oos = np.asarray([oos_label in u.intents for u in val])
    if is_oos.any():
        keep = scores <= (threshold if threshold is not None else 1.0)
        gold = [oos_label if oos_label in u.intents else u.intents[0] for u in val]
        metrics.update(routing_metrics(gold, top, keep, scores, oos_label=oos_label))
    return metrics, scores


def score(m: dict[str, float | None]) -> float:
    """What picks the best state: intent accuracy + slot F1 + exact match."""
    return sum(float(m.get(k) or 0.0) for k in ("intent_accuracy", "slot_f1", "exact_match"))


def with_margin(threshold: float, oos_scores: np.ndarray) -> float:
    """Halfway to the nearest out-of-scope validation score above ``threshold``.

    Every validation query is decided as at ``threshold`` itself, but a new in-scope
    query a little less sure than the validation ones is not escalated for nothing
    (with a few validation lines the lowest threshold hugs them).
    """
    above = oos_scores[oos_scores > threshold]
    return float((threshold + above.min()) / 2.0) if len(above) else threshold
