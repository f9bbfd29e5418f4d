"""Each tool's arguments from a clause: device commands, conversions (with a unit shared
across a list, or a temperature carried from the weather), calculator expressions that use
the previous result, notes and searches, timers. The edge's own readers do the reading
where they can (``cloud_agent.planner.interpret.edge_arguments``).
"""

from __future__ import annotations

import re
from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import PREV, PlannedCall
from understanding.arguments.durations import parse_duration


def shared_unit(
    clause: it.Clause, clauses: list[it.Clause], extractor: it.Extractor | None
) -> dict[str, Any] | None:
    """A bare number that takes its unit from the next timer fragment ("timers for 10 |
    and 20 minutes"), else from the timer said just before it ("8 minutes for the pasta |
    and 12 for the sauce")."""
    index = clauses.index(clause)
    unit = None
    for later in clauses[index + 1 :]:
        if later.tool != it.TIMER:
            break
        unit = TIME_UNIT.search(later.text)
        if unit:
            break
    if unit is None and index and clauses[index - 1].tool == it.TIMER:
        unit = TIME_UNIT.search(clauses[index - 1].text)
    if unit is None:
        return None
    probe = f"set a timer for {clause.value:g} {unit.group(1)}"
    return it.edge_arguments(it.TIMER, probe, extractor) or own_arguments(it.TIMER, probe)


# A unit of time said, in words ("minutes"): what a bare number of a timer takes.
TIME_UNIT = re.compile(r"\b(hours?|minutes?|seconds?)\b")


def with_names(
    calls: list[PlannedCall], words: str, *, several_only: bool = False
) -> list[PlannedCall]:
    """A clause's one timer with the name its words give it ("a tea timer for 4 minutes",
    "remind me in 10 minutes to call mum"), as the device's router names one
    (``understanding.arguments.timer_labels.timer_label``); several timers each by the
    words before its duration (:func:`_each_named`): of one clause, or, with
    ``several_only``, of a whole request whose clauses named none ("timers for the rice
    18 min | and the salmon 12 min")."""
    from understanding.arguments.timer_labels import timer_label

    timers = [c for c in calls if c.tool == it.TIMER]
    if len(timers) > 1:
        return _each_named(calls, timers, words)
    if several_only or len(timers) != 1 or timers[0].args.get("label"):
        return calls
    label = timer_label(words)
    if label is None:
        return calls
    return [PlannedCall(c.tool, {**c.args, "label": label}) if c is timers[0] else c for c in calls]


# The words around a listed timer's name: "set timers for the rice 18 min and the salmon
# 12 min" names the rice's and the salmon's.
_AROUND_A_NAME = frozenset((
    "set", "start", "put", "make", "timers", "timer", "one", "ones", "for", "the", "a", "an",
    "and", "then", "also", "plus", "another", "with", "of", "my",
))  # fmt: skip


def _each_named(
    calls: list[PlannedCall], timers: list[PlannedCall], words: str
) -> list[PlannedCall]:
    """Several timers of one clause, each named by the word or two said just before its
    duration; all left unnamed unless every one has a name."""
    from understanding.arguments.qualifiers import duration_after, tokens_of
    from understanding.arguments.timer_labels import timer_label

    tokens = tokens_of(words)
    spans: list[tuple[int, int]] = []
    k = 0
    while k < len(tokens):
        n = duration_after(tokens, k) if tokens[k] not in ("the", "next", "another") else 0
        spans, k = ([*spans, (k, k + n)], k + n) if n else (spans, k + 1)
    if len(spans) != len(timers) or all(t.args.get("label") for t in timers):
        return calls
    names, start = [], 0
    for (begin, end), timer in zip(spans, timers, strict=True):
        said = [w for w in tokens[start:begin] if w.isalpha() and w not in _AROUND_A_NAME]
        name = " ".join(said)
        start = end
        if timer.args.get("label"):  # named by its own clause ("5 min for the tea")
            names.append(str(timer.args["label"]))
            continue
        if not 1 <= len(said) <= 2 or timer_label(f"a {name} timer") != name:
            return calls
        names.append(name)
    named = iter(names)
    return [
        PlannedCall(c.tool, {**c.args, "label": next(named)}) if c in timers else c for c in calls
    ]


