"""Joint intent + slot benchmark (issue 11): SNIPS and MixSNIPS-clean.

Trains the joint model with the trainer users run (``edge-agent train --format snips``:
SNIPS train, SNIPS dev as validation), then prints, one utterance at a time as the
device runs them:

* intent accuracy, slot F1 (conlleval) and exact match on SNIPS dev and on
  MixSNIPS-clean dev (utterances of one to three intents, never seen in training: the
  trainer composes its own multi-intent examples from SNIPS train);
* training seconds (wall clock, as the machine gave them);
* where MixSNIPS-clean's exact match goes (:mod:`understanding.slu.error_analysis`: its compounds
  are SNIPS dev requests joined, so each miss is a wrong set of intents, a slot across
  two requests, a request the model also misses alone, or one it reads right alone but
  not in the compound), and the exact match if every request were read as alone;
* the decision's p50 (``SluModel.predict``: tokenise, one ``session.run``, decoding)
  beside the bare INT8 encoder's p50 (``Encoder.embed``) on the same utterances, one
  thread each, alternating, and their ratio.

SNIPS dev chose the training's stopping point, so its figures are validation figures;
MixSNIPS-clean dev played no part in training. The held-out test splits are not read.

The LAST line is one JSON object with ``snips_intent_accuracy``, ``snips_slot_f1``,
``snips_exact_match``, ``mixsnips_intent_accuracy``, ``mixsnips_slot_f1``,
``mixsnips_exact_match``, ``train_s``, ``train_cpu_s`` (the trainer's CPU time: one
torch thread, so the wall clock of an otherwise idle core), ``decision_p50_ms``, ``encoder_p50_ms``,
``decision_over_encoder``, ``mixsnips_errors`` (each class's share of MixSNIPS-clean
dev) and ``mixsnips_parts_alone_exact_match``.

Usage::

    python bench/slu.py --data-dir DIR [--out DIR] [--epochs 2]
                        [--max-minutes 14] [--model DIR  (reuse a trained model)]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        required=True,
        help="a folder with SNIPS train.txt and dev.txt and MixSNIPS mixsnips_clean_dev.txt "
        "(the multi-intent literature's layout; not shipped with edgeloop)",
    )
    parser.add_argument("--out", type=Path, default=None, help="where the model goes")
    parser.add_argument("--model", type=Path, default=None, help="reuse this trained model")
    parser.add_argument("--epochs", type=float, default=None, help="default: the trainer's")
    parser.add_argument("--max-minutes", type=float, default=14.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--latency-n", type=int, default=300)
    args = parser.parse_args(argv)

    from understanding.encoder import Encoder
    from understanding.slu.data import read_utterances
    from understanding.slu.error_analysis import ERROR_CLASSES, Reading, error_class, segment
    from understanding.slu.evaluate import evaluate_joint
    from understanding.slu.model import SluModel

    train_file = args.data_dir / "train.txt"
    dev_file = args.data_dir / "dev.txt"
    mix_file = args.data_dir / "mixsnips_clean_dev.txt"
    dev = read_utterances(dev_file, "snips")
    mix = read_utterances(mix_file, "snips")

    tmp = tempfile.TemporaryDirectory()
    if args.model is not None:
        model_dir = args.model
        manifest = json.loads((model_dir / "manifest.json").read_text("utf-8"))
        train_s = float(manifest["timing_s"]["total"])
    else:
        from understanding.slu.train import train_slu

        model_dir = args.out or Path(tmp.name) / "snips"
        started = time.perf_counter()
        train_slu(
            read_utterances(train_file, "snips"),
            dev,
            model_dir,
            epochs=args.epochs,
            max_seconds=args.max_minutes * 60.0,
            threads=args.threads,
            source={"data_file": train_file.name, "val_file": dev_file.name},
            log=lambda m: print(m, file=sys.stderr, flush=True),
        )
        train_s = time.perf_counter() - started

    model = SluModel.load(model_dir)
    train_cpu_s = float(model.manifest.get("timing_s", {}).get("cpu", 0.0))
    snips = evaluate_joint(model, dev)
    mixed = evaluate_joint(model, mix)

    def reading(words: tuple[str, ...]) -> Reading:
        p = model.predict_words(words)
        return Reading(p.intents if p.in_scope else (model.oos_label,), p.tags)

    singles = {u.words: u for u in dev}
    alone = {words: reading(words).right_for(u) for words, u in singles.items()}
    classes = dict.fromkeys(ERROR_CLASSES, 0)
    parts_alone = 0
    for u in mix:
        parts = segment(u, singles)
        right_alone = [alone[p.words] for _, _, p in parts or []]
        classes[error_class(u, parts, reading(u.words), right_alone)] += 1
        parts_alone += bool(parts) and all(right_alone)

    encoder = Encoder.load(cache_size=0)  # every call runs the encoder, as the decision does
    texts = [u.words for u in dev[: args.latency_n]]
    for words in texts[:20]:  # warm both sessions
        model.predict_words(words)
        encoder.embed(" ".join(words))
    decision_ms: list[float] = []
    encoder_ms: list[float] = []
    for words in texts:
        t0 = time.perf_counter()
        model.predict(" ".join(words))
        t1 = time.perf_counter()
        encoder.embed(" ".join(words))
        t2 = time.perf_counter()
        decision_ms.append((t1 - t0) * 1000)
        encoder_ms.append((t2 - t1) * 1000)
    decision_p50 = statistics.median(decision_ms)
    encoder_p50 = statistics.median(encoder_ms)

    print(f"{'split':<22}{'intent acc':>12}{'slot F1':>10}{'exact':>10}{'n':>7}")
    for name, m, n in (("SNIPS dev", snips, len(dev)), ("MixSNIPS-clean dev", mixed, len(mix))):
        print(
            f"{name:<22}{m['intent_accuracy'] or 0:>12.4f}{m['slot_f1'] or 0:>10.4f}"
            f"{m['exact_match'] or 0:>10.4f}{n:>7}"
        )
    print(f"\nMixSNIPS-clean dev {'class':<16}{'share':>8}{'n':>7}")
    for name, count in classes.items():
        print(f"{'':<19}{name:<16}{count / len(mix):>8.4f}{count:>7}")
    print(f"exact match if every request were read as alone: {parts_alone / len(mix):.4f}\n")
    print(
        f"training: {train_s:.0f} s; decision p50 {decision_p50:.2f} ms, bare encoder p50 "
        f"{encoder_p50:.2f} ms (x{decision_p50 / encoder_p50:.2f})"
    )
    result = {
        "snips_intent_accuracy": snips["intent_accuracy"],
        "snips_slot_f1": snips["slot_f1"],
        "snips_exact_match": snips["exact_match"],
        "mixsnips_intent_accuracy": mixed["intent_accuracy"],
        "mixsnips_slot_f1": mixed["slot_f1"],
        "mixsnips_exact_match": mixed["exact_match"],
        "train_s": round(train_s, 1),
        "train_cpu_s": round(train_cpu_s, 1),
        "decision_p50_ms": round(decision_p50, 3),
        "encoder_p50_ms": round(encoder_p50, 3),
        "decision_over_encoder": round(decision_p50 / encoder_p50, 3),
        "mixsnips_errors": {k: round(v / len(mix), 4) for k, v in classes.items()},
        "mixsnips_parts_alone_exact_match": parts_alone / len(mix),
    }
    tmp.cleanup()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
