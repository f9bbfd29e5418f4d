"""Map HWU64 and SLURP's extra training sentences onto the device's intents.

HWU64 (Liu, Eshghi, Swietojanski, Rieser, IWSDS 2019; CC BY 4.0) is what people wrote
for a home assistant, in SLURP's layout and scenarios, with slots annotated as SLURP
annotates them; every sentence of SLURP's devel and test splits was removed from it
before it reached the project. SLURP's extra training sentences (SLURPFOOD's splits of
SLURP's train split, CC BY 4.0) carry their intent only: they train the intent heads and
never the tagger (``"slots": null``: their slots are unknown, not absent).

The intents map as SLURP's do (``scripts/build_slurp_data.py``), plus the reads and
removals the device now serves: ``alarm_query`` is ``list_timers``, ``alarm_remove``
``cancel_timer``; a ``qa_maths`` sentence that is a unit conversion is ``unit_convert``.
The tools whose main argument SLURP's layout never tags (``UNTAGGED_TOOLS``) train their
intents only. ``lists_remove`` stays out (it mixes an item, a whole list and
contacts), as do the conversational acts HWU64 has and SLURP does not (yes, no, stop,
repeat...). A device command said as a question ("is the coffee ready") is no command:
it is left out rather than taught as one. Only a share of the cloud's sentences is kept
(``--cloud-share``), so the device's own requests are not drowned.

Writes ``understanding/data/hwu64_train.jsonl`` (slots inline) and
``understanding/data/slurp_extra_train.jsonl`` (intents only); docs in
``understanding/data/HWU64.md``. Nothing here is measured on: SLURP's halves
(``slurp_train_eval.jsonl``, ``slurp_measure.jsonl``) hold none of these sentences, and
``scripts/build_router.py`` drops any line whose words a measured file says.

Usage: ``python scripts/build_hwu64_data.py --hwu64 HWU64.jsonl --extra EXTRA.jsonl``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_slurp_data import DATA, LEFT_OUT, OOS, device_intent, inline

# The reads and removals of timers the device serves now (issue 24).
MORE_DEVICE_INTENTS = {"alarm_query": "list_timers", "alarm_remove": "cancel_timer"}
# HWU64's conversational acts, which SLURP's scenarios do not have: either side may be right.
CONVERSATION = frozenset(
    {
        "general_affirm", "general_commandstop", "general_confirm", "general_dontcare",
        "general_explain", "general_negate", "general_praise", "general_repeat",
        "lists_remove", "audio_volume_other", "volume_other", "hue_lightoff", "music_settings",
    }
)  # fmt: skip
CLOUD_SHARE = 25  # percent of the cloud's sentences kept
# A date or time said inside a note or a list item is the note's words, no argument of its
# own ("add call the plumber on monday"): those tags are dropped, the words kept.
NOTE_TOOLS = frozenset({"add_note", "remove_note", "search_notes"})
_UNTAGGED = re.compile(r"\[\s*(?:date|time|timeofday)\s*:\s*([^\[\]]*?)\s*\]")
_QUESTION = re.compile(r"^(?:is|are|was|were|does|do|did|has|have)\b")
# The tools whose main argument SLURP's layout has no slot type for (an expression, an
# amount and its units, a note's text, a search's words): their HWU64 lines leave it
# untagged, which is unknown, not absent. They train the intents only (``"slots": null``);
# taught as tags, "convert ten miles to kilometers" says a conversion has no amount.
UNTAGGED_TOOLS = frozenset(
    {"calculator", "unit_convert", "add_note", "remove_note", "search_notes"}
)


def mapped(intent: str, sentence: str) -> str | None:
    """The device's intent for an HWU64/SLURP intent and sentence, or None (left out)."""
    if intent in CONVERSATION:
        return None
    if intent in MORE_DEVICE_INTENTS:
        return MORE_DEVICE_INTENTS[intent]
    if intent in LEFT_OUT:
        return None
    tool = device_intent(intent)
    if tool == "device_control" and _QUESTION.search(sentence.lower()):
        return None
    if tool == "calculator" and is_conversion(sentence):
        return "unit_convert"  # qa_maths holds unit conversions: the device's unit_convert
    return tool


def is_conversion(sentence: str) -> bool:
    """A sentence the device's unit reader reads as a conversion ("convert ten miles to
    kilometers", "how many cm make one foot")."""
    from understanding.arguments.units import unit_arguments

    plain = re.sub(r"\[\s*\w+\s*:\s*([^\[\]]*?)\s*\]", r"\1", sentence)
    return unit_arguments(plain) is not None


def kept(tool: str, text: str, share: int) -> bool:
    """All the device's sentences; ``share`` percent of the cloud's (by a hash)."""
    if tool != OOS:
        return True
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % 100 < share


def hwu64_lines(path: Path, share: int) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_text("utf-8").splitlines():
        row = json.loads(raw)
        tool = mapped(row["intent"], row["sentence"])
        if tool is not None and kept(tool, row["sentence"], share):
            text = inline(row["sentence_annotation"])
            if tool in NOTE_TOOLS:
                text = _UNTAGGED.sub(r"\1", text)
            if tool in UNTAGGED_TOOLS:
                plain = " ".join(row["sentence"].replace("[", " ").replace("]", " ").split())
                out.append({"text": plain, "intent": tool, "slots": None})
                continue
            out.append({"text": text, "intent": tool})
    return out


def extra_lines(path: Path, share: int) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_text("utf-8").splitlines():
        row = json.loads(raw)
        text = " ".join(row["sentence"].replace("[", " ").replace("]", " ").split())
        tool = mapped(row["intent"], text)
        if tool is not None and kept(tool, text, share):
            out.append({"text": text, "intent": tool, "slots": None})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hwu64", type=Path, required=True, help="HWU64's annotated.jsonl")
    parser.add_argument("--extra", type=Path, required=True, help="train_intents_extra.jsonl")
    parser.add_argument("--cloud-share", type=int, default=CLOUD_SHARE)
    args = parser.parse_args()
    for name, rows in (
        ("hwu64_train.jsonl", hwu64_lines(args.hwu64, args.cloud_share)),
        ("slurp_extra_train.jsonl", extra_lines(args.extra, args.cloud_share)),
    ):
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (DATA / name).write_text(body, "utf-8")
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["intent"]] = counts.get(r["intent"], 0) + 1
        print(f"wrote {DATA / name}: {len(rows)} lines {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