def with_qualifiers(call: PlannedCall, words: str) -> PlannedCall:
    """A device command with the qualifiers its words say and the device executes
    (``understanding.arguments.qualifiers.device_qualifiers``, as the device's router
    reads them): every room, the rooms left out, a clock time (``at``), a while (``for``).
    A number inside a time ("at 6:30", "for 20 minutes") is no level: a ``set`` whose only
    number is the time's is the action the words say without it."""
    from understanding.arguments.qualifiers import device_qualifiers, without_times

    if call.tool != it.DEVICE:
        return call
    qualified = device_qualifiers(words)
    if not qualified:
        return call
    args = dict(call.args)
    if args.get("room") in qualified.get("except", ()):
        args.pop("room")  # "all the lights except the bedroom": no command of the bedroom's
    if args.get("room") and qualified.get("room") == "all":
        qualified.pop("room")  # "all the lights in the kitchen" is the kitchen's
        qualified.pop("except", None)
    if ("at" in qualified or "for" in qualified) and args.get("action") == "set":
        said = without_times(words)
        if it.find_value(said) is None:
            action = it.find_action(said, str(args.get("device")))
            if action is None or action == "set":
                return call  # no command left once the time is set aside: the check decides
            args["action"] = action
            args.pop("value", None)
    args.update(qualified)
    return PlannedCall(call.tool, args)


_FRAMED = re.compile(r"^([\w' ]{0,30}?)\s*:\s*")


def as_written(text: str, query: str) -> str:
    """A note's or a search's words as the person wrote them: the frame before a colon
    dropped ("this down: meeting at 3" -> "meeting at 3"), then the span of the query
    they came from ("3 pm" -> "3pm", "4 b" -> "4B"); the planner's reading when the query
    holds no such span (numbers said in words)."""
    from understanding.policy import note_frame

    framed = _FRAMED.match(text)
    if framed and all(note_frame(t) for t in framed.group(1).split()):
        text = text[framed.end() :]
    tokens = re.findall(r"\w+", text)
    if not tokens:
        return text
    gap = r"[\s,.;:!?'\"()-]*"
    pattern = r"\b" + gap.join(_as_said(t) for t in tokens) + r"\b"
    found = re.search(pattern, query, re.IGNORECASE)
    return found.group(0) if found else text


def _as_said(token: str) -> str:
    """A token of the planner's reading as the query may say it: a number read from words
    ("not the red one" -> "1") matches its words."""
    from understanding.arguments.numbers import spell_number

    if not token.isdigit() or int(token) >= 100 or token.startswith("0"):
        return re.escape(token)
    words = r"[\s-]+".join(re.escape(w) for w in spell_number(int(token)).split())
    return rf"(?:{re.escape(token)}|{words})"


def whole_note(args: dict[str, Any], text: str) -> dict[str, Any]:
    """A note's text as said, entire: the reader may keep part of it ("the wifi password
    is: sunflower 42" read as "sunflower 42"); the words after the request's verb are the
    note when they hold every word of the reader's."""
    if args.get("list") or not isinstance(args.get("text"), str):
        return args
    whole = own_arguments(it.ADD_NOTE, text)
    said = str(whole.get("text", "")) if whole else ""
    read = str(args["text"]).lower().split()
    if re.match(r"(?:add|put|stick|pop)\b", said.lower()):
        return args  # "add eggs | and flour to the list": the verb is no word of the item
    if len(said.split()) > len(read) and set(read) <= set(said.lower().split()):
        return {**args, "text": said}
    return args


