# ruff: noqa: E501 - phrase tables read best one idea per line, even when long
"""The commands' phrasings: device control (with its names of devices and rooms) and timers."""

from __future__ import annotations

from router_data.lookups import WEEKDAYS
from router_data.variation import Gen, slot
from understanding.arguments.numbers import spell_number

DEVICES: dict[str, list[str]] = {
    "light": ["lights", "light", "lamp", "lamps", "ceiling light", "bulbs", "desk lamp"],
    "ac": ["ac", "AC", "aircon", "air conditioning", "air conditioner", "a/c", "air con"],
    "heater": ["heater", "heating", "radiator", "space heater"],
    "fan": ["fan", "ceiling fan", "desk fan"],
    "tv": ["tv", "TV", "television", "telly"],
    "speaker": ["speaker", "speakers", "music", "stereo", "sound system"],
    "door_lock": ["front door", "door", "back door", "door lock", "deadbolt"],
    "thermostat": ["thermostat", "heat", "temperature"],
    "blinds": ["blinds", "curtains", "shades", "shutters"],
    "plug": ["plug", "smart plug", "socket", "wemo plug", "power socket", "wemo"],
    "vacuum": [
        "vacuum",
        "robot vacuum",
        "hoover",
        "robot vacuum cleaner",
        "vacuum cleaner",
        "roomba",
    ],
    "coffee_machine": ["coffee machine", "coffee maker", "espresso machine", "coffee pot"],
}
ROOMS = ["living room", "bedroom", "kitchen", "office", "bathroom", "hallway", "lounge",
         "garage", "dining room", "study", "kids room", "guest room", "basement", "hall"]  # fmt: skip


def _volume(g: Gen) -> str:
    """Speaker and TV volume: up, down, set, mute ("volume" is the device's word)."""
    vol = slot("device_type", "volume")
    where = g.pick(["", "", f" on the {slot('device_type', g.pick(['tv', 'speaker', 'stereo']))}"])
    step = slot("change_amount", g.pick(["a bit", "a little", "by ten", "by 20", "ten percent"]))
    level = slot(
        "change_amount",
        g.pick([g.number(5, 100), f"{g.number(5, 100)} percent", f"{g.number(5, 100)}%"]),
    )
    forms = [
        f"turn the {vol} up{where}", f"turn the {vol} down{where}", f"{vol} up", f"{vol} down",
        f"turn up the {vol}{where}", f"turn down the {vol}{where}", f"lower the {vol}{where}",
        f"raise the {vol}{where} {step}", f"increase the {vol}{where}", f"decrease the {vol}{where}",
        f"set the {vol}{where} to {level}", f"{vol} to {level}", "make it louder", "a bit quieter please",
        f"mute{where}", f"mute the {slot('device_type', g.pick(['tv', 'speaker', 'speakers', 'music']))}",
        f"unmute the {slot('device_type', g.pick(['tv', 'speaker']))}", f"turn the {vol} up {step}",
        f"it's too loud, turn the {vol} down", f"i can't hear it, {vol} up please", f"silence the {slot('device_type', 'speakers')}",
        "turn it up", "turn it down", "turn it up a little", "louder", "quieter please", "can you turn it down",
    ]  # fmt: skip
    return g.dress(g.pick(forms))


