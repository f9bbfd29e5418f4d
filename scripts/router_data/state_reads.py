# ruff: noqa: E501 - phrase tables read best one idea per line, even when long
"""Issue 24's lines: reads of the kept state (device status, the timers), cancelling timers,
clearing lists, and device commands with a qualifier the device executes.
"""

from __future__ import annotations

from collections.abc import Callable

from router_data.commands import DEVICES, ROOMS, clock_time, duration
from router_data.notes import LIST_ITEMS, LIST_NAMES
from router_data.variation import Gen, plain, slot

# -- issue 24: reads of the kept state, the timers and lists, and qualified commands
# (a separate seeded stream, so the other lines stay as they were)

STATUS_DEVICES = {d: names for d, names in DEVICES.items() if d != "speaker"} | {
    "speaker": ["speaker", "speakers", "stereo", "sound system"]
}


def device_status(g: Gen) -> str:
    """A question about a device's state: a read (``device_status``), never a command."""
    device = g.pick(list(STATUS_DEVICES))
    name = slot("device_type", g.pick(STATUS_DEVICES[device]))
    room = slot("house_place", g.pick(ROOMS)) if g.chance(0.45) else ""
    where = f" in the {room}" if room and g.chance(0.5) else ""
    if room and not where:
        name = f"{room} {name}"
    the = g.pick(["the ", "the ", "my ", "our "])
    state = {
        "door_lock": g.pick(["locked", "unlocked", "open", "shut", "bolted"]),
        "blinds": g.pick(["open", "closed", "up", "down", "shut"]),
    }.get(device, g.pick(["on", "off", "running", "still on", "switched off", "turned on"]))
    be = "are" if name.rstrip("]").endswith("s") else "is"
    forms = [
        f"{be} {the}{name}{where} {state}", f"{be} {the}{name}{where} {state} right now",
        f"did i leave {the}{name}{where} {g.pick(['on', 'running', 'unlocked', 'open'])}",
        f"check if {the}{name}{where} {be} {state}", f"can you check whether {the}{name}{where} {be} {state}",
        f"tell me if {the}{name}{where} {be} {state}", f"what's {the}{name}{where} doing",
        f"what is {the}{name}{where} doing right now", f"what state is {the}{name}{where} in",
        f"status of {the}{name}{where}", f"what's the status of {the}{name}{where}",
        f"{be} {the}{name}{where} {state} or not", f"do you know if {the}{name}{where} {be} {state}",
        f"i wonder if {the}{name}{where} {be} {state}", f"has {the}{name}{where} been switched off",
        f"{the}{name}{where}, {be} it {state}?", f"quick check: {be} {the}{name}{where} {state}",
    ]  # fmt: skip
    if device in ("thermostat", "ac", "heater"):
        forms += [f"what's {the}{name}{where} set to", f"what temperature is {the}{name}{where} set at",
                  f"how warm is {the}{name}{where} set", f"what's the setting on {the}{name}{where}"]  # fmt: skip
    if device in ("speaker", "tv"):
        forms += [f"how loud is {the}{name}{where}", f"what volume is {the}{name}{where} at",
                  f"what's the volume of {the}{name}{where}", f"is {the}{name}{where} muted"]  # fmt: skip
    if device == "light":
        forms += [f"how bright are {the}{name}{where}", f"which lights are on{where}",
                  f"are any lights on{where}", f"what are {the}{name}{where} set to"]  # fmt: skip
    if device == "vacuum":
        forms += [f"is {the}{name} still cleaning", f"has {the}{name} finished",
                  f"where is {the}{name} at", f"is {the}{name} charging"]  # fmt: skip
    return g.dress(g.pick(forms), polite_verb=False)


TIMER_LABELS = ["pasta", "eggs", "laundry", "oven", "nap", "pizza", "tea", "meeting", "bread",
                "roast", "workout", "rice", "parking", "homework", "cake"]  # fmt: skip