def device_call(
    clause: it.Clause, previous: it.Clause | None, extractor: it.Extractor | None
) -> list[PlannedCall]:
    args = it.edge_arguments(it.DEVICE, clause.text, extractor) or {}
    device = clause.device or args.get("device")
    if device is None and previous is not None and previous.tool == it.DEVICE:
        device = previous.device  # "turn on the heater and | set it to 23"
    if device is None and re.search(r"\bvolume\b", clause.text) and previous is not None:
        device = previous.device
    action = clause.action or args.get("action")
    if action is None and previous is not None and previous.tool == it.DEVICE:
        action = previous.action
    if device is None or action is None:
        return []
    clause.device, clause.action = device, action
    out: dict[str, Any] = {"device": device, "action": action}
    room = clause.room or args.get("room")
    if room is None and clause.refers_back and previous is not None and previous.device == device:
        room = previous.room  # "turn on the lights in the living room and set them to 50"
    if room is None and re.search(r"\bthere\b", clause.text) and previous is not None:
        room = previous.room  # "turn off the heater in the nursery and the fan on there"
    if room:
        out["room"] = room
    if action == "set":
        value = args.get("value", clause.value)
        if value is None and re.search(r"\bto\s+(?:that|it|the\s+result)\b", clause.text):
            value = PREV  # "convert 72 f to c and set the ac to that"
        same = previous is not None and previous.action == "set" and previous.device == device
        lent = clause.own_tool != it.DEVICE  # the command is the one before's, for more rooms
        if value is None and same and lent and previous is not None and previous.value is not None:
            said = previous.value  # "dim the lights to 40 | and do the same in the den"
            value = int(said) if float(said).is_integer() else said
        if value is not None:
            out["value"] = value
    return [PlannedCall(it.DEVICE, out)]


QUANTITY = re.compile(r"(-?\d+(?:\.\d+)?)\s*(°?\s*[a-z]+(?:/[a-z]+)?)")


TEMPERATURE_SCALE = re.compile(r"\bin\s+(?:degrees\s+)?(fahrenheit|kelvin)\b")
SCALES = {"fahrenheit": "f", "kelvin": "k", "celsius": "c"}


def temperature_args(target: str) -> dict[str, Any]:
    return {"value": PREV, "from_unit": "c", "to_unit": target}


def convert_call(
    clause: it.Clause,
    text: str,
    extractor: it.Extractor | None,
    previous: it.Clause | None = None,
) -> list[PlannedCall]:
    args = it.edge_arguments(it.CONVERT, clause.text, extractor)
    if args and args.get("value") is not None:
        return [PlannedCall(it.CONVERT, args)]
    later = _target_said_later(clause, text, extractor)
    if later is not None:
        return [later]  # "convert 5 lb | and 2500 g both to kilograms": the unit said last
    if clause.refers_back and previous is not None and previous.tool in (it.CALCULATOR, it.CONVERT):
        # "20% of 80 and convert the answer from kg to lb": the value is the last result.
        units = units_of(clause.text, extractor)
        if units is not None:
            return [PlannedCall(it.CONVERT, {"value": PREV, **units})]
    scale = re.search(r"\b(?:in|to|into)\s+(?:degrees\s+)?(fahrenheit|kelvin)\b", clause.text)
    if scale and previous is not None and previous.tool == it.WEATHER:
        # "weather in Paris | and convert the temperature to Fahrenheit"
        return [PlannedCall(it.CONVERT, temperature_args(SCALES[scale.group(1)]))]
    target = re.search(r"\b(?:in|to|into)\s+([a-z°]+)", clause.text) or it.target_unit(clause.text)
    own = [
        m for m in QUANTITY.finditer(clause.text) if target is None or m.start() < target.start()
    ]
    if own:
        # "12 lb and 30 lb to kg": each quantity of its own, never one said before
        probes = (
            [f"convert {m.group(1)} {m.group(2)} to {target.group(1)}" for m in own]
            if target
            else []
        )
        each = [it.edge_arguments(it.CONVERT, probe, extractor) for probe in probes]
        if each and all(a and a.get("value") is not None for a in each):
            return [PlannedCall(it.CONVERT, a) for a in each if a]
        return []
    # "note that the fence is 12 feet | and tell me that in meters": the quantity is earlier.
    before = text[: text.find(clause.text)] if clause.text in text else text
    for match in reversed(list(QUANTITY.finditer(before))):
        if target is None:
            break
        probe = f"convert {match.group(1)} {match.group(2)} to {target.group(1)}"
        args = it.edge_arguments(it.CONVERT, probe, extractor)
        if args and args.get("value") is not None:
            return [PlannedCall(it.CONVERT, args)]
    return []


