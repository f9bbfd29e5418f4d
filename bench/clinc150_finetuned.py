"""CLINC150 out-of-scope detection with a fine-tuned encoder, beside the frozen winner (issue 30).

``bench/clinc150.py --compare`` cross-validates the frozen-encoder methods on CLINC150
validation: 5 stratified folds x 3 cuts (``understanding.intents.calibrate``), each fold's
threshold chosen on the other four at the 1% escalation budget, the fold scored with it.
This bench adds the one method that comparison left out: the joint trainer
(``understanding.slu.train_slu``), which fine-tunes the encoder, on intent-only lines.

Per fold, on the same folds as the frozen comparison:

* fine-tuned: ``train_slu`` on CLINC ``train`` (intent-only lines; ``oos_train`` as
  negatives: every intent's sigmoid is pushed to 0 on them), the other four folds as its
  validation data (best-state selection), no composed compounds; the INT8 model it saves
  scores every validation line (OOS score = 1 - the best intent's sigmoid); the threshold
  is chosen on the four folds with the frozen methods' rule (``select_threshold``) and
  the held-out fold is measured with it. The fold it is measured on never trains,
  selects or calibrates anything.
* frozen winner (``oos_class+0.5maha``, ``bench/clinc150_methods.py``): the same fold of
  the same cut, re-run here so the two stand on the same lines.

Fine-tuning is slow on a laptop's cores, so ``--folds`` picks which folds run (``C:F``:
cut C, fold F) and ``--max-minutes`` bounds each training; the figures are the mean and
std over the folds run. Prints a table; the LAST line is one JSON object.

Usage::

    python bench/clinc150_finetuned.py --data PATH [--folds 0:0,0:1] [--epochs 1]
        [--max-minutes 10] [--threads 2]

``--data examples/clinc150_sample.json`` is a smoke run on the 12-intent sample.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

WINNER = "oos_class+0.5maha"
K = 5


def parse_folds(text: str) -> list[tuple[int, int]]:
    """``"0:0,1:3"`` -> [(0, 0), (1, 3)] (cut, fold).

    >>> parse_folds("0:0, 2:4")
    [(0, 0), (2, 4)]
    """
    out = []
    for part in text.split(","):
        cut, _, fold = part.strip().partition(":")
        if not fold or not (0 <= int(fold) < K):
            raise ValueError(f"--folds: {part!r} is not CUT:FOLD with FOLD in 0..{K - 1}")
        out.append((int(cut), int(fold)))
    return out


def fold_metrics(
    score: np.ndarray,
    gold: Sequence[str],
    predicted: Sequence[str],
    test: np.ndarray,
    *,
    max_escalation: float,
    oos_label: str = "oos",
) -> dict[str, float | None]:
    """Threshold chosen on the lines outside ``test``, figures measured on ``test``: the
    rule of ``calibrate.cross_validate`` for one fold (AUROC on the fold's lines)."""
    from understanding.intents.evaluate import routing_metrics
    from understanding.intents.ood import select_threshold

    s = np.asarray(score, dtype=np.float64)
    gold_arr = np.asarray(gold, dtype=object)
    is_oos = gold_arr == oos_label
    tune = ~test
    choice = select_threshold(s[tune & ~is_oos], s[tune & is_oos], max_escalation=max_escalation)
    metrics = routing_metrics(
        list(gold_arr[test]),
        list(np.asarray(predicted, dtype=object)[test]),
        s[test] <= choice.threshold,
        s[test],
        oos_label=oos_label,
    )
    return {"threshold": choice.threshold, **metrics}


def finetuned_scores(
    train: Sequence[Any],
    val: Sequence[Any],
    tune: np.ndarray,
    *,
    epochs: float,
    max_seconds: float,
    threads: int,
    max_escalation: float,
    log: Callable[[str], None],
) -> tuple[np.ndarray, list[str], dict[str, Any]]:
    """Fine-tune on ``train`` (validation: the ``tune`` lines of ``val``) and score every
    ``val`` line with the saved INT8 model: OOS scores, top intents, training facts."""
    from understanding.slu.model import SluModel
    from understanding.slu.train import train_slu

    with tempfile.TemporaryDirectory() as tmp:
        report = train_slu(
            train,
            [u for u, t in zip(val, tune, strict=True) if t],
            Path(tmp),
            epochs=epochs,
            max_seconds=max_seconds,
            compose_ratio=0.0,
            max_escalation=max_escalation,
            threads=threads,
            log=log,
        )
        model = SluModel.load(Path(tmp), threads=threads)
        preds = [model.predict_words(u.words) for u in val]
    info = {"train_s": round(report.train_s, 1), "epochs_run": round(report.epochs_run, 2)}
    return np.asarray([p.oos_score for p in preds]), [p.top_intent for p in preds], info


def winner_scores(
    train: Sequence[Any], val: Sequence[Any], log: Callable[[str], None]
) -> tuple[np.ndarray, list[str]]:
    """The frozen winner's OOS score and top intent per ``val`` line (as ``--compare``)."""
    from clinc150_methods import combined, method_scores

    from understanding.encoder import Encoder

    encoder = Encoder.load(cache_size=0)
    in_train = [ex for ex in train if ex.intent != "oos"]
    classes = sorted({ex.intent for ex in in_train})
    index = {c: i for i, c in enumerate(classes)}
    scores, tops = method_scores(
        encoder.embed_layers_many([ex.text for ex in in_train]),
        np.asarray([index[ex.intent] for ex in in_train]),
        encoder.embed_layers_many([ex.text for ex in train if ex.intent == "oos"]),
        encoder.embed_layers_many([ex.text for ex in val]),
        len(classes),
        log=log,
    )
    in_rows = np.asarray([ex.intent != "oos" for ex in val])
    score = combined(scores, {"oos_class": 1.0, "mahalanobis": 0.5}, in_rows)
    return score, [classes[i] for i in tops[WINNER]]


def summarize(rows: list[dict[str, float | None]]) -> dict[str, float | None]:
    """Mean and std over the folds run (``calibrate.CrossValidation``)."""
    from understanding.intents.calibrate import CrossValidation

    return CrossValidation(rows).summary()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="CLINC150 data_full.json")
    parser.add_argument("--folds", default="0:0", help="CUT:FOLD,... (default 0:0)")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--max-minutes", type=float, default=10.0, help="per fold's training")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-escalation", type=float, default=0.01)
    parser.add_argument(
        "--budget-minutes",
        type=float,
        default=None,
        help="start no fold that the last one's duration says would end after this",
    )
    parser.add_argument("--out", type=Path, default=None, help="the JSON, after every fold")
    args = parser.parse_args(argv)
    try:
        folds = parse_folds(args.folds)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.data.is_file():
        print(f"error: {args.data}: no such file", file=sys.stderr)
        return 2

    from rich.console import Console
    from rich.table import Table

    from understanding.intents import load_examples
    from understanding.intents.calibrate import stratified_folds
    from understanding.slu.data import intent_only, split_words

    console = Console(width=120)
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        console.print(f"[{time.perf_counter() - t0:5.0f} s] {msg}")

    train = load_examples(args.data, "clinc", purpose="train")
    val = load_examples(args.data, "clinc", purpose="val")
    gold = [ex.intent for ex in val]
    train_u = [intent_only(split_words(ex.text), (ex.intent,), ex.where) for ex in train]
    val_u = [intent_only(split_words(ex.text), (ex.intent,), ex.where) for ex in val]
    log(f"frozen winner ({WINNER}) on {len(val)} validation lines")
    w_score, w_top = winner_scores(train, val, log)
    rows: dict[str, list[dict[str, float | None]]] = {"finetuned": [], WINNER: []}
    runs: list[dict[str, Any]] = []
    done: list[tuple[int, int]] = []
    for cut, fold in folds:
        elapsed = time.perf_counter() - t0
        last = runs[-1]["fold_s"] if runs else 0.0
        if args.budget_minutes is not None and runs and elapsed + last > args.budget_minutes * 60:
            log(
                f"stopping after {len(runs)} of {len(folds)} folds: another would end past "
                f"the budget of {args.budget_minutes:g} min"
            )
            break
        test = stratified_folds(gold, K, cut) == fold
        log(f"cut {cut} fold {fold}: fine-tuning ({int(test.sum())} lines held out)")
        f_score, f_top, info = finetuned_scores(
            train_u,
            val_u,
            ~test,
            epochs=args.epochs,
            max_seconds=args.max_minutes * 60.0,
            threads=args.threads,
            max_escalation=args.max_escalation,
            log=log,
        )
        for name, s, top in (("finetuned", f_score, f_top), (WINNER, w_score, w_top)):
            rows[name].append(fold_metrics(s, gold, top, test, max_escalation=args.max_escalation))
        fold_s = round(time.perf_counter() - t0 - elapsed, 1)
        runs.append({"cut": cut, "fold": fold, "fold_s": fold_s, **info})
        runs[-1].update({n: r[-1] for n, r in rows.items()})
        done.append((cut, fold))
        log(f"cut {cut} fold {fold}: {json.dumps(runs[-1])}")
        if args.out:
            args.out.write_text(json.dumps(_result(done, rows, runs, t0), indent=2) + "\n")

    table = Table(title=f"CLINC150 val, {len(done)} fold(s), {args.max_escalation:.1%} budget")
    for column in ("method", "in-scope acc", "OOS recall", "AUROC (fold)", "threshold"):
        table.add_column(column, justify="left" if column == "method" else "right")
    result = _result(done, rows, runs, t0)
    for name, f in result["methods"].items():
        table.add_row(
            name,
            f"{f['in_scope_accuracy_mean']:.4f} ± {f['in_scope_accuracy_std']:.4f}",
            f"{f['oos_recall_mean']:.3f} ± {f['oos_recall_std']:.3f}",
            f"{f['oos_auroc_mean']:.4f} ± {f['oos_auroc_std']:.4f}",
            f"{f['threshold_mean']:.4f} ± {f['threshold_std']:.4f}",
        )
    console.print(table)
    print(json.dumps(result))
    return 0


def _result(
    done: list[tuple[int, int]],
    rows: dict[str, list[dict[str, float | None]]],
    runs: list[dict[str, Any]],
    t0: float,
) -> dict[str, Any]:
    """The bench's JSON: the folds run, each method's mean and std over them, each fold."""
    return {
        "folds": [f"{c}:{k}" for c, k in done],
        "methods": {name: summarize(r) for name, r in rows.items()},
        "runs": runs,
        "wall_s": round(time.perf_counter() - t0, 1),
    }


if __name__ == "__main__":
    raise SystemExit(main())