def device_control(g: Gen) -> str:
    if g.chance(0.12):
        return _volume(g)
    device = g.pick(list(DEVICES))
    name = slot("device_type", g.pick(DEVICES[device]))
    room = slot("house_place", g.pick(ROOMS)) if g.chance(0.5) else ""
    where = ""
    if room:
        where = g.pick([f" in the {room}", f" in the {room}", f" in {room}"])
        if g.chance(0.4):
            name = f"{room} {name}"
            where = ""
    the = g.pick(["the ", "the ", "my ", ""])
    if device == "door_lock":
        verb = g.pick(["lock", "unlock", "lock up", "secure", "unbolt", "open"])
        forms = [f"{verb} {the}{name}", f"please {verb} {the}{name}", f"can you {verb} {the}{name}",
                 f"{the}{name}, {verb} it", f"make sure {the}{name} is locked",
                 f"{verb} {the}{name} for me"]  # fmt: skip
        return g.dress(g.pick(forms))
    if device == "blinds":
        verb = g.pick(["open", "close", "shut", "raise", "lower", "draw", "pull up", "pull down"])
        value = slot("change_amount", f"{g.number(0, 100)}%")
        forms = [f"{verb} {the}{name}{where}", f"{verb} {the}{name}{where}",
                 f"set {the}{name}{where} to {value}", f"can you {verb} {the}{name}{where}",
                 f"{the}{name}{where} {g.pick(['up', 'down', 'open', 'closed'])} please"]  # fmt: skip
        return g.dress(g.pick(forms))
    on = g.pick(["turn on", "switch on", "power on", "put on", "start"])
    off = g.pick(["turn off", "switch off", "shut off", "kill", "power off", "stop"])
    if device in ("plug", "vacuum", "coffee_machine"):
        extra = {
            "vacuum": [f"start {the}{name}", f"{name} clean the {slot('house_place', g.pick(ROOMS))}",
                       f"send {the}{name} back to its dock", f"run {the}{name}{where}",
                       f"start cleaning with {the}{name}", f"vacuum the {slot('house_place', g.pick(ROOMS))}"],
            "coffee_machine": ["make me a coffee", "brew some coffee", f"start {the}{name}",
                               f"i need a coffee, switch on {the}{name}", f"get {the}{name} going"],
            "plug": [f"switch {the}{name}{where} {g.pick(['on', 'off'])}", f"toggle {the}{name} {g.pick(['on', 'off'])}",
                     f"cut the power to {the}{name}", f"power up {the}{name}{where}"],
        }[device]  # fmt: skip
        forms = [f"{on} {the}{name}{where}", f"{off} {the}{name}{where}",
                 f"turn {the}{name}{where} {g.pick(['on', 'off'])}", f"{the}{name}{where} {g.pick(['on', 'off'])}",
                 f"can you {g.pick([on, off])} {the}{name}{where}", *extra]  # fmt: skip
        return g.dress(g.pick(forms))
    if device in ("thermostat", "ac", "heater"):
        value = slot(
            "change_amount",
            g.number(16, 28) + g.pick(["", " degrees", "°", " degrees celsius", "c"]),
        )
    else:
        value = slot("change_amount", g.number(5, 100) + g.pick(["", "%", " percent"]))
    forms = [
        f"{on} {the}{name}{where}",
        f"{off} {the}{name}{where}",
        f"turn {the}{name}{where} {g.pick(['on', 'off'])}",
        f"switch {the}{name}{where} {g.pick(['on', 'off'])}",
        f"{the}{name}{where} {g.pick(['on', 'off'])}",
        f"set {the}{name}{where} to {value}",
        *_no_value(g, device, f"{the}{name}{where}"),
        f"{g.pick(['dim', 'set', 'turn', 'put', 'bring', 'adjust'])} {the}{name}{where} "
        f"{g.pick(['to', 'down to', 'up to', 'at'])} {value}",
        f"can you {g.pick([on, off])} {the}{name}{where}",
        f"{the}{name}{where} {g.pick(['needs to be off', 'should be on', 'off please'])}",
        f"i'm going to bed, {off} {the}{name}{where}",
        f"it's too dark, {on} {the}{name}{where}",
        f"it's freezing, {on} the {slot('device_type', 'heater')}{where}",
        f"it's boiling in here, {on} the {slot('device_type', 'ac')}{where}",
        f"set the {slot('device_type', 'thermostat')} to {slot('change_amount', g.number(16, 26))}",
        f"change the {slot('device_type', 'temperature')} to {slot('change_amount', g.number(16, 26) + ' degrees')}",
        f"{slot('device_type', 'lights')} {g.pick(['off', 'on'])} {slot('house_place', g.pick(ROOMS))}",
        f"turn up the {slot('device_type', 'heat')} to {slot('change_amount', g.number(18, 26))}",
        f"could you get {the}{name}{where} {g.pick(['on', 'off'])} for me",
        f"i want {the}{name}{where} {g.pick(['on', 'off'])}",
        f"{g.pick(['please', 'hey', 'ok'])} {g.pick([on, off])} {the}{name}{where} now",
        f"i'd like {the}{name}{where} to be turned {g.pick(['on', 'off'])}",
        f"can {the}{name}{where} be switched {g.pick(['on', 'off'])}",
        f"could you have {the}{name}{where} {g.pick(['on', 'off'])}",
        f"{the}{name}{where}, {g.pick(['on', 'off'])} please",
    ]
    return g.dress(g.pick(forms))


def _no_value(g: Gen, device: str, named: str) -> list[str]:
    """Up or down with no value ("dim the lights", "turn the heating up"): the device's
    default step, ``device_control``'s (the label contract with the tools)."""
    if device == "light":
        return [f"{g.pick(['dim', 'brighten'])} {named}", f"make {named} {g.pick(['brighter', 'dimmer'])}",
                f"{named} {g.pick(['brighter', 'dimmer'])} please"]  # fmt: skip
    if device in ("heater", "thermostat", "ac", "fan", "tv", "speaker"):
        return [f"turn {named} {g.pick(['up', 'down'])}", f"turn {g.pick(['up', 'down'])} {named}"]
    return []