def _target_said_later(
    clause: it.Clause, text: str, extractor: it.Extractor | None
) -> PlannedCall | None:
    """The clause's one quantity converted into the unit a later clause names, or None."""
    quantities = list(QUANTITY.finditer(clause.text))
    at = text.find(clause.text)
    target = re.search(r"\b(?:to|into|in)\s+([a-z°]+)", text[at + len(clause.text) :])
    if len(quantities) != 1 or at < 0 or target is None:
        return None
    value, unit = quantities[0].groups()
    args = it.edge_arguments(it.CONVERT, f"convert {value} {unit} to {target[1]}", extractor)
    return PlannedCall(it.CONVERT, args) if args and args.get("value") is not None else None


def units_of(clause_text: str, extractor: it.Extractor | None) -> dict[str, Any] | None:
    """The canonical units of a conversion of an earlier result ("from kg to lb")."""
    pair = re.search(r"\bfrom\s+([a-z°]+)\s+(?:to|into|in)\s+([a-z°]+)", clause_text)
    if pair is None:
        return None
    probe = f"convert 1 {pair.group(1)} to {pair.group(2)}"
    args = it.edge_arguments(it.CONVERT, probe, extractor)
    if not args or not args.get("from_unit") or not args.get("to_unit"):
        return None
    return {"from_unit": args["from_unit"], "to_unit": args["to_unit"]}


_OPS: tuple[tuple[str, str], ...] = (
    (r"\b(?:times|multipl\w*(?:\s+by)?)\s*(?:it\s+|that\s+|them\s+)?(?:by\s+)?(-?[\d.]+)", "*"),
    (r"\bdivide\w*\s*(?:it\s+|that\s+|them\s+)?by\s+(-?[\d.]+)", "/"),
    (r"\b(?:add|plus)\s+(-?[\d.]+)", "+"),
    (r"\b(?:subtract|minus|take\s+away)\s+(-?[\d.]+)", "-"),
    (r"\b(?:to\s+the\s+power\s+of|power\s+of)\s+(-?[\d.]+)", "^"),
)


def expression(clause: it.Clause, previous: it.Clause | None) -> str | None:
    """The calculator expression; ``{prev}`` when the clause works on an earlier result.
    None when an operand is a word no number stands for ("my rent times 12")."""
    body = clause.text
    uses_prev = previous is not None and clause.refers_back
    if uses_prev:
        for pattern, op in _OPS:
            match = re.search(pattern, body)
            if match:
                return f"{PREV} {op} {match.group(1)}"
        if re.search(r"\bdouble\b", body):
            return f"{PREV} * 2"
        if re.search(r"\bhalf\b", body):
            return f"{PREV} / 2"
        if re.search(r"\bsquared\b", body):
            return f"{PREV} ^ 2"
    expr = body
    for words, symbol in (
        (r"\bdivided\s+by\b|\bover\b", "/"),
        (r"\bmultiplied\s+by\b|\btimes\b|\bx\b", "*"),
        (r"\bplus\b", "+"),
        (r"\bminus\b", "-"),
        (r"\bpercent\b", "%"),
        (r"\bsquared\b", "^2"),
        (r"\bsquare\s+root\s+of\b", "sqrt"),
    ):
        expr = re.sub(words, f" {symbol} ", expr)
    expr = re.sub(r"[^0-9.+\-*/^%()sqrtof ]", " ", expr)
    tokens = re.findall(r"sqrt|of|\d+(?:\.\d+)?|[-+*/^%()]", expr)
    if tokens and tokens[0] in ("+", "*", "/", "^") and _WORD_OPERAND.search(body):
        return None  # "my salary divided by 12": the salary is no number said
    while tokens and tokens[0] in ("of", "+", "*", "/", "^", "%"):
        tokens.pop(0)
    return " ".join(tokens) or None


