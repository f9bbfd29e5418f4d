"""Map CLINC150's requests for the device's own tools onto the device's intents.

CLINC150 (Larson et al. 2019; CC BY 3.0) is crowd-written requests to a virtual
assistant, 120 per intent in its ``train`` and ``val`` splits. SLURP's training half gives
the shipped router ~400 real device requests; these add 1,080 more people's phrasings of
the same requests ("how many chores are on my todo list", "make the speakers louder",
"wake me up at noon tomorrow"). CLINC150 marks no slots, so every line is **intent-only**
(``"slots": null``): it trains the joint model's intent heads and never its tagger
(``understanding.slu.data``; its slot loss is masked).

The mapping is by CLINC intent (``DEVICE_INTENTS``), never by rules over the sentences:
each kept intent is one the contract's tool serves (``../shared/ARCHITECTURE.md``, "The
built-in edge tools"), and the label says which tool a request is for. What that tool
cannot do with a particular line is the tool's argument check's to decide at run time, as
for any query: a city outside the gazetteer, a time zone named without a city ("the time
in cst"), a date "400 days from now", two alarms in one line
("9 am and another for 11 am"), a timer with no length, units the converter does not
know ("murders" of crows) all go to the cloud with that reason. A few lines of a kept
intent ask more than its tool does (CLINC's ``calculator`` holds "what is the derivative
of x squared plus 5", which the project's own lines label out of scope): a handful per
intent, left as CLINC labels them, since the expression reader declines them.

Left out, with why:

* ``weather``: the days the forecast serves mixed with days it does not ("is it snowing
  in the next two weeks", "what is the record high temperature for today", "are there
  any tornadoes coming soon"). The project's lines and SNIPS's label a request for a day
  beyond the forecast out of scope (SNIPS's decided by the device's own filler over its
  date slot); CLINC's lines carry no date slot, so they could be split only by rules
  over the sentences, and taken whole they taught the opposite label: a build with them
  was less sure of plain requests for a day or a span ("what's the weather in paris on
  sunday" 0.89 -> 0.73, "... in oslo this week" 0.90 -> 0.83, under the calibrated
  threshold) (docs/edge.md, "With CLINC150's device lines").
* ``smart_home``: device commands (lights, fan, tv, furnace, locks) mixed with what no
  device tool does (who is at the door, starting the car, the oven, questions about a
  device's state: "what is the ac set to", "are my doors locked"), about 40% of it; one
  label cannot be right for the intent, and a false device command is worse than a trip
  to the cloud.
* ``shopping_list_update`` / ``todo_list_update``: adding (``add_note``), removing
  (``remove_note``), clearing a whole list, both in one line ("remove wine and add beer")
  and conditional adds ("is bacon on my list, add it if not"): several tools, often two
  requests, under one label.
* ``reminder``, ``reminder_update``: reminders are neither notes nor timers in the tool
  contract (SLURP's ``calendar_set`` is left out of the measure for the same reason).
* ``timezone``: a country's or a region's time zone ("what timezone is japan in");
  ``world_clock`` takes a city.
* Small talk and the assistant's own settings: the device's small talk is not a tool;
  CLINC's cloud intents are ``scripts/build_clinc_cloud.py``'s.

Measured (docs/edge.md, "CLINC150's device lines"): a router trained with these lines
keeps more of SLURP's device requests on the device, but the list-reading intents
("do i have bananas on my list", "what do i have to do today") also pull SLURP's contact
and calendar questions onto ``search_notes``; the shipped router is not trained on them.

Every line of the kept intents in CLINC's ``train`` and ``val`` splits, in the file's
order (CLINC's test split is not used, nor on disk). Writes
``understanding/data/clinc_device.jsonl`` (``{"text", "intent", "slots": null}``), which
``scripts/build_router.py --joint --device understanding/data/clinc_device.jsonl`` adds to
the joint model's training lines (the shipped router's build does not: docs/edge.md).

Usage: ``python scripts/build_clinc_device.py --clinc clinc150_train_val.json``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "understanding" / "data"
SPLITS = ("train", "val")
# CLINC intent -> the device's intent (its tool), by the tool contract.
DEVICE_INTENTS = {
    "time": "world_clock",
    "date": "world_clock",  # world_clock answers the date and the weekday too
    "calculator": "calculator",
    "timer": "set_timer",
    "alarm": "set_timer",  # every line sets one (set_timer takes a clock time: ``at``)
    "shopping_list": "search_notes",  # reading a list: search_notes {list}
    "todo_list": "search_notes",
    "change_volume": "device_control",  # the speaker: volume_up / volume_down / set
    "measurement_conversion": "unit_convert",
}


def device_lines(clinc: dict[str, Any]) -> list[dict[str, Any]]:
    """The kept lines, deterministic (the splits in order, each in the file's order)."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for split in SPLITS:
        for text, intent in clinc[split]:
            key = " ".join(str(text).lower().split())
            if intent in DEVICE_INTENTS and key not in seen:
                seen.add(key)
                out.append({"text": text, "intent": DEVICE_INTENTS[intent], "slots": None})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clinc", type=Path, required=True, help="clinc150 train/val JSON")
    args = parser.parse_args()
    rows = device_lines(json.loads(args.clinc.read_text("utf-8")))
    path = DATA / "clinc_device.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"wrote {path}: {len(rows)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
