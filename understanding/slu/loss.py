"""The joint model's training loss: intents, each word's tag (with a CRF over the tag
path) and each word's request, masked so that unknown tags teach the tagger nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from understanding.slu.batches import IGNORE, Encoded, tensors

__all__ = ["batch_loss"]


def batch_loss(net: Any, batch: Sequence[Encoded], *, crf: bool) -> Any:
    """The training loss of one batch: binary cross-entropy per intent, cross-entropy of
    each known word's tag (and, with ``crf``, its tag path's CRF likelihood), and half
    the cross-entropy of each word's request. An intent-only line adds nothing to the
    tag terms, so it moves the tagger only through the encoder they share."""
    import torch

    from understanding.slu.network import crf_nll

    ids, mask, slot, word_intent, target, words, word_on = tensors(batch)
    a, s, w = net(ids, mask)
    ce = torch.nn.CrossEntropyLoss(ignore_index=IGNORE)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(a, target)
    loss = loss + _masked(ce, s, slot)
    if crf:
        loss = loss + _crf_term(batch, s, slot, words, word_on, net, crf_nll)
    return loss + 0.5 * _masked(ce, w, word_intent)


def _masked(ce: Any, logits: Any, target: Any) -> Any:
    """Cross-entropy over the positions with a target, or 0 when none has one (a batch of
    intent-only lines: its mean over no position would be NaN and poison every weight)."""
    flat = target.reshape(-1)
    if not bool((flat != IGNORE).any()):
        return logits.sum() * 0.0
    return ce(logits.reshape(-1, logits.shape[-1]), flat)


def _crf_term(
    batch: Sequence[Encoded],
    s: Any,
    slot: Any,
    words: Any,
    word_on: Any,
    net: Any,
    crf_nll: Callable[..., Any],
) -> Any:
    """The CRF's negative log-likelihood per tagged word, over the utterances whose every
    tag is known (an intent-only one, or a compound with such a part, has no gold path)."""
    import torch

    keep = torch.tensor([r.tagged for r in batch], dtype=torch.bool)
    if not bool(keep.any()):
        return s.sum() * 0.0
    rows_b = torch.arange(len(batch))[keep][:, None]
    on = word_on[keep]
    return crf_nll(
        s[rows_b, words[keep]], slot[rows_b, words[keep]], on, net.tag_start, net.tag_transitions
    ) / on.sum().clamp(min=1)