def duration(g: Gen) -> str:
    n = g.r.randint(1, 90)
    kinds = [
        f"{g.number(1, 59)} minutes", f"{g.number(1, 59)} min", f"{g.number(1, 59)} mins",
        f"{g.number(5, 90)} seconds", f"{g.number(1, 12)} hours", f"{g.number(1, 5)} hr",
        "an hour and a half", "half an hour", "a quarter of an hour", "an hour", "a minute",
        f"{g.number(1, 3)} hours and {g.number(1, 59)} minutes", f"{n} min", f"{n} m",
        "two and a half minutes", "a couple of minutes", "ninety seconds", "1h30",
        f"{g.number(1, 10)} minutes and {g.number(1, 59)} seconds", "three quarters of an hour",
        "one and a half hours", f"{g.number(1, 59)}-minute",
    ]  # fmt: skip
    return slot("time", g.pick(kinds))


def clock_time(g: Gen) -> str:
    """A clock time as people say it: "five thirty am", "7:15", "six", "half past eight"."""
    hour = g.r.randint(1, 12)
    minute = g.pick(["", "", "fifteen", "thirty", "forty five", "o'clock", "ten", "twenty"])
    spoken = spell_number(hour) if g.chance(0.6) else str(hour)
    ampm = g.pick(["", "am", "pm", "a.m.", "p.m."])
    if g.chance(0.25):
        return g.pick([f"{hour}:{g.pick(['00', '15', '30', '45'])} {ampm}", f"half past {spoken}",
                       f"quarter past {spoken}", f"quarter to {spoken}", f"{hour}{g.pick(['am', 'pm'])}"])  # fmt: skip
    if minute == "o'clock":
        return f"{spoken} o'clock"
    return " ".join(f"{spoken} {minute} {ampm}".split())


def set_timer(g: Gen) -> str:
    label = g.pick(["", "", "pasta", "eggs", "laundry", "oven", "nap", "pizza", "tea", "meeting"])
    what = f" for the {slot('timer_name', label)}" if label else ""
    if g.chance(0.35):
        # an alarm at a clock time
        at = slot("time", clock_time(g))
        when = g.pick(["", "", f" {slot('date', 'tomorrow')}", f" {slot('date', 'tomorrow')} {slot('timeofday', 'morning')}",
                       f" in the {slot('timeofday', 'morning')}", f" this {slot('timeofday', g.pick(['evening', 'afternoon']))}",
                       f" on {slot('date', g.pick(WEEKDAYS))}", f" {slot('timeofday', 'tonight')}"])  # fmt: skip
        forms = [
            f"set an alarm for {at}{when}", f"wake me up at {at}{when}", f"wake me at {at}{when}",
            f"alarm at {at}{when}", f"set alarm {at}{when}", f"i need to get up at {at}{when}",
            f"set an alarm at {at}{when}{what}", f"alarm for {at}{when} please",
            f"can you wake me up at {at}{when}", f"please set my alarm for {at}{when}",
            f"set a wake up alarm for {at}{when}", f"put an alarm on for {at}{when}",
            f"create an alarm for {at}{when}", f"remind me at {at}{when}{what}",
            f"make sure i'm up by {at}{when}", f"{at} alarm{when}", f"alarm {at}",
        ]  # fmt: skip
        return g.dress(g.pick(forms))
    d = duration(g)
    forms = [
        f"set a timer for {d}{what}",
        f"timer {d}",
        f"{d} timer{what}",
        f"start a {d} timer{what}",
        f"start a timer for {d}",
        f"countdown {d}",
        f"can you time {d}{what}",
        f"remind me in {d}{what}",
        f"set an alarm for {d} from now",
        f"put a timer on for {d}",
        f"set timer {d}",
        f"give me a {d} countdown",
        f"alert me in {d}",
        f"wake me up in {d}",
        f"i need a timer, {d}",
        f"time me for {d}",
        f"let me know when {d} have passed",
        f"ping me in {d}{what}",
        f"count down {d}",
        f"set the {slot('timer_name', 'oven')} timer for {d}",
        f"alert me after {d}",
        f"beep in {d}",
        f"timer for {d} please",
        f"{d} on the clock{what}",
        f"i want a timer set for {d}",
        f"{d} is what the timer should be set to",
        f"i need a timer of {d}",
        f"make a timer for {d}",
        f"create a {d} timer",
    ]
    return g.dress(g.pick(forms))
