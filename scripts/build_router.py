"""Train the shipped router and calibrate its confidence threshold.

One path: the shipped router is trained by the same trainer as ``edge-agent train``
(``understanding.intents.train_model``) on the project's own training set
(``understanding/data/router_train.jsonl``, written by ``scripts/build_router_data.py``),
into ``understanding/models/router/``. Then the confidence threshold of the route decision
is calibrated on the validation set: among the thresholds whose cloud recall (share of
``oos`` rows the full decision sends to the cloud) is at least ``--min-cloud-recall``,
the lowest whose route accuracy is within half a point of the best. It is written to ``router.json``
next to the model with the figures that chose it.

With ``--joint`` it trains the joint intent + slot model instead (``understanding.slu``,
needs the train extra): on a deterministic selection of the project's own lines plus
SLURP's development split mapped to the device's intents, both halves
(``understanding/data/slurp_train.jsonl`` and ``slurp_measure_train.jsonl``, written by
``scripts/build_slurp_data.py``, slots inline). ``--slurp HALF`` trains on one half only:
a fold of the two-fold cross-validation, measured on the other half's eval file, whose
utterances it keeps out of training and validation (``measured_halves``);
``--selection DIR`` writes such a build's selection files elsewhere. The selection is
written to ``router_joint_train.jsonl`` / ``router_joint_val.jsonl``; more cloud lines
come from CLINC150 (``understanding/data/clinc_cloud.jsonl``, written by
``scripts/build_clinc_cloud.py``).
``--device understanding/data/clinc_device.jsonl`` adds CLINC150's requests for the device's
own tools, intent-only (``"slots": null``: they train the intents, never the tagger;
written by ``scripts/build_clinc_device.py``); the shipped router's build leaves them out
(neither build with them passed the bars to ship: docs/edge.md, "CLINC150's device
lines").
Tools with side effects (a timer, a device command, a note) get their own, higher
threshold (``action_threshold``), chosen on the validation lines where a false action
costs ``FALSE_ACTION_COST`` actions sent to the cloud.

Usage: ``python scripts/build_router.py [--joint [--slurp HALF ...]] [--out DIR]``
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import sys
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from understanding.slu.data import Joints

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "understanding" / "data"
TOLERANCE = 0.005
# The joint selection: so many of the project's lines per intent (a few thousand in all,
# so a CPU fine-tune takes minutes), every SLURP training line twice
# (they are few and are the phrasing the device meets), and a share of them validating.
OWN_PER_INTENT = {"oos": 1000, "smalltalk": 150}
OWN_PER_TOOL = 380
OWN_VAL_PER_INTENT = {"oos": 150, "smalltalk": 20, "compound": 40}
OWN_VAL_PER_TOOL = 40
SLURP_VAL_SHARE = 20  # percent of the SLURP training lines kept for validation
# SLURP's development split in two halves by a hash of the text
# (scripts/build_slurp_data.py): each half's training lines -> the same utterances in the
# edge eval format. A build trained on one half is measured on the other (two-fold
# cross-validation); the shipped router is trained on both.
SLURP_HALVES = {
    DATA / "slurp_train.jsonl": DATA / "slurp_train_eval.jsonl",
    DATA / "slurp_measure_train.jsonl": DATA / "slurp_measure.jsonl",
}
# The shipped router's build trains on both halves (SLURP's whole development split): its
# SLURP figure is the two folds' mean (docs/edge.md, "SLURP's whole development split").
SHIPPED_SLURP = list(SLURP_HALVES)
# HWU64's mapped sentences (slots inline) and SLURP's extra training sentences (intents
# only), written by scripts/build_hwu64_data.py: neither holds a sentence of SLURP's devel
# or test split.
HWU64 = DATA / "hwu64_train.jsonl"
SLURP_EXTRA = DATA / "slurp_extra_train.jsonl"
# Hand-written held-out sets: measured on, never trained on.
HELD_OUT = [ROOT / "examples" / "understanding_heldout.jsonl"]
# SNIPS's training split mapped by scripts/build_snips_data.py: so many lines of each kind
# train (its weather requests, its weather requests for days the forecast does not serve,
# and each of its six other intents, all three of the last ``oos``) and validate.
SNIPS_VAL_SHARE = 20
SNIPS_PER_KIND = {"get_weather": 300, "weather_oos": 150}
SNIPS_PER_OTHER = 40
SNIPS_VAL_PER_KIND = {"get_weather": 60, "weather_oos": 30}
SNIPS_VAL_PER_OTHER = 10
# Every hyperparameter the joint router's training relies on, pinned here: the trainer's
# defaults serve `edge-agent train` users and may change (for SNIPS, say); the shipped
# router must rebuild the same from the same lines. Its composed utterances join their
# requests by "and", "and then" or a comma, each joint drawn alone (the trainer's
# composer before MixSNIPS's joints became its default), and it learns no CRF over the
# slot tags: both chosen on the validation lines (docs/edge.md, "Reproducibility").
ROUTER_JOINTS = Joints(
    last=(("and",), ("and", "then"), (",",)), loose=(), loose_share=0.0, earlier=None
)
JOINT_TRAINING: dict[str, Any] = {
    "epochs": 2.0,
    "compose_ratio": 0.5,
    "joints": ROUTER_JOINTS,
    "alone_ratio": 1.0,
    "batch_size": 32,
    "lr": 1e-4,
    "head_lr": 1e-3,
    "crf_lr": 1e-2,
    "crf": False,
    "patience": 2,
    "evals_per_epoch": 2,
    "max_escalation": 0.01,
    "seed": 0,
    "threads": 1,
    "max_seconds": None,
}
# A false action (a timer, a device command, a note nobody asked for) counts as so many
# actions sent to the cloud when the action bar is chosen.
FALSE_ACTION_COST = 5
THRESHOLDS = [round(0.30 + 0.025 * i, 3) for i in range(27)]  # 0.30 .. 0.95


_SLOT = re.compile(r"\[\s*[^\[\]:]+?\s*:\s*([^\[\]]*?)\s*\]")


def read_rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def plain_text(text: str) -> str:
    """The words as said: inline slots ``[type : words]`` without their marks."""
    return " ".join(_SLOT.sub(r"\1", text).split())


def is_compound(row: dict[str, str]) -> bool:
    """Several requests in one line (intents joined by ``#``): the cloud's."""
    return "#" in row["intent"]


def frozen_examples(path: Path) -> list[Any]:
    """The lines as the frozen-heads trainer reads them: the words as said, and a line of
    several requests out of scope (the device runs one; the cloud plans the rest)."""
    from understanding.intents.data import OOS, make_example

    return [
        make_example(plain_text(r["text"]), OOS if is_compound(r) else r["intent"], f"{path}:{i}")
        for i, r in enumerate(read_rows(path), start=1)
    ]


def _bucket(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[8:16], 16) % 100


def _take(
    rows: list[dict[str, str]], per_tool: int, per_intent: dict[str, int]
) -> list[dict[str, str]]:
    """The first lines of each intent (the generator shuffles them already)."""
    counts: dict[str, int] = {}
    out = []
    for row in rows:
        kind = "compound" if is_compound(row) else row["intent"]
        cap = per_intent.get(kind, per_tool)
        if counts.get(kind, 0) < cap:
            counts[kind] = counts.get(kind, 0) + 1
            out.append(row)
    return out


def _snips_kind(row: dict[str, str]) -> str:
    if row.get("snips_intent") == "GetWeather":
        return "get_weather" if row["intent"] == "get_weather" else "weather_oos"
    return str(row.get("snips_intent", row["intent"]))


def snips_selection(path: Path) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """SNIPS's mapped lines to train and to validate on (by a hash of the text), so many
    of each kind (``SNIPS_PER_KIND``), in hash order (deterministic)."""
    rows = sorted(read_rows(path), key=lambda r: _bucket(r["text"] + "|order"))
    out: tuple[list[dict[str, str]], list[dict[str, str]]] = ([], [])
    counts: tuple[dict[str, int], dict[str, int]] = ({}, {})
    for row in rows:
        side = 1 if _bucket(row["text"]) < SNIPS_VAL_SHARE else 0
        kind = _snips_kind(row)
        caps, other = (SNIPS_VAL_PER_KIND, SNIPS_VAL_PER_OTHER) if side else (
            SNIPS_PER_KIND, SNIPS_PER_OTHER)  # fmt: skip
        if counts[side].get(kind, 0) < caps.get(kind, other):
            counts[side][kind] = counts[side].get(kind, 0) + 1
            out[side].append({"text": row["text"], "intent": row["intent"]})
    return out


def measured_halves(slurp: Sequence[Path]) -> list[Path]:
    """The eval files of the SLURP halves a build does not train on (the fold it is
    measured on): none when it trains on both."""
    trained = {path.resolve() for path in slurp}
    return [ev for tr, ev in SLURP_HALVES.items() if tr.resolve() not in trained]


def joint_selection(
    own_train: Path,
    own_val: Path,
    slurp: Path | Sequence[Path],
    cloud: Path | None = None,
    snips: Path | None = None,
    device: Path | None = None,
    measured: Sequence[Path] | None = None,
    more: Sequence[Path] = (),
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The joint model's training and validation lines (deterministic).

    ``slurp``: SLURP's training lines, one half or both. ``measured``: eval files whose
    utterances nothing trains on (by default, the SLURP halves not trained on:
    ``measured_halves``; the hand-written held-out sets always). ``more``: more people's
    lines that train (HWU64's, SLURP's extra intents-only ones).

    No compound line trains it (its trainer composes compound utterances from single
    ones, with each word's request known); compounds of two different requests validate
    that such a query leaves the device."""
    halves = [slurp] if isinstance(slurp, Path) else list(slurp)
    # A generated line may happen to say what a measured SLURP utterance says ("what's
    # today's date"): it is left out, so nothing measured on is trained on.
    measured = {
        plain_text(str(r["query"])).lower()
        for path in [
            *(measured_halves(halves) if measured is None else measured),
            *(p for p in HELD_OUT if p.is_file()),
        ]
        for r in read_rows(path)
    }
    own = [r for r in read_rows(own_train) if plain_text(r["text"]).lower() not in measured]
    train = _take(own, OWN_PER_TOOL, {**OWN_PER_INTENT, "compound": 0})
    own = [r for r in read_rows(own_val) if plain_text(r["text"]).lower() not in measured]
    val = [
        r
        for r in _take(own, OWN_VAL_PER_TOOL, OWN_VAL_PER_INTENT)
        if len(set(r["intent"].split("#"))) == len(r["intent"].split("#"))
    ]
    # SLURP's annotation may spell an utterance otherwise than its sentence (which decides
    # its half): "orlando florida" annotated "orlando fl", an utterance of the other half.
    slurp_rows = [
        r for h in halves for r in read_rows(h) if plain_text(r["text"]).lower() not in measured
    ]
    for row in slurp_rows:
        if _bucket(row["text"]) < SLURP_VAL_SHARE:
            val.append(row)
        else:
            train.extend([row, row])
    # Real weather requests, and real requests no tool serves (SNIPS's training split).
    if snips is not None:
        snips_train, snips_val = snips_selection(snips)
        train.extend(r for r in snips_train if plain_text(r["text"]).lower() not in measured)
        val.extend(r for r in snips_val if plain_text(r["text"]).lower() not in measured)
    # The breadth of what else people ask an assistant (CLINC150's cloud intents).
    if cloud is not None:
        train.extend(r for r in read_rows(cloud) if plain_text(r["text"]).lower() not in measured)
    # More people's phrasings of the device's own requests, their slots unknown
    # (CLINC150's device intents: they train the intent heads only, never the tagger).
    if device is not None:
        train.extend(r for r in read_rows(device) if plain_text(r["text"]).lower() not in measured)
    # What people wrote and said to assistants, mapped to the device's intents.
    for path in more:
        train.extend(r for r in read_rows(path) if plain_text(r["text"]).lower() not in measured)
    # Nor does a line validate what trains (a generated line may say what SLURP says).
    validating = {plain_text(r["text"]).lower() for r in val}
    return [r for r in train if plain_text(r["text"]).lower() not in validating], val


def plain_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Rows with inline slots as the words only (what the device hears)."""
    return [{"text": plain_text(r["text"]), "intent": r["intent"]} for r in rows]


class CachedModel:
    """Wraps the intent model so the threshold sweep predicts each text once."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.predict = cache(model.predict)


def calibrate(
    model: Any,
    rows: list[dict[str, str]],
    min_cloud_recall: float,
    *,
    joint: bool = False,
    action_threshold: float | None = None,
) -> dict[str, Any]:
    """Sweep thresholds over the full route decision on the validation rows.

    A joint model's rows are annotated (their tool reads its arguments from the slots):
    each tool row is the device's. For the frozen heads, whose tools read arguments with
    the word readers, a tool row the readers cannot fill is the cloud's. The joint router
    keeps one request on the device (``one_request``), and its tools with side effects
    their own bar (``action_threshold``, at least the threshold swept)."""
    from understanding.arguments import extract_arguments
    from understanding.router import OOS, SMALLTALK, Router

    cached = CachedModel(model)
    # The expected route of a row: the cloud for oos, and for a tool row whose arguments
    # cannot be filled (a city the device does not know); the edge otherwise.
    expected = []
    for row in rows:
        intent = row["intent"]
        if intent == OOS or "#" in intent:
            expected.append("cloud")
        elif joint or intent == SMALLTALK or extract_arguments(intent, row["text"]) is not None:
            expected.append("edge")
        else:
            expected.append("cloud")
    sweep = []
    for threshold in THRESHOLDS:
        bar = None if action_threshold is None else max(threshold, action_threshold)
        router = Router(cached, threshold=threshold, action_threshold=bar, one_request=joint)
        routes = [router.decide(row["text"]).route for row in rows]
        pairs = list(zip(expected, routes, strict=True))
        cloud = [got for want, got in pairs if want == "cloud"]
        sweep.append(
            {
                "threshold": threshold,
                "route_accuracy": sum(w == g for w, g in pairs) / len(pairs),
                # Asked back is not acted on: it counts for the cloud, as in the eval.
                "cloud_recall": sum(g in ("cloud", "ask") for g in cloud) / max(1, len(cloud)),
            }
        )
    ok = [s for s in sweep if s["cloud_recall"] >= min_cloud_recall] or sweep[-1:]
    # The lowest threshold within TOLERANCE of the best accuracy: a one-row gain on the
    # validation set is noise, and a lower threshold keeps more in-scope queries phrased
    # unlike the training set on the device (the trainer's OOS score, the structure checks
    # and the argument check still guard the cloud's queries).
    top = max(s["route_accuracy"] for s in ok)
    best = min(
        (s for s in ok if s["route_accuracy"] >= top - TOLERANCE), key=lambda s: s["threshold"]
    )
    return {"threshold": best["threshold"], "chosen": best, "sweep": sweep}


def action_bar(model: Any, rows: list[dict[str, str]], threshold: float) -> dict[str, Any]:
    """The bar (>= ``threshold``) for the tools with side effects, chosen on validation:
    the one that costs least when a false action (a query of another intent that runs
    one) costs ``FALSE_ACTION_COST`` times an action sent to the cloud; on a tie, the
    higher bar."""
    from understanding.router import Router
    from understanding.tools import SIDE_EFFECT_TOOLS

    cached = CachedModel(model)
    sweep = []
    for bar in sorted({threshold, *(t for t in [*THRESHOLDS, 0.97, 0.99] if t > threshold)}):
        router = Router(cached, threshold=threshold, action_threshold=bar, one_request=True)
        false_actions = missed = 0
        for row in rows:
            decision = router.decide(row["text"])
            intents = row["intent"].split("#")
            tools = [c.tool for c in decision.calls] or [decision.tool]
            ran = decision.route == "edge"
            if ran and any(t in SIDE_EFFECT_TOOLS and t not in intents for t in tools):
                false_actions += 1
            if row["intent"] in SIDE_EFFECT_TOOLS and not (ran and row["intent"] in tools):
                missed += 1
        cost = FALSE_ACTION_COST * false_actions + missed
        sweep.append({"bar": bar, "false_actions": false_actions, "missed": missed, "cost": cost})
    best = min(sweep, key=lambda s: (s["cost"], -s["bar"]))
    return {"action_threshold": best["bar"], "chosen": best, "sweep": sweep}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=Path, default=DATA / "router_train.jsonl")
    parser.add_argument("--val", type=Path, default=DATA / "router_val.jsonl")
    parser.add_argument("--out", type=Path, default=ROOT / "understanding" / "models" / "router")
    parser.add_argument("--min-cloud-recall", type=float, default=0.985)
    parser.add_argument("--joint", action="store_true", help="the joint intent + slot model")
    parser.add_argument(
        "--slurp",
        type=Path,
        nargs="+",
        default=SHIPPED_SLURP,
        help="joint: SLURP's training lines, one half (a fold of the cross-validation: the "
        "other half is kept out) or both",
    )
    parser.add_argument(
        "--slurp-all", action="store_true", help="joint: both SLURP halves (the default)"
    )
    parser.add_argument(
        "--cloud",
        type=Path,
        default=DATA / "clinc_cloud.jsonl",
        help="joint: more cloud lines (scripts/build_clinc_cloud.py); 'none' for none",
    )
    parser.add_argument(
        "--snips",
        type=Path,
        default=DATA / "snips_train.jsonl",
        help="joint: SNIPS's mapped lines (scripts/build_snips_data.py); 'none' for none",
    )
    parser.add_argument(
        "--device",
        type=Path,
        default=None,
        help="joint: intent-only device lines, e.g. understanding/data/clinc_device.jsonl "
        "(scripts/build_clinc_device.py); not in the shipped router's build",
    )
    parser.add_argument(
        "--more",
        type=Path,
        nargs="*",
        default=[HWU64, SLURP_EXTRA],
        help="joint: more people's lines (scripts/build_hwu64_data.py); none with no value",
    )
    parser.add_argument(
        "--selection",
        type=Path,
        default=DATA,
        help="joint: the folder the selection files are written to (a fold's build elsewhere)",
    )
    parser.add_argument(
        "--calibrate-only", action="store_true", help="joint: recalibrate the model in --out"
    )
    parser.add_argument(
        "--select-only", action="store_true", help="joint: write the selection files only"
    )
    args = parser.parse_args()
    if str(args.cloud) == "none":
        args.cloud = None
    if str(args.snips) == "none":
        args.snips = None
    if args.device is not None and str(args.device) == "none":
        args.device = None
    if args.slurp_all:
        args.slurp = list(SLURP_HALVES)
    if args.joint:
        return build_joint(args)

    from understanding.intents import IntentModel, train_model

    start = time.perf_counter()
    report = train_model(
        frozen_examples(args.train),
        frozen_examples(args.val),
        args.out,
        source={"train": args.train.name, "val": args.val.name},
        log=print,
        # The route threshold below is calibrated on the validation file, so the heads
        # must not also be refitted on it (that would make the calibration in-sample).
        refit=False,
    )
    print(
        f"trained in {time.perf_counter() - start:.1f} s: method {report.method}, "
        f"threshold {report.threshold:.4f}, validation {report.val_metrics}"
    )
    model = IntentModel.load(args.out)
    result = calibrate(model, plain_rows(read_rows(args.val)), args.min_cloud_recall)
    config = {
        "threshold": result["threshold"],
        "calibrated_on": args.val.name,
        "min_cloud_recall": args.min_cloud_recall,
        "validation": result["chosen"],
        "trained_on": args.train.name,
        "trainer": "understanding.intents.train_model",
    }
    (args.out / "router.json").write_text(json.dumps(config, indent=1) + "\n", "utf-8")
    print(json.dumps(config))
    return 0


def build_joint(args: argparse.Namespace) -> int:
    """Train the joint model on the joint selection and calibrate both thresholds."""
    from understanding.slu.data import read_jsonl
    from understanding.slu.model import SluModel
    from understanding.slu.train import train_slu

    train, val = joint_selection(
        args.train, args.val, args.slurp, args.cloud, args.snips, args.device, more=args.more
    )
    kept_out = [path.name for path in measured_halves(args.slurp)]
    files = {
        "train": args.selection / "router_joint_train.jsonl",
        "val": args.selection / "router_joint_val.jsonl",
    }
    args.selection.mkdir(parents=True, exist_ok=True)
    for key, rows in (("train", train), ("val", val)):
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        files[key].write_text(body, "utf-8")
    print(
        f"joint selection: {len(train)} training lines, {len(val)} validation lines; "
        f"SLURP: {', '.join(p.name for p in args.slurp)}, kept out: {kept_out or 'none'}"
    )
    if args.select_only:
        return 0
    if not args.calibrate_only:
        start = time.perf_counter()
        report = train_slu(
            read_jsonl(files["train"]),
            read_jsonl(files["val"]),
            args.out,
            **JOINT_TRAINING,
            source={"train": files["train"].name, "val": files["val"].name},
            log=lambda msg: print(msg, flush=True),
        )
        print(f"trained in {time.perf_counter() - start:.1f} s: validation {report.val_metrics}")
    model = SluModel.load(args.out)
    rows = plain_rows(val)
    # The actions' bar first (at the lowest threshold swept), then the threshold of the
    # lookups with that bar in place.
    action = action_bar(model, rows, THRESHOLDS[0])
    result = calibrate(
        model, rows, args.min_cloud_recall, joint=True, action_threshold=action["action_threshold"]
    )
    config = {
        "threshold": result["threshold"],
        "action_threshold": max(result["threshold"], action["action_threshold"]),
        # One request on the device; the cloud's planner splits compound ones.
        "one_request": True,
        "calibrated_on": files["val"].name,
        "min_cloud_recall": args.min_cloud_recall,
        "validation": result["chosen"],
        "action_validation": action["chosen"],
        "false_action_cost": FALSE_ACTION_COST,
        "trained_on": [files["train"].name],
        "slurp": [path.name for path in args.slurp],
        "slurp_kept_out": kept_out,
        "more": [path.name for path in args.more],
        "trainer": "understanding.slu.train_slu",
        "training": {
            k: dataclasses.asdict(v) if isinstance(v, Joints) else v
            for k, v in JOINT_TRAINING.items()
        },
    }
    (args.out / "router.json").write_text(json.dumps(config, indent=1) + "\n", "utf-8")
    print(json.dumps(config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
