"""Map SLURP's development split onto the device's intents and split it in two.

SLURP (Bastianelli et al., EMNLP 2020; text CC BY 4.0) is what people said to a home
assistant. The device answers a few of its intents with its own tools; everything else
is the cloud's (``oos``). Some intents are left out either way, as the edge eval leaves
them out: ``calendar_set`` mixes calendar entries with "remind me in an hour" (which a
labelled timer may serve), alarm queries and removals, list removals, light colours,
small talk, currency and time-zone conversions, and the few rows whose label is broken.

The split is deterministic, by a hash of the utterance's text (so the edge-format twin,
which has no id, splits the same way) into two halves, A (``slurp_train``) and B
(``slurp_measure``). Each half is written in both formats, so either can train a model
that the other measures (two-fold cross-validation over the development split; SLURP's
test split is the judge and is never here). The shipped router is trained on both
(docs/edge.md, "SLURP").

Writes, from ``--devel`` (SLURP's ``devel.jsonl``) and ``--edge`` (its edge-eval twin):

- ``understanding/data/slurp_train.jsonl`` (half A) and ``slurp_measure_train.jsonl``
  (half B): ``{"text", "intent"}`` with SLURP's slots inline (``[type : words]``),
  intents mapped to the device's;
- ``understanding/data/slurp_train_eval.jsonl`` (half A) and ``slurp_measure.jsonl``
  (half B): the same utterances in the edge eval format (``edge-agent eval
  understanding/data/slurp_measure.jsonl --home london``), to measure a model trained on
  the other half.

Usage: ``python scripts/build_slurp_data.py --devel DEVEL.jsonl --edge EDGE_DEVEL.jsonl``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "understanding" / "data"
OOS = "oos"
MEASURE_SHARE = 50  # percent of utterances only measured on

# SLURP intent -> the device's tool (the mapping).
DEVICE_INTENTS = {
    "weather_query": "get_weather",
    "datetime_query": "world_clock",
    "qa_maths": "calculator",
    "iot_hue_lighton": "device_control",
    "iot_hue_lightoff": "device_control",
    "iot_hue_lightdim": "device_control",
    "iot_hue_lightup": "device_control",
    "iot_wemo_on": "device_control",
    "iot_wemo_off": "device_control",
    "iot_cleaning": "device_control",
    "iot_coffee": "device_control",
    "audio_volume_up": "device_control",
    "audio_volume_down": "device_control",
    "audio_volume_mute": "device_control",
    "alarm_set": "set_timer",
    "lists_createoradd": "add_note",
    "lists_query": "search_notes",
}
# Left out of training and measure: either answer may be right, or the label is broken.
LEFT_OUT = frozenset(
    {
        "calendar_set",
        "alarm_query",
        "alarm_remove",
        "lists_remove",
        "iot_hue_lightchange",
        "general_quirky",
        "general_joke",
        "general_greet",
        "qa_currency",
        "datetime_convert",
    }
)
SCENARIO_INTENTS = frozenset(
    {
        "calendar_query", "calendar_remove", "cooking_query", "cooking_recipe",
        "email_addcontact", "email_query", "email_querycontact", "email_sendemail",
        "music_dislikeness", "music_likeness", "music_query", "music_settings",
        "news_query", "play_audiobook", "play_game", "play_music", "play_podcasts",
        "play_radio", "qa_definition", "qa_factoid", "qa_stock", "recommendation_events",
        "recommendation_locations", "recommendation_movies", "social_post", "social_query",
        "takeaway_order", "takeaway_query", "transport_query", "transport_taxi",
        "transport_ticket", "transport_traffic",
    }
)  # fmt: skip


def device_intent(slurp_intent: str) -> str | None:
    """The device's intent for a SLURP intent: a tool, ``oos``, or None (left out)."""
    if slurp_intent in DEVICE_INTENTS:
        return DEVICE_INTENTS[slurp_intent]
    if slurp_intent in SCENARIO_INTENTS:
        return OOS
    return None


def is_measure(text: str) -> bool:
    """Whether an utterance belongs to the measuring half (a hash of its words)."""
    key = " ".join(text.lower().split()).encode("utf-8")
    return int(hashlib.sha256(key).hexdigest()[:8], 16) % 100 < MEASURE_SHARE


def inline(annotation: str) -> str:
    """SLURP's ``sentence_annotation`` as the trainer's inline slots (same layout,
    ``[type : words]``), with stray spaces inside the brackets normalised."""
    return " ".join(annotation.replace("[", " [").replace("]", "] ").split())


def training_lines(devel: Path, half_b: bool) -> list[dict[str, str]]:
    """One half of ``devel.jsonl`` as training lines (each text once), SLURP's slots inline."""
    train: list[dict[str, str]] = []
    seen: set[str] = set()
    for line in devel.read_text("utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        intent = device_intent(row["intent"])
        text = row["sentence"]
        if intent is None or is_measure(text) != half_b or text in seen:
            continue
        seen.add(text)
        # Out-of-scope lines carry no slots: the cloud reads its own arguments.
        train.append({"text": inline(row["sentence_annotation"]) if intent != OOS else text,
                      "intent": intent})  # fmt: skip
    return train


def eval_cases(edge: Path, half_b: bool) -> list[dict[str, object]]:
    """One half of the edge-eval twin, as it is (the edge eval format)."""
    cases = []
    for line in edge.read_text("utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            kept = device_intent(case["slurp_intent"]) is not None
            if kept and is_measure(case["query"]) == half_b:
                cases.append(case)
    return cases


def build(devel: Path, edge: Path) -> dict[str, list[Any]]:
    """Every file this script writes, by name: each half in both formats."""
    return {
        "slurp_train.jsonl": training_lines(devel, half_b=False),
        "slurp_measure_train.jsonl": training_lines(devel, half_b=True),
        "slurp_train_eval.jsonl": eval_cases(edge, half_b=False),
        "slurp_measure.jsonl": eval_cases(edge, half_b=True),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devel", type=Path, required=True, help="SLURP's devel.jsonl")
    parser.add_argument("--edge", type=Path, required=True, help="its edge-eval twin")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args()
    for name, rows in build(args.devel, args.edge).items():
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (args.out / name).write_text(body, "utf-8")
        print(f"{name}: {len(rows)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
