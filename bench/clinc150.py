"""CLINC150 benchmark of the router trainer (issue 7).

Trains on ``train`` + ``oos_train``, chooses the OOS method and threshold on ``val`` +
``oos_val`` (validation only), then evaluates on the file it is given: by default the
same CLINC file, whose ``test`` + ``oos_test`` splits are used when present, else
``val`` + ``oos_val``: then the headline figures are the trainer's own on val, measured
with the heads that chose the threshold, before they were refitted on val (scoring the
refitted heads on val would be in-sample), and the JSON says so in ``eval_split``.

With ``--halves`` it also gives an honest estimate on validation data: val is split in two
stratified halves; a model is trained on train with one half as its validation data
(method, threshold, refit) and evaluated on the other half, both ways (embeddings are
computed once and shared). The trainer itself cross-validates the chosen method's
threshold over 5 folds of val (``cv``: mean and std of each figure, issue 30); with
``--compare`` every out-of-scope method is cross-validated the same way
(``bench/clinc150_methods.py``) and printed as a table.
The fine-tuned encoder (the joint trainer on intent-only lines) is compared on the same
folds by ``bench/clinc150_finetuned.py`` (one fine-tuning per fold: minutes each).

Prints a table, the training time (wall and CPU) and the per-query latency of
``IntentModel.predict`` (INT8 encoder + heads, one thread, distinct queries); the LAST line
is one JSON object: ``in_scope_accuracy``, ``oos_recall``, ``oos_precision``,
``oos_auroc``, ``escalated_in_scope``, ``oos_recall_side_effect`` and
``in_scope_accuracy_side_effect`` (at the side-effect floor), ``cv`` (the chosen method's
cross-validated figures), ``train_s``, ``train_cpu_s``, ``query_p50_ms`` (plus p95, the
encoder's own p50 on a 12-token query, the method, the evaluated split, and ``methods``
with ``--compare``).

Usage::

    python bench/clinc150.py --data PATH [--eval FILE] [--eval-format clinc|jsonl] [--out DIR]
        [--compare] [--halves]

``--data`` is CLINC150's ``data_full.json`` (clinc/oos-eval, CC BY 3.0; its train and val
splits), which the repository does not ship: pass its path. ``--data
examples/clinc150_sample.json`` runs the bench on the repository's 12-intent sample (a
smoke run, not the figures the README quotes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        required=True,
        help="CLINC150 data_full.json (train and val; not in the repository), "
        "or examples/clinc150_sample.json for a small run",
    )
    parser.add_argument("--eval", type=Path, default=None, help="default: --data")
    parser.add_argument("--eval-format", default="auto")
    parser.add_argument("--out", type=Path, default=None, help="keep the model here")
    parser.add_argument("--max-escalation", type=float, default=0.01)
    parser.add_argument("--latency-n", type=int, default=300)
    parser.add_argument("--no-refit", action="store_true")
    parser.add_argument("--halves", action="store_true", help="split-half estimate on val")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="cross-validate every out-of-scope method on val (bench/clinc150_methods.py)",
    )
    args = parser.parse_args(argv)

    import numpy as np
    from rich.console import Console
    from rich.table import Table

    from understanding.encoder import Encoder
    from understanding.intents import IntentModel, load_clinc, load_examples, train_model
    from understanding.intents.evaluate import METRIC_KEYS, routing_metrics
    from understanding.intents.model import features_from_layers

    console = Console(stderr=False, width=120)
    if not args.data.is_file():
        print(f"error: {args.data}: no such file", file=sys.stderr)
        return 2
    train = load_examples(args.data, "clinc", purpose="train")
    val = load_examples(args.data, "clinc", purpose="val")
    eval_path = args.eval or args.data
    eval_examples = load_examples(eval_path, args.eval_format, purpose="eval")
    eval_split = "given file"
    if eval_path.suffix == ".json":
        eval_split = (
            "test"
            if "test" in load_clinc(eval_path, ["test"])
            else "val (tuning set, and refit data unless --no-refit)"
        )

    encoder = Encoder.load(cache_size=0)
    # Embeds each line once (timed inside train_s); --compare and --halves reuse them.
    cached = _CachedEncoder(encoder)
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "model"
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        report = train_model(
            train,
            val,
            out,
            encoder=cached,
            max_escalation=args.max_escalation,
            progress=True,
            log=lambda msg: console.print(f"[{time.perf_counter() - t0:5.0f} s] {msg}"),
        )
        train_s = time.perf_counter() - t0
        train_cpu_s = time.process_time() - cpu0
        model = IntentModel.load(out, encoder=encoder)

    feats = features_from_layers(encoder.embed_layers_many([ex.text for ex in eval_examples]))
    batch = model.predict_features(feats)
    metrics = routing_metrics(
        [ex.intent for ex in eval_examples],
        [model.in_scope_classes[i] for i in batch.top],
        batch.in_scope,
        batch.oos_score,
        oos_label=model.oos_label,
    )

    # Latency: the whole decision for one query, text in, prediction out.
    queries = list(dict.fromkeys(ex.text for ex in eval_examples))[: args.latency_n]
    for text in queries[:20]:
        model.predict(text)
    times = []
    for text in queries:
        start = time.perf_counter()
        model.predict(text)
        times.append((time.perf_counter() - start) * 1000.0)
    p50 = statistics.median(times)
    p95 = float(np.percentile(times, 95))
    # The encoder alone on one fixed 12-token query (10 word pieces + [CLS] + [SEP]).
    probe = "set a timer for ten minutes in the kitchen please"
    enc_times = []
    for _ in range(300):
        start = time.perf_counter()
        encoder.embed_layers(probe)
        enc_times.append((time.perf_counter() - start) * 1000.0)
    enc_p50 = statistics.median(enc_times[20:])

    headline = metrics
    if eval_split.startswith("val") and eval_path == args.data and not args.no_refit:
        # The refitted heads have trained on val: scoring them on it would be in-sample.
        # Report what the trainer measured on val before the refit (the figures that
        # chose the threshold) instead; --halves gives an estimate free of both biases.
        headline = dict(report.val_metrics)
        eval_split = "val (pre-refit heads, threshold chosen on it)"
    in_sample = headline is not metrics
    table = Table(title=f"CLINC150 router, evaluated on {eval_split} ({len(eval_examples)})")
    table.add_column("metric")
    table.add_column("validation (tuning)", justify="right")
    table.add_column(
        "refit heads (in-sample: not a measure)" if in_sample else "evaluation", justify="right"
    )
    for key in METRIC_KEYS:
        v, e = report.val_metrics.get(key), metrics[key]
        table.add_row(key, "n/a" if v is None else f"{v:.4f}", "n/a" if e is None else f"{e:.4f}")
    console.print(table)
    console.print(
        f"method {report.method}, threshold {report.threshold:.4f}, "
        f"{len(report.classes)} classes; train {train_s:.1f} s ({train_cpu_s:.0f} CPU-s) "
        f"(embed {report.embed_s:.1f} s, fit {report.fit_s:.1f} s); "
        f"query p50 {p50:.2f} ms, p95 {p95:.2f} ms (one thread); "
        f"encoder alone, 12 tokens: p50 {enc_p50:.2f} ms"
    )
    halves: dict[str, float | None] = {}
    if args.halves:
        halves = split_half_estimate(train, val, cached, args.max_escalation, not args.no_refit)
        console.print(
            "split-half estimate on val (choose on one half, evaluate on the other): "
            + ", ".join(f"{k} {v:.4f}" for k, v in halves.items() if v is not None)
        )
    chosen = report.candidates.get(report.method, {})
    cv = {k[3:]: v for k, v in chosen.items() if k.startswith("cv_")}
    if cv:
        console.print(
            f"method {report.method}, cross-validated on val (5 folds, threshold chosen on "
            f"four): in-scope accuracy {cv['in_scope_accuracy_mean']:.4f} ± "
            f"{cv['in_scope_accuracy_std']:.4f}, OOS recall {cv['oos_recall_mean']:.4f} ± "
            f"{cv['oos_recall_std']:.4f}, threshold {cv['threshold_mean']:.4f} ± "
            f"{cv['threshold_std']:.4f}"
        )
    side = report.side_effect_metrics
    console.print(
        f"side-effect floor {report.side_effect_threshold:.4f} (val, pre-refit): "
        + ", ".join(f"{k} {side[k]:.4f}" for k in METRIC_KEYS if side.get(k) is not None)
    )
    methods = (
        compare_methods(train, val, cached, args.max_escalation, console) if args.compare else {}
    )
    result = {k: headline[k] for k in METRIC_KEYS}
    result["oos_recall_side_effect"] = side.get("oos_recall")
    result["in_scope_accuracy_side_effect"] = side.get("in_scope_accuracy")
    result["cv"] = cv
    result.update(
        {
            "train_s": round(train_s, 2),
            "train_cpu_s": round(train_cpu_s, 2),
            "query_p50_ms": round(p50, 3),
            "query_p95_ms": round(p95, 3),
            "encoder_12tok_p50_ms": round(enc_p50, 3),
            "method": report.method,
            "eval_split": eval_split,
            "n_eval": len(eval_examples),
            "refit": not args.no_refit,
        }
    )
    if halves:
        result["val_split_half"] = halves
    if methods:
        result["methods"] = methods
    print(json.dumps(result))
    return 0


class _CachedEncoder:
    """Wraps an Encoder so that the split-half runs embed each text once."""

    def __init__(self, encoder: Any) -> None:
        self._encoder = encoder
        self.model_path = encoder.model_path
        self.precision = encoder.precision
        self._cache: dict[str, Any] = {}

    def manifest(self) -> dict[str, Any]:
        return dict(self._encoder.manifest())

    def embed_layers(self, text: str) -> Any:
        if text not in self._cache:
            self._cache[text] = self._encoder.embed_layers(text)
        return self._cache[text]

    def embed_layers_many(self, texts: list[str], progress: bool = False) -> Any:
        import numpy as np

        return np.stack([self.embed_layers(t) for t in texts])


def compare_methods(
    train: list[Any], val: list[Any], cached: Any, max_escalation: float, console: Any
) -> dict[str, dict[str, float | None]]:
    """Every out-of-scope method, cross-validated on val (see bench/clinc150_methods.py)."""
    import numpy as np
    from clinc150_methods import METHOD_NAMES, compare, method_scores
    from rich.table import Table

    in_train = [ex for ex in train if ex.intent != "oos"]
    classes = sorted({ex.intent for ex in in_train})
    index = {c: i for i, c in enumerate(classes)}
    scores, tops = method_scores(
        cached.embed_layers_many([ex.text for ex in in_train]),
        np.asarray([index[ex.intent] for ex in in_train]),
        cached.embed_layers_many([ex.text for ex in train if ex.intent == "oos"]),
        cached.embed_layers_many([ex.text for ex in val]),
        len(classes),
        log=console.print,
    )
    figures = compare(
        scores, tops, [ex.intent for ex in val], classes, max_escalation=max_escalation
    )
    table = Table(title=f"OOS methods on CLINC150 val, 3 x 5 folds, {max_escalation:.1%} budget")
    for column in ("method", "in-scope acc", "OOS recall", "mean - std", "threshold", "AUROC"):
        table.add_column(column, justify="left" if column == "method" else "right")
    for name in METHOD_NAMES:
        f = figures[name]
        table.add_row(
            name,
            f"{f['in_scope_accuracy_mean']:.4f} ± {f['in_scope_accuracy_std']:.4f}",
            f"{f['oos_recall_mean']:.3f} ± {f['oos_recall_std']:.3f}",
            f"{f['oos_recall_lower']:.3f}",
            f"{f['threshold_mean']:.4f} ± {f['threshold_std']:.4f}",
            f"{f['oos_auroc']:.4f}",
        )
    console.print(table)
    return figures


def split_half_estimate(
    train: list[Any], val: list[Any], encoder: Any, max_escalation: float, refit: bool
) -> dict[str, float | None]:
    """Mean metrics over both directions of a stratified split of val in two halves."""
    from understanding.intents import IntentModel, train_model
    from understanding.intents.data import stratified_split
    from understanding.intents.evaluate import METRIC_KEYS, routing_metrics
    from understanding.intents.model import features_from_layers

    cached = encoder if isinstance(encoder, _CachedEncoder) else _CachedEncoder(encoder)
    half_a, half_b = stratified_split(val, 0.5, seed=0)
    runs = []
    for tune, test in ((half_a, half_b), (half_b, half_a)):
        with tempfile.TemporaryDirectory() as tmp:
            train_model(
                train,
                tune,
                Path(tmp),
                encoder=cached,
                max_escalation=max_escalation,
                refit=refit,
            )
            model = IntentModel.load(Path(tmp), encoder=cached)
        feats = features_from_layers(cached.embed_layers_many([ex.text for ex in test]))
        batch = model.predict_features(feats)
        runs.append(
            routing_metrics(
                [ex.intent for ex in test],
                [model.in_scope_classes[i] for i in batch.top],
                batch.in_scope,
                batch.oos_score,
                oos_label=model.oos_label,
            )
        )
    out: dict[str, float | None] = {}
    for key in METRIC_KEYS:
        values = [r[key] for r in runs if r[key] is not None]
        out[key] = round(sum(values) / len(values), 4) if values else None
    return out


if __name__ == "__main__":
    raise SystemExit(main())