def list_timers(g: Gen) -> str:
    """What timers and alarms are set (a read)."""
    kind = g.pick(["timers", "alarms", "timer", "alarm", "reminders"])
    label = slot("timer_name", g.pick(TIMER_LABELS))
    day = slot("date", g.pick(["tomorrow", "today", "friday", "monday", "the weekend"]))
    forms = [
        f"what {kind} do i have", f"what {kind} are set", f"show me my {kind}", f"list my {kind}",
        f"do i have any {kind} set", f"do i have any {kind} running", f"which {kind} are on",
        f"how long is left on the {label} timer", f"how much time is left on my {kind}",
        "how long until my timer goes off", "when does my alarm go off", "when's my next alarm",
        f"what time is my alarm set for {day}", f"are there any {kind} for {day}",
        f"read out my {kind}", f"tell me my {kind}", f"any {kind} going", f"check my {kind}",
        "how many minutes are left", "is my timer still running", f"what {kind} have i set for {day}",
        "time left on the timer?", f"what's on the {label} timer", "what are my alarms",
    ]  # fmt: skip
    return g.dress(g.pick(forms), polite_verb=False)


def cancel_timer(g: Gen) -> str:
    """Cancel a timer or an alarm: by its label, its time, the next one, or all."""
    kind = g.pick(["timer", "alarm", "reminder"])
    label = slot("timer_name", g.pick(TIMER_LABELS))
    at = slot("time", clock_time(g))
    verb = g.pick(["cancel", "delete", "remove", "stop", "get rid of", "clear", "kill", "turn off",
                   "disable", "switch off", "scrap"])  # fmt: skip
    forms = [
        f"{verb} the {label} {kind}", f"{verb} my {label} {kind}", f"{verb} the {kind} for the {label}",
        f"{verb} my next {kind}", f"{verb} the next {kind}", f"{verb} all my {kind}s",
        f"{verb} all the {kind}s", f"{verb} every {kind}", f"{verb} my {at} {kind}",
        f"{verb} the {kind} at {at}", f"{verb} the {kind} for {at}", f"i don't need the {label} {kind} anymore",
        f"no more {label} {kind}", f"{verb} all {kind}s", f"{verb} my {kind}s", f"please {verb} the {label} {kind}",
        f"{label} {kind}, {verb} it", f"{verb} the {kind} i set for {at}",
    ]  # fmt: skip
    return g.dress(g.pick(forms))


def clear_list(g: Gen) -> str:
    """Empty a whole named list."""
    name = slot("list_name", g.pick(LIST_NAMES))
    verb = g.pick(["clear", "empty", "wipe", "clean out", "reset"])
    forms = [
        f"{verb} my {name} list", f"{verb} the {name} list", f"{verb} out the {name} list",
        f"delete everything on my {name} list", f"remove everything from the {name} list",
        f"remove all the items from my {name} list", f"take everything off the {name} list",
        f"delete all items on the {name} list", f"get rid of everything on my {name} list",
        f"the {name} list is done, {verb} it", f"start the {name} list over, {verb} it",
        f"i bought it all, {verb} the {name} list", f"erase all of the {name} list",
    ]  # fmt: skip
    return g.dress(g.pick(forms))


def qualified_command(g: Gen) -> str:
    """A device command with a qualifier the device executes: every room (``all``), all
    but some (``except``), a clock time (``at``) or a duration (``for``)."""
    device = g.pick(["light", "light", "light", "blinds", "fan", "heater", "ac", "tv", "plug",
                     "coffee_machine", "vacuum", "speaker", "door_lock"])  # fmt: skip
    plural = {"light": ["lights", "lamps"], "blinds": ["blinds", "curtains"], "fan": ["fans"],
              "heater": ["heaters", "radiators"], "ac": ["air conditioners", "acs"], "tv": ["tvs"],
              "plug": ["plugs", "sockets"]}  # fmt: skip
    name = slot("device_type", g.pick(DEVICES[device]))
    verb = g.pick(["turn off", "switch off", "turn on", "switch on", "shut off"])
    if device == "blinds":
        verb = g.pick(["open", "close", "shut", "raise", "lower"])
    if device == "door_lock":
        verb = g.pick(["lock", "unlock"])
    room = slot("house_place", g.pick(ROOMS))
    roll = g.r.random()
    if roll < 0.4 and device in plural:
        many = slot("device_type", g.pick(plural[device]))
        other = slot("house_place", g.pick(ROOMS))
        forms = [
            f"{verb} all the {many}", f"{verb} all {many}", f"{verb} every {name}", f"{verb} the {many} everywhere",
            f"{verb} all the {many} in the house", f"{many} {g.pick(['off', 'on'])} everywhere",
            f"{verb} all the {many} except the {room}", f"{verb} every {name} but the {room} one",
            f"{verb} all {many} other than the {room}", f"{verb} all the {many} apart from the {room}",
            f"{verb} all the {many} except in the {room} and the {other}",
            f"{verb} all but the {room} {many}", f"{verb} the {many} in every room except the {room}",
        ]  # fmt: skip
        return g.dress(g.pick(forms))
    at = slot("time", clock_time(g))
    d = duration(g)
    where = f" in the {room}" if g.chance(0.4) else ""
    forms = [
        f"{verb} the {name}{where} at {at}", f"at {at} {verb} the {name}{where}",
        f"{verb} the {name}{where} at {at} {slot('timeofday', g.pick(['tonight', 'this evening', 'in the morning']))}",
        f"{verb} the {name}{where} for {d}", f"{verb} the {name}{where} for {d} please",
        f"can you {verb} the {name}{where} at {at}", f"{verb} the {name}{where} for the next {d}",
    ]  # fmt: skip
    if device in ("speaker", "tv"):
        forms += [f"mute the {name} for {d}", f"mute the {name} at {at}"]
    return g.dress(g.pick(forms))


