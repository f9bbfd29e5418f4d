"""Typer command functions ``train`` and ``eval_intents`` (registered by edge_agent.cli).

Errors print one line to stderr and exit with code 2 (bad input) or 1 (anything else).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import numpy as np
import typer

from edgeloop.console import fail
from understanding.intents.data import OOS, load_examples
from understanding.intents.errors import IntentDataError, IntentError, IntentModelError
from understanding.intents.evaluate import METRIC_KEYS

__all__ = ["eval_intents", "train"]


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _source(data: Path, val: Path | None, **extra: str) -> dict[str, Any]:
    """What a trained model records of its data: the files' names and SHA-256."""
    source: dict[str, Any] = {"data_file": data.name, "data_sha256": _file_sha256(data), **extra}
    if val is not None:
        source.update({"val_file": val.name, "val_file_sha256": _file_sha256(val)})
    return source


def train(
    data: Annotated[Path, typer.Option("--data", help="Labelled examples (JSON lines or CLINC).")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the model into.")],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl | snips | slurp | clinc, for --data and --val (auto: .json is "
            "clinc, .txt snips, else jsonl).",
        ),
    ] = "auto",
    val: Annotated[
        Path | None,
        typer.Option(
            "--val",
            help="Validation examples (same format). Default: CLINC's val split, or a "
            "stratified share held out of --data.",
        ),
    ] = None,
    oos_label: Annotated[
        str, typer.Option("--oos-label", help="Label of out-of-scope examples.")
    ] = OOS,
    max_escalation: Annotated[
        float,
        typer.Option(
            "--max-escalation",
            help="Share of in-scope validation queries the threshold may send to the cloud.",
        ),
    ] = 0.01,
    side_effect_escalation: Annotated[
        float,
        typer.Option(
            "--side-effect-escalation",
            help="Share of in-scope validation queries the side-effect floor may send to "
            "the cloud: your tools with side effects run only on queries that clear this "
            "stricter floor (intents-only models; a slot model's threshold serves as its "
            "floor).",
        ),
    ] = 0.05,
    refit: Annotated[
        bool,
        typer.Option(
            "--refit/--no-refit",
            help="After choosing the threshold on validation data, refit the heads on "
            "training + validation examples (keeping the threshold).",
        ),
    ] = True,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed for the held-out split and the head.")
    ] = 0,
    epochs: Annotated[
        float | None,
        typer.Option(
            "--epochs",
            help="Slot model: most passes over the data (default 2, more for a small file).",
        ),
    ] = None,
    max_minutes: Annotated[
        float | None,
        typer.Option("--max-minutes", help="Slot model: stop training after this long."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Train a router on your own labelled examples (out-of-scope ones labelled `oos`).

    Data with slots (or several intents in one line) trains the joint intent + slot
    model (needs the train extra); intents-only data trains intent heads over the
    frozen encoder.
    """
    started = time.perf_counter()
    try:
        fmt, joint, train_lines, val_lines = _read_data(data, val, format)
    except IntentDataError as exc:
        raise fail(str(exc), 2) from None
    job = _Job(
        data,
        val,
        out,
        oos_label,
        (max_escalation, side_effect_escalation),
        seed,
        json_output,
        started,
    )
    if joint:
        _train_joint(job, train_lines, val_lines, fmt, epochs, max_minutes)
    else:
        _train_heads(job, train_lines, val_lines, refit)


class _Job(NamedTuple):
    """What both trainers are given: the files, the out-of-scope label, the escalation
    budgets (threshold, side-effect floor), the seed, the output and when it started."""

    data: Path
    val: Path | None
    out: Path
    oos_label: str
    escalations: tuple[float, float]
    seed: int
    json_output: bool
    started: float


def _read_data(
    data: Path, val: Path | None, format: str
) -> tuple[str, bool, list[Any], list[Any] | None]:
    """The data's format, whether it trains the joint intent + slot model (it has slots,
    or several intents in one line), and its training and validation lines: utterances
    for the joint model, examples for the intent heads (no validation lines: None)."""
    from understanding.slu.data import infer_format as slu_format
    from understanding.slu.data import read_utterances

    fmt = slu_format(data, format)
    if fmt != "clinc":
        utterances = read_utterances(data, fmt, purpose="train")
        if any(u.has_slots or len(u.intents) > 1 for u in utterances):
            val_utts = read_utterances(val, fmt, purpose="val") if val else None
            return fmt, True, utterances, val_utts
    val_examples: list[Any] | None
    if fmt in ("snips", "slurp"):
        from understanding.intents.data import Example

        train_examples = [Example(u.text, u.intents[0], u.where) for u in utterances]
        val_examples = (
            [
                Example(u.text, u.intents[0], u.where)
                for u in read_utterances(val, fmt, purpose="val")
            ]
            if val is not None
            else None
        )
    else:
        train_examples = load_examples(data, fmt, purpose="train")
        if val is not None:
            val_examples = load_examples(val, fmt, purpose="val")
        elif fmt == "clinc":
            val_examples = load_examples(data, fmt, purpose="val")
        else:
            val_examples = None
    return fmt, False, train_examples, val_examples


def _train_joint(
    job: _Job,
    utterances: list[Any],
    val_utts: list[Any] | None,
    fmt: str,
    epochs: float | None,
    max_minutes: float | None,
) -> None:
    """Fine-tune the joint intent + slot model and print its validation figures."""
    data, val, out, oos_label, escalations, seed, json_output, started = job
    from understanding.slu.metrics import SLU_METRIC_KEYS
    from understanding.slu.train import train_slu

    source = _source(data, val, format=fmt)
    try:
        report = train_slu(
            utterances,
            val_utts,
            out,
            oos_label=oos_label,
            epochs=epochs,
            max_seconds=None if max_minutes is None else max_minutes * 60.0,
            max_escalation=escalations[0],
            seed=seed,
            source=source,
            log=None if json_output else (lambda msg: typer.echo(msg, err=True)),
        )
    except IntentDataError as exc:
        raise fail(str(exc), 2) from None
    except (IntentError, OSError, ValueError, RuntimeError) as exc:
        raise fail(str(exc), 1) from None
    total = time.perf_counter() - started
    result = {
        "out": str(report.out_dir),
        "model": "joint intent + slot",
        "intents": len(report.intents),
        "slot_tags": len(report.tags),
        "n_train": report.n_train,
        "n_val": report.n_val,
        "epochs": round(report.epochs_run, 2),
        "train_s": round(total, 2),
        "int8_vs_fp32": report.int8_agreement,
        "validation": report.val_metrics,
    }
    if json_output:
        typer.echo(json.dumps(result))
        return
    keys = [*SLU_METRIC_KEYS, *(k for k in METRIC_KEYS if k in report.val_metrics)]
    _print_table(f"validation ({report.n_val} utterances)", keys, report.val_metrics)
    typer.echo(f"saved {report.out_dir} in {total:.1f} s ({len(report.intents)} intents)")


def _print_table(title: str, keys: Any, values: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in keys:
        value = values.get(key)
        table.add_row(key, "n/a" if value is None else f"{value:.4f}")
    Console().print(table)


def _train_heads(
    job: _Job, train_examples: list[Any], val_examples: list[Any] | None, refit: bool
) -> None:
    """Intent heads over the frozen encoder (intents-only data)."""
    data, val, out, oos_label, escalations, seed, json_output, started = job
    from understanding.intents.train import train_model

    source = _source(data, val)
    stage = ["loading the encoder"]

    def log(message: str) -> None:
        stage[0] = message
        if not json_output:
            typer.echo(f"[{time.perf_counter() - started:5.0f} s] {message}", err=True)

    try:
        report = train_model(
            train_examples,
            val_examples,
            out,
            oos_label=oos_label,
            max_escalation=escalations[0],
            side_effect_escalation=escalations[1],
            seed=seed,
            refit=refit,
            progress=not json_output,
            source=source,
            log=log,
        )
    except IntentDataError as exc:
        raise fail(str(exc), 2) from None
    except (IntentError, OSError, ValueError) as exc:
        raise fail(str(exc), 1) from None
    except (KeyboardInterrupt, MemoryError) as exc:
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "out of memory"
        elapsed = time.perf_counter() - started
        raise fail(
            f"training stopped early: {why} at '{stage[0]}' after {elapsed:.0f} s; "
            f"no model was saved to {out}",
            1,
        ) from None
    total = time.perf_counter() - started
    cv = report.candidates.get(report.method, {})
    result = {
        "out": str(report.out_dir),
        "classes": len(report.classes),
        "method": report.method,
        "threshold": report.threshold,
        "side_effect_threshold": report.side_effect_threshold,
        "n_train": report.n_train,
        "n_val": report.n_val,
        "train_s": round(total, 2),
        "validation": report.val_metrics,
        "validation_side_effect": report.side_effect_metrics,
        "cross_validation": {k[3:]: v for k, v in cv.items() if k.startswith("cv_")},
    }
    if json_output:
        typer.echo(json.dumps(result))
        return
    title = f"validation ({report.n_val} examples), method {report.method}"
    _print_table(title, METRIC_KEYS, report.val_metrics)
    _print_table("at the side-effect floor", METRIC_KEYS, report.side_effect_metrics)
    from rich.console import Console

    if cv.get("cv_oos_recall_mean") is not None:
        Console().print(
            f"cross-validated over folds of the validation lines: OOS recall "
            f"{cv['cv_oos_recall_mean']:.3f} ± {cv['cv_oos_recall_std']:.3f}, in-scope "
            f"accuracy {cv['cv_in_scope_accuracy_mean']:.3f} ± "
            f"{cv['cv_in_scope_accuracy_std']:.3f}"
        )
    Console().print(f"saved {report.out_dir} in {total:.1f} s ({len(report.classes)} classes)")


def eval_intents(
    model: Annotated[Path, typer.Option("--model", help="Model folder from `edge-agent train`.")],
    data: Annotated[Path, typer.Option("--data", help="Labelled examples to evaluate on.")],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl | snips | slurp | clinc (clinc: test + oos_test, else val + oos_val).",
        ),
    ] = "auto",
    json_output: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
) -> None:
    """Evaluate a trained model: intent accuracy, slot F1, exact match, and the routing
    figures (in-scope accuracy, OOS recall/precision/AUROC, escalation) on OOS data."""
    from understanding.slu.data import read_utterances
    from understanding.slu.evaluate import EVAL_KEYS, evaluate_heads, evaluate_joint
    from understanding.slu.model import SluModel

    try:
        utterances = read_utterances(data, format, purpose="eval")
    except IntentDataError as exc:
        raise fail(str(exc), 2) from None
    try:
        if SluModel.is_model_dir(model):
            metrics = evaluate_joint(SluModel.load(model), utterances)
        else:
            from understanding.intents.model import IntentModel

            metrics = evaluate_heads(IntentModel.load(model), utterances)
    except IntentModelError as exc:
        raise fail(str(exc), 2) from None
    except (IntentError, OSError, ValueError) as exc:
        raise fail(str(exc), 1) from None
    if json_output:
        typer.echo(json.dumps({k: metrics[k] for k in EVAL_KEYS}))
        return
    _print_table(f"{data.name}: {len(utterances)} examples", EVAL_KEYS, metrics)


def _features(router: Any, text: str) -> np.ndarray:
    from understanding.intents.model import features_from_layers

    out: np.ndarray = features_from_layers(router.encoder.embed_layers(text))
    return out
