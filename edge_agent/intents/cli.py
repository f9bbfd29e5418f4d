"""Typer command functions ``train`` and ``eval_intents`` (registered by edge_agent.cli).

Errors print one line to stderr and exit with code 2 (bad input) or 1 (anything else).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from edge_agent.intents.data import OOS, infer_format, load_examples
from edge_agent.intents.errors import IntentDataError, IntentError, IntentModelError
from edge_agent.intents.evaluate import METRIC_KEYS, routing_metrics

__all__ = ["eval_intents", "train"]


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def train(
    data: Annotated[Path, typer.Option("--data", help="Labelled examples (JSON lines or CLINC).")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the model into.")],
    format: Annotated[
        str, typer.Option("--format", help="jsonl | clinc (auto: .json is clinc, else jsonl).")
    ] = "auto",
    val: Annotated[
        Path | None,
        typer.Option(
            "--val",
            help="Validation examples (jsonl). Default: CLINC's val split, or a "
            "stratified 20% held out of --data.",
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
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Train a router on your own labelled examples (out-of-scope ones labelled `oos`)."""
    started = time.perf_counter()
    try:
        fmt = infer_format(data, format)
        train_examples = load_examples(data, fmt, purpose="train")
        if val is not None:
            val_examples = load_examples(val, infer_format(val, None), purpose="val")
        elif fmt == "clinc":
            val_examples = load_examples(data, fmt, purpose="val")
        else:
            val_examples = None
    except IntentDataError as exc:
        raise _fail(str(exc), 2) from None
    from edge_agent.intents.train import train_model

    source: dict[str, Any] = {"data_file": data.name, "data_sha256": _file_sha256(data)}
    if val is not None:
        source.update({"val_file": val.name, "val_file_sha256": _file_sha256(val)})
    try:
        report = train_model(
            train_examples,
            val_examples,
            out,
            oos_label=oos_label,
            max_escalation=max_escalation,
            seed=seed,
            refit=refit,
            progress=not json_output,
            source=source,
            log=None if json_output else (lambda msg: typer.echo(msg, err=True)),
        )
    except IntentDataError as exc:
        raise _fail(str(exc), 2) from None
    except (IntentError, OSError, ValueError) as exc:
        raise _fail(str(exc), 1) from None
    total = time.perf_counter() - started
    result = {
        "out": str(report.out_dir),
        "classes": len(report.classes),
        "method": report.method,
        "threshold": report.threshold,
        "n_train": report.n_train,
        "n_val": report.n_val,
        "train_s": round(total, 2),
        "validation": report.val_metrics,
    }
    if json_output:
        typer.echo(json.dumps(result))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"validation ({report.n_val} examples), method {report.method}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in METRIC_KEYS:
        value = report.val_metrics.get(key)
        table.add_row(key, "n/a" if value is None else f"{value:.4f}")
    console = Console()
    console.print(table)
    console.print(f"saved {report.out_dir} in {total:.1f} s ({len(report.classes)} classes)")


def eval_intents(
    model: Annotated[Path, typer.Option("--model", help="Model folder from `edge-agent train`.")],
    data: Annotated[Path, typer.Option("--data", help="Labelled examples to evaluate on.")],
    format: Annotated[
        str,
        typer.Option(
            "--format", help="jsonl | clinc (clinc: test + oos_test, else val + oos_val)."
        ),
    ] = "auto",
    json_output: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
) -> None:
    """Evaluate a trained router: in-scope accuracy, OOS recall/precision/AUROC, escalation."""
    from edge_agent.intents.model import IntentModel

    try:
        examples = load_examples(data, format, purpose="eval")
    except IntentDataError as exc:
        raise _fail(str(exc), 2) from None
    try:
        router = IntentModel.load(model)
        feats = np.stack([_features(router, ex.text) for ex in examples])
    except IntentModelError as exc:
        raise _fail(str(exc), 2) from None
    except (IntentError, OSError, ValueError) as exc:
        raise _fail(str(exc), 1) from None
    batch = router.predict_features(feats)
    predicted = [router.in_scope_classes[i] for i in batch.top]
    metrics = routing_metrics(
        [ex.intent for ex in examples],
        predicted,
        batch.in_scope,
        batch.oos_score,
        oos_label=router.oos_label,
    )
    if json_output:
        typer.echo(json.dumps({k: metrics[k] for k in METRIC_KEYS}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{data.name}: {len(examples)} examples")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in METRIC_KEYS:
        value = metrics[key]
        table.add_row(key, "n/a" if value is None else f"{value:.4f}")
    Console().print(table)


def _features(router: Any, text: str) -> np.ndarray:
    from edge_agent.intents.model import features_from_layers

    out: np.ndarray = features_from_layers(router.encoder.embed_layers(text))
    return out
