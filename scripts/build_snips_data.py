"""Map SNIPS's training split onto the device's intents: real weather requests and real
requests for things no device tool does.

SNIPS (Coucke et al. 2018; the Snips NLU benchmark, CC0 1.0) is crowd-sourced requests
to a voice assistant in seven intents, with BIO slots. Only its ``train`` split is read
(its dev split chooses ``bench/slu.py``'s stopping point, and its test split judges the
trainer: neither trains the router). Two things are taken:

- **GetWeather** -> ``get_weather``, its slots renamed to the device's vocabulary
  (SLURP's names): ``city`` / ``state`` / ``country`` / ``geographic_poi`` ->
  ``place_name`` (a city and its state or country, "Gold Beach , OR", one span, as SLURP
  marks "miami florida"); ``condition_description`` / ``condition_temperature`` ->
  ``weather_descriptor``; ``timeRange`` -> ``time`` where the clock reader reads a time of
  day or a duration within a day ("noon", "in one hour"), else ``date``;
  ``current_location`` and ``spatial_relation`` are no argument (the home city is the
  default). A line whose ``date`` the device's own forecast cannot serve ("next year",
  "in six weeks", "sept. 23rd 2035") is the cloud's: ``oos``, decided by the
  ``get_weather`` argument filler (``understanding.arguments.builtin_slots``), never by
  hand, so the labels follow what the tool serves.
- **The six other intents** (music, playlists, restaurants, books, films, screenings)
  -> ``oos``, a deterministic sample (``--other-per-intent``) without slots (the cloud
  reads its own arguments).

Writes ``understanding/data/snips_train.jsonl`` (``{"text", "intent", "snips_intent"}``,
slots inline as ``[type : words]``, SNIPS's own intent kept; ``understanding/data/SNIPS.md``:
source and licence).

Usage: ``python scripts/build_snips_data.py --snips SNIPS_DIR/train.txt``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "understanding" / "data"
OOS = "oos"
WEATHER = "GetWeather"
PLACE_TYPES = frozenset({"city", "state", "country", "geographic_poi"})
DESCRIPTOR_TYPES = frozenset({"condition_description", "condition_temperature"})
NO_ARGUMENT_TYPES = frozenset({"current_location", "spatial_relation"})
OTHER_PER_INTENT = 70
# The day the labels are decided from (weekdays are the next such day, so any day serves).
DECIDED_AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DAY_S = 24 * 3600


def _bucket(text: str) -> int:
    return int(hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()[:8], 16)


def time_range_type(span: str) -> str:
    """``time`` for a time of day or a duration within a day the clock reader reads
    ("noon", "7 am", "one hour from now"); ``date`` for anything else."""
    from understanding.arguments.builtin_slots import slot_duration
    from understanding.arguments.slots import clock_time

    said = span.lower()
    for prefix in ("at ", "around ", "by "):
        said = said.removeprefix(prefix)
    if clock_time(said) is not None:
        return "time"
    seconds = slot_duration(said)
    return "time" if seconds is not None and seconds < DAY_S else "date"


def weather_spans(words: list[str], tags: list[str]) -> list[tuple[str, int, int]]:
    """The device's slots of a GetWeather line: ``(type, start, end)`` word spans."""
    spans: list[tuple[str, int, int]] = []
    i = 0
    while i < len(tags):
        if not tags[i].startswith("B-"):
            i += 1
            continue
        kind, j = tags[i][2:], i + 1
        while j < len(tags) and tags[j] == f"I-{kind}":
            j += 1
        if kind in PLACE_TYPES:
            # "Gold Beach , OR", "Paris France": one place with its region.
            if (
                spans
                and spans[-1][0] == "place_name"
                and all(w == "," for w in words[spans[-1][2] : i])
            ):
                spans[-1] = ("place_name", spans[-1][1], j)
            else:
                spans.append(("place_name", i, j))
        elif kind in DESCRIPTOR_TYPES:
            spans.append(("weather_descriptor", i, j))
        elif kind == "timeRange":
            spans.append((time_range_type(" ".join(words[i:j])), i, j))
        elif kind not in NO_ARGUMENT_TYPES:
            raise ValueError(f"unmapped SNIPS weather slot {kind!r}")
        i = j
    return spans


def forecast_serves(words: list[str], spans: list[tuple[str, int, int]]) -> bool:
    """Whether the device's ``get_weather`` filler reads the line's day (its ``date``
    and ``time`` slots; the place is the home city's, so only the day decides)."""
    from understanding.arguments.builtin_slots import builtin_from_slots
    from understanding.settings import Settings
    from understanding.slu.model import Slot

    slots = [
        Slot(kind, " ".join(words[s:e]), s, e) for kind, s, e in spans if kind in ("date", "time")
    ]
    home = Settings(home_city="london")
    return builtin_from_slots("get_weather", slots, "", home, DECIDED_AT).arguments is not None


def inline(words: list[str], spans: list[tuple[str, int, int]]) -> str:
    out: list[str] = []
    i = 0
    for kind, s, e in spans:
        out.extend(words[i:s])
        out.append(f"[{kind} : {' '.join(words[s:e])}]")
        i = e
    out.extend(words[i:])
    return " ".join(out)


def build(snips_train: Path, other_per_intent: int) -> list[dict[str, str]]:
    from understanding.slu.data import read_utterances

    rows: list[dict[str, str]] = []
    others: dict[str, list[str]] = {}
    seen: set[str] = set()
    for u in read_utterances(snips_train, "snips"):
        words, intent = list(u.words), u.intents[0]
        text = " ".join(words)
        if len(u.intents) != 1 or text.lower() in seen:
            continue
        seen.add(text.lower())
        if intent == WEATHER:
            spans = weather_spans(words, list(u.tags))
            if forecast_serves(words, spans):
                rows.append({"text": inline(words, spans), "intent": "get_weather",
                             "snips_intent": intent})  # fmt: skip
            else:
                rows.append({"text": text, "intent": OOS, "snips_intent": intent})
        else:
            others.setdefault(intent, []).append(text)
    for intent in sorted(others):
        chosen = sorted(others[intent], key=_bucket)[:other_per_intent]
        rows.extend({"text": t, "intent": OOS, "snips_intent": intent} for t in chosen)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snips", type=Path, required=True, help="SNIPS's train.txt")
    parser.add_argument("--other-per-intent", type=int, default=OTHER_PER_INTENT)
    parser.add_argument("--out", type=Path, default=DATA / "snips_train.jsonl")
    args = parser.parse_args()
    rows = build(args.snips, args.other_per_intent)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{args.out.name}: {len(rows)} lines {dict(Counter(r['intent'] for r in rows))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