_WORD_OPERAND = re.compile(
    r"\b(?:my|our|the|his|her|their|your)\s+[a-z]+\s+(?:divided\s+by|over|multiplied\s+by|"
    r"times|x|plus|minus)\s+\d"
)


NOTE_PREFIX = re.compile(
    r"^.*?\b(?:add\s+(?=.+\bto\s+(?:my\s+)?notes\b)|add(?:\s+a)?\s+note(?:\s+(?:to|that|saying|says|:))?|add\s+one\s+saying|"
    r"make\s+a\s+note(?:\s+(?:to|that))?|(?:note|write|jot)(?:\s+(?:this|it|these))?\s+down"
    r"(?:\s*[:-])?|note\s+(?:that|to)|note\s*:|jot|remind\s+me\s+to|remember\s+(?:that|to)|save\s+a\s+note(?:\s+to)?|"
    r"new\s+note(?:\s+to)?|(?:a|another)\s+note\s*(?:saying|that\s+says|reading|to|that|:))\s*"
)
SEARCH_PREFIX = re.compile(
    r"^.*?\bwhat\s+did\s+i\s+(?:note|write|save)\s+(?:about|on|regarding)\s+|"
    r"^(?:\w+\s+){0,2}(?:did|have|had)\s+(?:i|we)\s+(?:\w+\s+)?(?:note|noted|write|written|"
    r"wrote|jot|jotted|save|saved|keep|kept)(?:\s+(?:down|anything|something))*"
    r"(?:\s+(?:about|on|regarding))?\s+|\s+(?:anywhere|somewhere)$|"
    r"^.*?\bdo\s+i\s+have\s+(?:any\s+)?notes?\s+(?:about|on|for)\s+|"
    r"^.*?\b(?:search|look|find)\s+(?:for\s+)?(?=.+\s+in\s+my\s+notes)|\s+in\s+my\s+notes.*$|"
    r"^.*?\bnotes?\s+(?:for|about|on|regarding|mentioning)\s+|^.*?\bnote\s+about\s+"
)


def own_arguments(tool: str, text: str) -> dict[str, Any] | None:
    if tool == it.ADD_NOTE:
        note = NOTE_PREFIX.sub("", text).strip(" :,.-")
        note = re.sub(r"\s+to\s+(?:my\s+)?notes$", "", note).strip(" '\"")
        note = re.sub(r"^(?:to|that|saying)\s+", "", note)
        return {"text": note} if note else None
    if tool == it.SEARCH_NOTES:
        query = SEARCH_PREFIX.sub("", text).strip(" :,.")
        query = re.sub(r"^(?:the|my)\s+", "", query)
        return {"query": query} if query else None
    if tool == it.TIMER:
        seconds = parse_duration(text)
        return {"seconds": seconds} if seconds else None
    return None


_LONG_AS_RESULT = re.compile(r"\bfor\s+(?:that|this|as)\s+long\b|\bthat\s+long\b")
_TIME_UNITS = {"second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "hour": 3600, "h": 3600}


def as_long_as(clause: it.Clause, previous: it.Clause | None) -> int | None:
    """The seconds of one of the unit a conversion before gave its result in, for a
    timer "for that long" ("what is 8 minutes in seconds, | and set a timer for that
    long": 1); None when the clause asks no such timer or the unit is no unit of time."""
    if previous is None or previous.tool != it.CONVERT or not _LONG_AS_RESULT.search(clause.text):
        return None
    target = it.target_unit(previous.text)
    if target is None:
        return None
    unit = target.group(1).lower()
    return _TIME_UNITS.get(unit) or _TIME_UNITS.get(unit.rstrip("s"))


def status_call(clause: it.Clause, previous: it.Clause | None) -> list[PlannedCall] | None:
    """The read a device question asks for ("is the plug on?"; "and is the fan on there")."""
    device = clause.device or (previous.device if previous is not None else None)
    if device is None:
        return None
    there = previous is not None and re.search(r"\bthere\b", clause.text) is not None
    room = clause.room or (previous.room if there and previous is not None else None)
    return [PlannedCall(it.STATUS, {"device": device, **({"room": room} if room else {})})]