REMINDER_TASKS = ["call mom", "take the bins out", "feed the cat", "check the oven", "move the car",
                  "pick up the kids", "take my pills", "water the plants", "ring the dentist",
                  "start dinner", "switch the washing over", "send the email to tom", "stretch",
                  "get the laundry in", "leave for the train"]  # fmt: skip


def labelled_reminder(g: Gen) -> str:
    """A reminder after a duration whose words are the timer's label."""
    d = duration(g)
    task = slot("timer_name", g.pick(REMINDER_TASKS))
    forms = [f"remind me in {d} to {task}", f"in {d} remind me to {task}", f"remind me to {task} in {d}",
             f"set a timer for {d} to {task}", f"give me a shout in {d} to {task}",
             f"ping me in {d} so i {task}"]  # fmt: skip
    return g.dress(g.pick(forms))


def several_items(g: Gen) -> str:
    """Several items for one list: each item its own ``note_text`` span."""
    items = g.r.sample(LIST_ITEMS, g.pick([2, 2, 3]))
    spans = [slot("note_text", i) for i in items]
    said = " and ".join(spans) if len(spans) == 2 else f"{spans[0]}, {spans[1]} and {spans[2]}"
    name = slot("list_name", g.pick(LIST_NAMES))
    verb = g.pick(["add", "put", "stick"])
    where = "to" if verb == "add" else "on"
    if g.chance(0.25):
        verb, where = g.pick([("remove", "from"), ("take", "off"), ("delete", "from")])
        return g.dress(f"{verb} {said} {where} the {name} list"), "remove_note"
    return g.dress(g.pick([f"{verb} {said} {where} my {name} list", f"{verb} {said} {where} the {name} list",
                           f"we need {said}, {verb} them {where} the {name} list"])), "add_note"  # fmt: skip


NEW_MAKERS: dict[str, Callable[[Gen], str]] = {
    "device_status": device_status,
    "list_timers": list_timers,
    "cancel_timer": cancel_timer,
    "clear_list": clear_list,
}
# Lines of an existing tool that go first in the file (the build takes each tool's first lines).
QUALIFIED: dict[str, tuple[Callable[[Gen], str], int]] = {
    "device_control": (qualified_command, 110),
    "set_timer": (labelled_reminder, 50),
}


def issue24_rows(
    gen: Gen, per_tool: int, seen: set[str], exclude: set[str]
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The new tools' lines (after the others) and the qualified lines (before them)."""
    first: list[dict[str, str]] = []
    last: list[dict[str, str]] = []

    def put(out: list[dict[str, str]], text: str, intent: str) -> bool:
        text = text.strip()
        key = text.lower()
        if not text or key in seen or plain(key) in exclude:
            return False
        seen.add(key)
        out.append({"text": text, "intent": intent})
        return True

    for intent, make in NEW_MAKERS.items():
        made = tries = 0
        while made < per_tool and tries < per_tool * 20:
            tries += 1
            made += put(last, make(gen), intent)
    for intent, (make, count) in QUALIFIED.items():
        made = tries = 0
        count = max(1, count * per_tool // 420)
        while made < count and tries < count * 20:
            tries += 1
            made += put(first, make(gen), intent)
    made = tries = 0
    while made < per_tool // 6 and tries < per_tool * 4:
        tries += 1
        text, intent = several_items(gen)
        made += put(first, text, intent)
    gen.r.shuffle(first)
    gen.r.shuffle(last)
    return first, last
