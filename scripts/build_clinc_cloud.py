"""Copy the cloud's side of CLINC150 into the router's training data.

CLINC150 (Larson et al. 2019; CC BY 3.0) is 150 intents of what people ask a virtual
assistant: banking, travel, cooking, music, calendars, small talk and a few that the
device's own tools answer. The joint router learns where the device's scope ends from
the project's generated lines and SLURP's; these add the breadth of what else people
ask, so that a request from a scenario neither of them covers is not read as a tool.

Kept: ``PER_INTENT`` lines of each intent that is surely the cloud's (the first ones of
its ``train`` split, in the file's order) and every ``oos_train`` line, all labelled
``oos``. Left out: intents a device tool or the device's small talk may serve, or that
are about the assistant itself (weather, time, date, timers, alarms, reminders,
calculator, conversions, lists, smart home, volume, greetings...). The validation split
is not used.

Writes ``understanding/data/clinc_cloud.jsonl`` (``{"text", "intent"}``), which
``scripts/build_router.py --joint`` adds to the joint model's training lines.

Usage: ``python scripts/build_clinc_cloud.py --clinc clinc150_train_val.json``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "understanding" / "data"
PER_INTENT = 8
# Intents the device may serve (its tools, its small talk) or about the assistant itself.
NOT_THE_CLOUDS = frozenset(
    {
        "alarm", "calculator", "change_volume", "date", "measurement_conversion", "reminder",
        "reminder_update", "shopping_list", "shopping_list_update", "smart_home", "time",
        "timer", "timezone", "todo_list", "todo_list_update", "weather", "greeting",
        "goodbye", "thank_you", "what_can_i_ask_you", "are_you_a_bot", "what_is_your_name",
        "how_old_are_you", "who_made_you", "where_are_you_from", "do_you_have_pets",
        "what_are_your_hobbies", "who_do_you_work_for", "yes", "no", "maybe", "repeat",
        "cancel", "change_accent", "change_ai_name", "change_language", "change_speed",
        "change_user_name", "user_name", "whisper_mode", "sync_device", "reset_settings",
        "find_phone", "flip_coin", "roll_dice", "spelling", "current_location",
    }
)  # fmt: skip


def cloud_lines(clinc: dict[str, list[list[str]]]) -> list[dict[str, str]]:
    """The kept lines, deterministic (the file's order)."""
    counts: dict[str, int] = {}
    out = []
    for text, intent in clinc["train"]:
        if intent in NOT_THE_CLOUDS or counts.get(intent, 0) >= PER_INTENT:
            continue
        counts[intent] = counts.get(intent, 0) + 1
        out.append({"text": text, "intent": "oos"})
    out += [{"text": text, "intent": "oos"} for text, _ in clinc.get("oos_train", [])]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clinc", type=Path, required=True, help="clinc150 train/val JSON")
    args = parser.parse_args()
    rows = cloud_lines(json.loads(args.clinc.read_text("utf-8")))
    path = DATA / "clinc_cloud.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"wrote {path}: {len(rows)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
