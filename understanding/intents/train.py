"""Train a router from labelled examples: ``train_model(train, val, out_dir)``.

Recipe (chosen on CLINC150 validation data; see ``bench/clinc150.py``):

1. Embed every example one at a time with the INT8 encoder, exactly as live queries are,
   keeping all six layers' pooled embeddings (2304 features).
2. Fit a softmax head (numpy logistic regression); out-of-scope training examples, if
   any, are one more class.
3. Fit a Gaussian head (class means, shared shrunk covariance) on the last layer.
4. On the validation examples only: score every OOS method of :mod:`ood`, choose each
   one's threshold as the lowest that escalates at most ``max_escalation`` of in-scope
   validation queries, cross-validate that rule over ``cv_folds`` stratified folds
   (:mod:`calibrate`), and keep the method whose fold OOS recall holds best (mean - std,
   then AUROC, then in-scope accuracy): on CLINC150, the method that wins on the lines
   that chose its threshold lost 0.13 of OOS recall on test (issue 30). Without OOS
   validation examples the default method is kept. The side-effect floor is chosen on
   the same scores with its own budget (:func:`ood.side_effect_floor`).

5. Refit (default): warm-start both heads on training + validation examples for a few
   hundred more steps, keeping the method, its score standardisation and the threshold
   chosen in step 4. Validation data thus trains the heads only after it has chosen the
   threshold for heads that never saw it. Measured on CLINC150 by splitting val in two
   halves (choose on one, test on the other, both ways): the refit adds 0.4-0.5 points
   of in-scope accuracy at the same OOS recall and about the same escalation (1%).
   The figures in the manifest's ``validation`` are those of the pre-refit heads, the
   ones that chose the threshold.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from understanding.intents.calibrate import cross_validate
from understanding.intents.data import (
    OOS,
    Example,
    check_training_examples,
    examples_sha256,
    stratified_split,
)
from understanding.intents.errors import IntentDataError
from understanding.intents.evaluate import routing_metrics
from understanding.intents.heads import GaussianHead, SoftmaxHead
from understanding.intents.model import IntentModel, features_from_layers
from understanding.intents.ood import METHODS, combine, select_threshold, side_effect_floor

__all__ = ["DEFAULT_METHOD", "TrainReport", "train_model"]

DEFAULT_METHOD = "msp+0.5maha"


@dataclass
class TrainReport:
    """What training produced and measured (on validation data only)."""

    out_dir: Path
    classes: list[str]
    method: str
    threshold: float
    n_train: int
    n_val: int
    val_metrics: dict[str, float | None]
    side_effect_threshold: float = 0.0
    side_effect_metrics: dict[str, float | None] = field(default_factory=dict)
    candidates: dict[str, dict[str, float | None]] = field(default_factory=dict)
    embed_s: float = 0.0
    fit_s: float = 0.0
    refit_s: float = 0.0
    train_s: float = 0.0
    held_out_validation: bool = False


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_val(val: Sequence[Example], known: set[str], oos_label: str) -> None:
    if not [ex for ex in val if ex.intent != oos_label]:
        raise IntentDataError("validation data has no in-scope examples")
    for ex in val:
        if ex.intent != oos_label and ex.intent not in known:
            raise IntentDataError(
                f"{ex.where}: validation intent {ex.intent!r} has no training examples"
            )


def train_model(
    train_examples: Sequence[Example],
    val_examples: Sequence[Example] | None,
    out_dir: Path,
    *,
    encoder: Any = None,
    oos_label: str = OOS,
    max_escalation: float = 0.01,
    side_effect_escalation: float = 0.05,
    cv_folds: int = 5,
    methods: Sequence[str] | None = None,
    val_fraction: float = 0.2,
    seed: int = 0,
    l2: float = 1e-5,
    refit: bool = True,
    refit_steps: int = 800,
    progress: bool = False,
    source: dict[str, Any] | None = None,
    log: Callable[[str], None] | None = None,
) -> TrainReport:
    """Train a router and save it to ``out_dir``.

    Args:
        train_examples: Labelled examples; ``oos_label`` marks out-of-scope ones.
        val_examples: Validation examples (choose method and threshold). None: hold out a
            stratified ``val_fraction`` of the training examples (deterministic ``seed``).
        out_dir: Where ``heads.npz`` and ``manifest.json`` go.
        encoder: An :class:`understanding.encoder.Encoder` (default: the package's INT8 one).
        max_escalation: Share of in-scope validation queries the threshold may send to
            the cloud.
        side_effect_escalation: The same share for the side-effect floor: a tool of
            yours with side effects runs only when the OOS score is at most this floor
            (never above the threshold), so more in-scope queries go to the cloud, and
            fewer out-of-scope ones act.
        cv_folds: Stratified folds of the validation lines over which each method's
            threshold rule is cross-validated (chosen on the other folds, measured on
            one); the method is chosen on the folds' mean - std of OOS recall.
        methods: OOS methods to try (names in :data:`understanding.intents.ood.METHODS`).
        refit: After choosing the threshold, warm-start the heads on training +
            validation examples (``refit_steps`` Adam steps); see the module docstring.
        source: Extra provenance for the manifest (e.g. the data file and its sha256).
        log: Called with one-line progress messages.

    Returns:
        A :class:`TrainReport`.

    Raises:
        IntentDataError: The examples cannot train a router (the message names the line).

    Example::

        >>> report = train_model(train, None, Path("models/my_router"))  # doctest: +SKIP
        >>> report.val_metrics["in_scope_accuracy"]  # doctest: +SKIP
    """
    started = time.perf_counter()
    say = log or (lambda _msg: None)
    data = _split(train_examples, val_examples, oos_label, val_fraction, seed, say)
    names = _method_names(methods)
    if encoder is None:
        from understanding.encoder import Encoder

        encoder = Encoder.load()
    t0 = time.perf_counter()
    say(f"embedding {len(data.train) + len(data.val)} examples")
    x_train, x_val = _embed(encoder, data.train, progress), _embed(encoder, data.val, progress)
    timing = {"embed": time.perf_counter() - t0}
    t1 = time.perf_counter()
    y_train = np.asarray([data.index[ex.intent] for ex in data.train])
    say(f"fitting the softmax head ({len(data.classes)} classes)")
    softmax_head = _fit_softmax(x_train, y_train, len(data.classes), l2, seed, progress)
    heads = (softmax_head, _fit_gaussian(x_train, y_train, data.n_in_scope))
    timing["fit"] = time.perf_counter() - t1
    budgets = (max_escalation, side_effect_escalation)
    chosen = _calibrate(data, heads, encoder, x_val, names, budgets, cv_folds, seed, say)
    timing["refit"] = 0.0
    if refit:
        t2 = time.perf_counter()
        heads = _refit(data, heads, x_train, y_train, x_val, l2, seed, refit_steps, say)
        timing["refit"] = time.perf_counter() - t2
    timing["total"] = time.perf_counter() - started
    recipe = {"seed": seed, "l2": l2, "val_fraction": val_fraction, "refit_steps": refit_steps}
    manifest = _manifest(data, chosen, encoder, budgets, cv_folds, recipe, refit, source, timing)
    _model(data, heads, chosen, encoder, manifest).save(Path(out_dir))
    say(
        f"saved {out_dir} (method {chosen.method}, threshold {chosen.threshold:.4f}, "
        f"side-effect floor {chosen.floor:.4f}) in {timing['total']:.0f} s"
    )
    return _report(Path(out_dir), data, chosen, timing)


@dataclass
class _Data:
    """The training and validation lines and the classes they train."""

    train: list[Example]
    val: list[Example]
    held_out: bool  # the validation lines were held out of the training examples
    in_scope: list[str]
    classes: list[str]  # the in-scope ones, then the out-of-scope label if it is a class
    oos_label: str
    index: dict[str, int] = field(init=False)  # class -> its column in the heads

    def __post_init__(self) -> None:
        self.index = {c: i for i, c in enumerate(self.classes)}

    @property
    def n_in_scope(self) -> int:
        return len(self.in_scope)


@dataclass
class _Calibration:
    """What the validation lines chose: the method, its score standardisation, threshold
    and figures, and the side-effect floor with its figures."""

    method: str
    stats: dict[str, tuple[float, float]]
    threshold: float
    candidates: dict[str, dict[str, float | None]]
    val_metrics: dict[str, float | None]
    floor: float
    side_metrics: dict[str, float | None]
    side_cv: dict[str, Any]


def _split(
    train_examples: Sequence[Example],
    val_examples: Sequence[Example] | None,
    oos_label: str,
    val_fraction: float,
    seed: int,
    say: Callable[[str], None],
) -> _Data:
    """Check the examples, hold out validation lines when none are given, and name the
    classes (the out-of-scope label is one when training examples carry it)."""
    check_training_examples(train_examples, oos_label=oos_label)
    held_out = val_examples is None
    if val_examples is None:
        train_list, val_list = stratified_split(train_examples, val_fraction, seed)
        say(f"no validation data: held out {len(val_list)} of {len(train_examples)} examples")
    else:
        train_list, val_list = list(train_examples), list(val_examples)
    in_scope_classes = sorted({ex.intent for ex in train_list if ex.intent != oos_label})
    _check_val(val_list, set(in_scope_classes), oos_label)
    has_oos_class = any(ex.intent == oos_label for ex in train_list)
    classes = in_scope_classes + ([oos_label] if has_oos_class else [])
    return _Data(train_list, val_list, held_out, in_scope_classes, classes, oos_label)


def _method_names(methods: Sequence[str] | None) -> list[str]:
    names = list(methods) if methods else list(METHODS)
    for name in names:
        if name not in METHODS:
            raise IntentDataError(f"unknown OOS method {name!r} (known: {', '.join(METHODS)})")
    return names


def _embed(encoder: Any, examples: list[Example], progress: bool) -> np.ndarray:
    """All six layers' pooled embeddings of each example, as live queries are embedded."""
    features: np.ndarray = features_from_layers(
        encoder.embed_layers_many([ex.text for ex in examples], progress=progress)
    )
    return features


def _fit_gaussian(x: np.ndarray, y: np.ndarray, n_in_scope: int) -> GaussianHead:
    """The Gaussian head on the last layer's features of the in-scope lines."""
    in_mask = y < n_in_scope
    last = slice(x.shape[1] - 384, x.shape[1])
    return GaussianHead.fit(x[in_mask][:, last], y[in_mask], n_in_scope)


def _calibrate(
    data: _Data,
    heads: tuple[SoftmaxHead, GaussianHead],
    encoder: Any,
    x_val: np.ndarray,
    names: list[str],
    budgets: tuple[float, float],
    cv_folds: int,
    seed: int,
    say: Callable[[str], None],
) -> _Calibration:
    """Score every method on the validation lines, choose one and its threshold (step 4
    of the module docstring), then the side-effect floor on the same scores."""
    max_escalation, side_effect_escalation = budgets
    oos_label = data.oos_label
    draft = IntentModel(
        classes=data.classes,
        oos_label=oos_label,
        softmax_head=heads[0],
        gaussian_head=heads[1],
        method=METHODS[DEFAULT_METHOD],
        stats={},
        threshold=0.0,
        encoder=encoder,
    )
    val_gold = [ex.intent for ex in data.val]
    val_is_oos = np.asarray([g == oos_label for g in val_gold])
    probs, comps = draft.components(x_val)
    top = probs[:, : data.n_in_scope].argmax(axis=1)
    predicted = [data.in_scope[i] for i in top]
    stats = {
        name: (float(v[~val_is_oos].mean()), float(v[~val_is_oos].std()) or 1.0)
        for name, v in comps.items()
    }
    say(f"cross-validating {len(names)} out-of-scope methods over {cv_folds} folds")
    scores = {name: combine(comps, METHODS[name], stats) for name in names}
    candidates = {
        name: _candidate(
            scores[name], val_gold, predicted, oos_label, max_escalation, cv_folds, seed
        )
        for name in names
    }
    method = _choose(candidates, names, bool(val_is_oos.any()))
    chosen = candidates[method]
    threshold = float(chosen["threshold"] or 0.0)
    val_metrics = {k: v for k, v in chosen.items() if k != "threshold" and not k.startswith("cv_")}
    score = scores[method]
    floor = side_effect_floor(
        score[~val_is_oos],
        score[val_is_oos],
        threshold,
        max_escalation=side_effect_escalation,
    )
    side_metrics = routing_metrics(val_gold, predicted, score <= floor, score, oos_label=oos_label)
    side_cv = (
        cross_validate(
            score,
            val_gold,
            predicted,
            oos_label=oos_label,
            max_escalation=side_effect_escalation,
            k=cv_folds,
            seed=seed,
        ).summary()
        if cv_folds >= 2
        else {}
    )
    return _Calibration(
        method, stats, threshold, candidates, val_metrics, floor, side_metrics, side_cv
    )


def _refit(
    data: _Data,
    heads: tuple[SoftmaxHead, GaussianHead],
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_val: np.ndarray,
    l2: float,
    seed: int,
    refit_steps: int,
    say: Callable[[str], None],
) -> tuple[SoftmaxHead, GaussianHead]:
    """Warm-start both heads on training + validation examples (step 5)."""
    index = data.index
    keep = [i for i, ex in enumerate(data.val) if ex.intent in index]
    x_all = np.concatenate([x_train, x_val[keep]])
    y_all = np.concatenate([y_train, [index[data.val[i].intent] for i in keep]])
    say(f"refitting on {len(x_all)} training + validation examples")
    softmax_head = SoftmaxHead.fit(
        x_all,
        y_all,
        len(data.classes),
        l2=l2,
        seed=seed,
        init=heads[0],
        min_steps=refit_steps,
        min_epochs=1,
    )
    return softmax_head, _fit_gaussian(x_all, y_all, data.n_in_scope)


def _manifest(
    data: _Data,
    chosen: _Calibration,
    encoder: Any,
    budgets: tuple[float, float],
    cv_folds: int,
    recipe: dict[str, Any],
    refit: bool,
    source: dict[str, Any] | None,
    timing: dict[str, float],
) -> dict[str, Any]:
    """The model's provenance: how it was trained, on what, and what validation measured."""
    held_out = data.held_out
    encoder_file = Path(encoder.model_path)
    return {
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "method_name": chosen.method,
        "max_escalation": budgets[0],
        "side_effect_escalation": budgets[1],
        "training": {
            "n_train": len(data.train),
            "n_val": len(data.val),
            "held_out_validation": held_out,
            "val_fraction": recipe["val_fraction"] if held_out else None,
            "seed": recipe["seed"],
            "l2": recipe["l2"],
            "train_sha256": examples_sha256(data.train),
            "val_sha256": examples_sha256(data.val),
            "oos_as_class": len(data.classes) > data.n_in_scope,
            "refit_on_validation": refit,
            "refit_steps": recipe["refit_steps"] if refit else None,
            **(source or {}),
        },
        "validation": chosen.val_metrics,
        "validation_side_effect": chosen.side_metrics,
        "cross_validation": {
            "folds": cv_folds,
            **{
                k[3:]: v for k, v in chosen.candidates[chosen.method].items() if k.startswith("cv_")
            },
        },
        "cross_validation_side_effect": chosen.side_cv,
        "candidates": chosen.candidates,
        "encoder": {
            "file": encoder_file.name,
            "sha256": _sha256_file(encoder_file),
            "precision": getattr(encoder, "precision", "int8"),
        },
        "timing_s": {key: round(seconds, 2) for key, seconds in timing.items()},
    }


def _model(
    data: _Data,
    heads: tuple[SoftmaxHead, GaussianHead],
    chosen: _Calibration,
    encoder: Any,
    manifest: dict[str, Any],
) -> IntentModel:
    return IntentModel(
        classes=data.classes,
        oos_label=data.oos_label,
        softmax_head=heads[0],
        gaussian_head=heads[1],
        method=METHODS[chosen.method],
        stats={k: chosen.stats[k] for k in METHODS[chosen.method]},
        threshold=chosen.threshold,
        side_effect_threshold=chosen.floor,
        manifest=manifest,
        encoder=encoder,
    )


def _report(
    out_dir: Path, data: _Data, chosen: _Calibration, timing: dict[str, float]
) -> TrainReport:
    return TrainReport(
        out_dir=out_dir,
        classes=data.classes,
        method=chosen.method,
        threshold=chosen.threshold,
        side_effect_threshold=chosen.floor,
        n_train=len(data.train),
        n_val=len(data.val),
        val_metrics=chosen.val_metrics,
        side_effect_metrics=chosen.side_metrics,
        candidates=chosen.candidates,
        embed_s=timing["embed"],
        fit_s=timing["fit"],
        refit_s=timing["refit"],
        train_s=timing["total"],
        held_out_validation=data.held_out,
    )


def _candidate(
    score: np.ndarray,
    gold: list[str],
    predicted: list[str],
    oos_label: str,
    max_escalation: float,
    cv_folds: int,
    seed: int,
) -> dict[str, float | None]:
    """One method's threshold and figures on all validation lines, and cross-validated.

    The ``cv_`` figures are the honest ones (each fold measured with a threshold chosen
    on the other folds); the others are measured on the lines that chose the threshold.
    """
    is_oos = np.asarray([g == oos_label for g in gold])
    choice = select_threshold(score[~is_oos], score[is_oos], max_escalation=max_escalation)
    metrics = routing_metrics(
        gold, predicted, score <= choice.threshold, score, oos_label=oos_label
    )
    out: dict[str, float | None] = {"threshold": choice.threshold, **metrics}
    if cv_folds >= 2 and is_oos.any():
        cv = cross_validate(
            score,
            gold,
            predicted,
            oos_label=oos_label,
            max_escalation=max_escalation,
            k=cv_folds,
            seed=seed,
        )
        out.update({f"cv_{k}": v for k, v in cv.summary().items()})
        out["cv_oos_recall_lower"] = round(cv.lower("oos_recall"), 4)
    return out


def _choose(candidates: dict[str, dict[str, float | None]], names: list[str], has_oos: bool) -> str:
    """The method whose cross-validated OOS recall holds best (mean - std over folds),
    then AUROC, then in-scope accuracy; the default when validation has no OOS lines."""
    if not has_oos:
        return DEFAULT_METHOD if DEFAULT_METHOD in names else names[0]

    def rank(name: str) -> tuple[float, float, float]:
        m = candidates[name]
        lower = m.get("cv_oos_recall_lower")
        return (
            m["oos_recall"] or 0.0 if lower is None else lower,
            m.get("cv_oos_auroc_mean") or m["oos_auroc"] or 0.0,
            m.get("cv_in_scope_accuracy_mean") or m["in_scope_accuracy"] or 0.0,
        )

    return max(names, key=rank)


def _fit_softmax(
    x: np.ndarray, y: np.ndarray, n_classes: int, l2: float, seed: int, progress: bool
) -> SoftmaxHead:
    if not progress:
        return SoftmaxHead.fit(x, y, n_classes, l2=l2, seed=seed)
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("fitting", total=None)

        def on_epoch(epoch: int, total: int) -> None:
            bar.update(task, completed=epoch, total=total)

        return SoftmaxHead.fit(x, y, n_classes, l2=l2, seed=seed, on_epoch=on_epoch)
