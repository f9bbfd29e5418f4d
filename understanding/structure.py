"""Structural checks: does a query ask for more than one tool call?

The intent model reads a query as a whole; a compound request ("turn off the lights and
lock the door", "check the weather in Rome, then set a timer") can still look like one
tool to it. These checks split the query at its joiners and look for a second request
that starts a new clause, and for the words of comparison and advice that make a
weather or time query the cloud's ("warmer than", "should I", "difference between").
They are rules about English, written from the tool descriptions, not from any eval set.

They serve the frozen-heads router, which reads intents only. A joint intent + slot model
finds every request of an utterance and which words belong to which (issue 11): with it
the router takes the compound structure from the model and keeps only the checks that are
about one request, not about how many there are (:func:`request_reason`: a condition or
schedule on a device command, a comparison or advice around a lookup), and the one about
a part no device tool does ("... and text it to my sister", "then show me the steps"):
pointing back at the first does not make it part of the first, so both paths send it on.
"""

from __future__ import annotations

import re
from typing import Any

from understanding.arguments.numbers import normalise_numbers
from understanding.arguments.spelling import correct
from understanding.arguments.units import unit_arguments
from understanding.gazetteer import find_cities

_JOINERS = re.compile(
    r"\s*(?:,?\s*\band then\b|,?\s*\bthen\b|,?\s*\band also\b|,?\s*\balso\b|,?\s*\bafter that\b|"
    r",?\s*\bafterwards\b|,?\s*\bplus\b|,?\s*\band\b|;|&|\.\s+|,)\s*",
    re.IGNORECASE,
)
# How a new request opens: a command verb or a question about another tool's domain.
_REQUEST_START = re.compile(
    r"^(?:please\s+|can you\s+|could you\s+|pls\s+|also\s+|and\s+|then\s+)*(?:"
    r"(?:set|start|make|put|give me|create)\s+(?:a|an|the|me a|my)?\s*(?:\S+\s+)?"
    r"(?:timer|countdown|alarm|note|reminder)|"
    r"(?:turn|switch|shut|power|flip)\s+(?:\S+\s+){0,3}?(?:on|off|up|down)\b|"
    r"(?:turn|switch|shut|power|flip|kill|dim|brighten)\s+(?:on|off|the|my|all)\b|"
    r"(?:lock|unlock|open|close)\s+(?:the|my|all)\b|"
    r"i (?:want|need) (?:the|my)\s+(?:\S+\s+){1,3}?(?:on|off)\b|"
    r"can (?:the|my|you get the)\s+(?:\S+\s+){1,3}?be\s+(?:switched|turned|put)\b|"
    r"(?:set|dim|raise|lower|adjust)\s+(?:the|my|all)\s+(?!timer)|"
    r"(?:add|take|make|jot|write|save)\s+(?:down\s+|a\s+|me\s+a\s+|this\s+)*(?:note|memo)|"
    r"(?:jot|write|note)\s+(?:it\s+|that\s+|this\s+)?down|note\s+(?:that|:)|remember\s+that|"
    r"remind me\b|wake me\b|"
    r"(?:what(?:'s| is| s)?|whats|how(?:'s| is)?|tell me|check|give me|get me|show me|and)\s+"
    r"(?:the\s+)?(?:weather|forecast|temperature|time\b|local time|current time)|"
    r"(?:what|which)\s+time\b|"
    r"(?:is it|will it|is it going to)\s+(?:\S+\s+)?(?:rain|snow|sunny|cold|hot|warm|windy)|"
    r"(?:convert|calculate|compute|work out|search|look up|look for)\b|"
    r"find\b(?!\s+(?:it|that|them|this)\b)|"
    r"(?:what|where) did i (?:note|write|jot|save|put)|did i (?:note|write|jot|save)|"
    r"have i got anything|show me (?:my |the |any )?notes?|(?:pull|dig) up (?:my|the)|"
    r"how many\s+\S+\s+(?:in|is|are)\b|"
    r"(?:time|weather|forecast)\s+(?:in|for|at)\b"
    r")",
    re.IGNORECASE,
)
_REQUEST_ANYWHERE = re.compile(r"(?:^|\s)" + _REQUEST_START.pattern[1:], re.IGNORECASE)
# Arithmetic in a clause (after number words became digits): an operator between numbers.
_ARITHMETIC = re.compile(
    r"\d\s*(?:[-+*/x×÷^%]|plus|minus|times|over|divided|multiplied|per ?cent|percent)\s*"
    r"(?:by\s+|of\s+)?\d|(?:square|cube)(?: root)? of\s+\d|\d\s+(?:squared|cubed)\b|"
    r"\b(?:double|triple|twice|half of)\s+\d",
    re.IGNORECASE,
)
# A clause that points back at the first ("convert that to mph", "can you find it")
# continues the same request.
_BACK_REFERENCE = re.compile(
    r"^(?:\S+\s+){0,3}?(?:it|that|this|them|those|these)\b"
    r"|\b(?:it|that|this|them|those|these)\s*[?.!]*$",
    re.IGNORECASE,
)
# A clause that asks for what no device tool does: passing the answer on, producing a text
# from it, showing how it was found. Pointing back at the first ("and text it to my sister",
# "then write a short summary of it") does not make it part of the first: the device would
# drop it, so the whole request is the cloud's.
_UNSERVED_START = re.compile(
    r"^(?:please\s+|pls\s+|can you\s+|could you\s+|would you\s+|will you\s+|now\s+|just\s+|"
    r"also\s+|and\s+|then\s+|after that\s+)*(?:"
    r"(?:text|send|e-?mail|mail|message|msg|post|share|tweet|forward|upload|publish|print|"
    r"ring|phone|dm|whatsapp|fax|explain|summari[sz]e|translate|draft|compose|plot|graph|"
    r"draw|sketch|book|order|buy|reserve|schedule|teach|prove)\b|"
    r"call\b(?!\s+(?:it|this|that|the timer)\b)|"
    r"write\b(?!\s+(?:it\s+|that\s+|this\s+)?down\b|\s+(?:a\s+|me\s+a\s+)?(?:note|memo|reminder)s?\b)|"
    r"tell\s+(?!me\b|us\b)\w+|tell me (?:why|the reason)\b|"
    r"(?:show|give|list)\s+(?:me\s+|us\s+)?(?:the\s+|your\s+|all\s+(?:the\s+)?)?"
    r"(?:steps?|working|workings|method|proof|derivation|reasoning|graph|chart|explanation|"
    r"breakdown|sources?)\b|"
    r"show (?:me )?how\b|walk me through|break (?:it|that|this) down"
    r")",
    re.IGNORECASE,
)
# A command of its own in a clause that holds none of the intent's words ("feed the cat and
# tell me the weather in Oslo"): a word that opens the clause as a verb does, followed by
# the thing it acts on. Closed-class words (pronouns, determiners, auxiliaries, question
# words, prepositions, greetings) open statements, questions and context, never a command,
# so "I'm cooking, set a timer" and "good morning, what's the weather" stay one request.
_CLOSED = frozenset(
    """i i'm im i've ive i'd id i'll ill me my we we're our us you you're your it it's its
    he she they their them this that these those there here the a an some any every each
    all both no not is are was were be been am do does did don't doesn't have has had will
    would can could should shall may might must what what's whats when where which who whom
    whose why how how's if so but or and then also just now well oh ok okay hey hi hello
    yes yeah yep no nope sorry thanks thank please pls plz good great nice morning evening
    afternoon night today tonight tomorrow in on at for to from of with by about into over
    after before since until as like than let let's lets quick quickly really very maybe""".split()  # noqa: SIM905
)
_OWN_COMMAND = re.compile(
    r"^(?:please\s+|pls\s+|also\s+|and\s+|then\s+|now\s+|just\s+)*(?P<verb>[a-z]+)\s+"
    r"(?:the|my|our|your|a|an|some|his|her|their|this|that)\s+\w+",
    re.IGNORECASE,
)


def _own_command(part: str, intent: str) -> bool:
    """A clause that is a command of its own: a verb acting on a thing, none of the intent's
    words in it (an intent with no cue words tells no command apart). For arithmetic and
    conversions a number is no cue ("water the fern with 200 ml"): the clause must read as
    one."""
    found = _OWN_COMMAND.match(part.strip())
    cue = _INTENT_CUES.get(intent)
    if found is None or cue is None:
        return False
    if intent in ("calculator", "unit_convert"):
        if _is_request(part) or re.search(r"\b(?:convert|how many|how much)\b", part, re.I):
            return False
    elif cue.search(part):
        return False
    verb = found.group("verb").lower()
    return verb not in _CLOSED and not verb.endswith("ly") and not find_cities(verb)


# Intents whose words after the request are its content ("remind me to call mom and text
# dad"): the side-effect policy reads their second requests around what they keep.
_CONTENT_INTENTS = frozenset({"add_note", "remove_note", "set_timer", "cancel_timer"})
# Words that may trail a single request after a comma or "and" without being one.
_FILLER = frozenset(
    """please pls plz thanks thank you thx ty cheers now right now rn today ok okay
    mate buddy friend dude sir again too there then quickly asap""".split()  # noqa: SIM905
)
# What a clause of each intent's own request contains.
_INTENT_CUES: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "calculator": r"\d|\b(?:plus|minus|times|divided|percent|squared|cubed|root|sum)\b|%",
        "unit_convert": r"\d|\b(?:convert|how many|how much)\b",
        "get_weather": r"\b(?:weather|forecast|rain\w*|snow\w*|sunny|temperature|hot|cold|warm|"
        r"umbrella|wind\w*|fog\w*)\b",
        "world_clock": r"\b(?:time|clock)\b",
        "set_timer": r"\b(?:timer|countdown|remind|alarm|min\w*|sec\w*|hours?|hrs?)\b",
        "device_control": r"\b(?:on|off|lights?|lamps?|ac|aircon|heat\w*|fan|tv|door|lock|"
        r"blinds|curtains|thermostat|speakers?|music|set|dim)\b",
        "add_note": r"\b(?:note|jot|memo)\b|\bwrite (?:it |this |that )?down\b",
        "search_notes": r"\b(?:notes?|wrote|saved|find|search|look)\b",
    }.items()
}
# The words of a comparison, a plan or advice: answering needs reasoning on top of a tool.
_REASONING = re.compile(
    r"\b(?:than|compare[ds]?|comparison|versus|vs\.?|warmer|colder|hotter|cooler|sunnier|"
    r"rainier|wetter|windier|drier|difference|differ|why|how come|which (?:city|one|is|place)|"
    r"(?:should|shall) i (?:bring|take|wear|pack|go|do|plan|cancel|carry|leave|stay)|"
    r"good (?:day|idea|time) (?:to|for)|what (?:to|should i) wear|"
    r"what to pack|ok to go|okay to go|safe to|worth (?:it|going)|plan (?:a|my|the)|"
    r"if it'?s|when it'?s|in (?:celsius|fahrenheit|kelvin)|to (?:celsius|fahrenheit|kelvin)|"
    r"ahead of|behind|hours? ahead|hours? behind|both|each|every|all of)\b",
    re.IGNORECASE,
)
_REASONING_TOOLS = frozenset({"get_weather", "world_clock"})


def clauses(text: str) -> list[str]:
    """The query split at its joiners ("and", "then", ";", ", also" ...), empty parts dropped."""
    return [part.strip() for part in _JOINERS.split(text) if part and part.strip()]


def second_request(text: str, intent: str) -> bool:
    """True when the query holds a second request besides the one classified as ``intent``.

    Either two clauses each contain a request, or a clause after the first opens with one
    while the text before it already carries the intent's own cue. Context before a single
    request ("I'm cooking, so set a timer") is not a request; a note's content may itself
    contain "and" ("buy milk and eggs"), and for arithmetic "and" is "plus".
    """
    # Numbers first, so "four hundred and nineteen" is one clause, not two.
    parts = clauses(normalise_numbers(text))
    if len(parts) < 2:
        return False
    if intent in _REASONING_TOOLS and _another_subject(clauses(text)[1:], intent):
        return True
    if unserved_request(text, intent):
        return True
    requests = [_is_request(part) for part in parts]
    if sum(requests) >= 2:
        return True
    cue = _INTENT_CUES.get(intent)
    for k in range(1, len(parts)):
        part = parts[k]
        if not _REQUEST_START.match(part):
            continue
        if _BACK_REFERENCE.search(part) and (cue is None or cue.search(part)):
            continue  # the same request goes on ("and is it going to rain")
        if intent == "calculator" and re.match(r"^[\d\s.+\-*/^%()x]+$", part):
            continue
        before = " ".join(parts[:k])
        if cue is not None and cue.search(before):
            return True
    return False


def _unserved(parts: list[str]) -> bool:
    """A clause after the first asks for what no device tool does (see ``_UNSERVED_START``)."""
    return any(_UNSERVED_START.match(part) for part in parts[1:])


def opens_unserved(part: str) -> bool:
    """Whether one clause opens with a request no device tool does ("email my boss that
    i'll be 20 min late"): a number in it is that request's, no timer's."""
    return _UNSERVED_START.match(part.strip()) is not None


_POINTS_BACK = re.compile(r"\b(?:it|this|that|them|those)\b", re.IGNORECASE)


def unserved_about_it(text: str) -> str | None:
    """The later clause of a note's or a label's words that asks for what no device tool
    does with the thing itself ("buy milk | and email it to my wife"): a request about
    the note, not its content, which storing the words would drop. None when no clause
    does; "call mum and ask about sunday" stays content (it points at nothing)."""
    parts = clauses(normalise_numbers(text))
    return next((p for p in parts[1:] if _UNSERVED_START.match(p) and _POINTS_BACK.search(p)), None)


def unserved_request(text: str, intent: str) -> bool:
    """True when a clause after the first asks for something no device tool does ("and
    text it to my sister", "then show me the steps"), even pointing back at the first: the
    device would drop that part. Not for the intents whose content the words after the
    request may be (a note's text, a reminder's label)."""
    if intent in _CONTENT_INTENTS:
        return False
    parts = clauses(normalise_numbers(text))
    if len(parts) > 1 and any(_own_command(part, intent) for part in parts):
        return True  # "feed the cat and tell me the weather": a command no tool was read for
    return _unserved(parts)


def _is_request(part: str) -> bool:
    """A clause that asks for something a tool does: a command, arithmetic or a conversion."""
    if _REQUEST_ANYWHERE.search(part):
        return True
    if _ARITHMETIC.search(normalise_numbers(part)):
        return True
    return unit_arguments(part) is not None


_DAY = re.compile(
    r"\b(?:today|tonight|tomorrow|tmrw|yesterday|weekend|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|morning|evening|afternoon)\b",
    re.IGNORECASE,
)


def _another_subject(later: list[str], intent: str) -> bool:
    """A short trailing clause that is not filler names a second place or day ("and Oslo")."""
    cue = _SUBJECT_CUES[intent]
    for part in later:
        words = part.lower().strip(" ?!.").split()
        if not 1 <= len(words) <= 3 or cue.search(part):
            continue
        if all(word in _FILLER for word in words):
            continue
        if find_cities(part) or _DAY.search(part) or re.search(r"\b[A-Z][a-z]+", part):
            return True
    return False


def needs_reasoning(text: str, intent: str) -> bool:
    """True when a weather or time query compares, plans or asks for advice.

    A question about one item of weather gear on a day the forecast holds ("should I
    wear a jacket today", "do I need an umbrella") is a forecast lookup: the device answers
    with the reading the item depends on (:mod:`understanding.arguments.gear`), so its
    "should I wear" is no advice asked of the cloud; the rest of the words still count."""
    if intent not in _REASONING_TOOLS:
        return False
    if intent == "get_weather":
        from understanding.arguments.gear import ASKING, gear_question

        if gear_question(text) is not None:
            text = ASKING.sub(" ", text.lower())
    # "tell me if it's going to rain": a question asked, not a condition
    return bool(_REASONING.search(_EMBEDDED_QUESTION.sub(" ", text)))


# A weather or time lookup names its subject; a city alone ("population of Mumbai") is not one.
_SUBJECT_CUES: dict[str, re.Pattern[str]] = {
    "get_weather": re.compile(
        r"\b(?:weather|wether|weahter|wheather|weathr|whether|forecast|forcast|tmp\w*|tem\w*|"
        r"rain\w*|snow\w*|sun\w*|cloud\w*|"
        r"wind\w*|fog\w*|mist\w*|temp\w*|hot|cold|warm|chilly|freezing|umbrella|jacket|coat|"
        r"degrees|humid\w*|storm\w*|thunder\w*|outside|shine|conditions|like out|like there|"
        r"like today|like tomorrow|heat|sweater|shorts|drizzl\w*|hail|clear|grey|gray|overcast|"
        r"scorching|boiling|nice out|skies|sky)\b",
        re.IGNORECASE,
    ),
    "search_notes": re.compile(
        r"\b(?:note\w*|nots|memos?|wrote|written|write|jot\w*|saved?|stored?|"
        r"said|remember\w*|recall)\b",
        re.IGNORECASE,
    ),
    "world_clock": re.compile(
        r"\b(?:time|clock|hour|o'?clock|late|early|morning|night|evening|afternoon|midnight|daytime|"
        r"nighttime|dark|"
        r"noon|awake|asleep|tiem|tme|date|day|weekday)\b",
        re.IGNORECASE,
    ),
}


def missing_subject(text: str, intent: str) -> bool:
    """True when a weather, time or note query never mentions weather, time or notes."""
    cue = _SUBJECT_CUES.get(intent)
    return cue is not None and not cue.search(text) and not cue.search(correct(text))


# A device command with a condition or a schedule is an automation, not one call now.
_CONDITIONAL = re.compile(
    r"\b(?:if|when|whenever|unless|once|as soon as|until|"
    # "every" schedules with a time ("every morning", "every 10 minutes"); before a device
    # or a room it counts them ("every light of the room"), which is one command now.
    r"(?:every|each)\s+(?:[\w']+\s+){0,2}?(?:\d+|days?|nights?|mornings?|evenings?|"
    r"afternoons?|hours?|min\w*|sec\w*|weeks?|weekdays?|weekends?|time|few|couple|half|"
    r"quarter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"at sunset|at sunrise|at night|at (?:\d|noon|midnight)|in \d+ (?:min\w*|hours?|sec\w*)|"
    r"in (?:an|a|half an) (?:hour|minute)|tonight at|tomorrow|later)\b",
    re.IGNORECASE,
)


# Politeness that looks like a condition: "if that's ok", "when you get a chance".
_POLITE_CONDITIONS = re.compile(
    r"\b(?:if (?:that'?s|it'?s) (?:ok|okay|alright|fine|possible)|if (?:you|u) (?:can|could|"
    r"don'?t mind|please|would)|if possible|when you (?:can|get a (?:chance|sec|moment|minute)|"
    r"have a (?:sec|moment|minute))|i'?m going out later|later on today)\b",
    re.IGNORECASE,
)


# A request made on a condition ("if it rains tomorrow remind me to take the umbrella"):
# the forecast is read only to decide, and the device cannot wait for the condition.
_CONDITIONED_REQUEST = re.compile(
    r"\b(?:if|when|unless|once|whenever)\b.+\b(?:remind|wake|tell|text|ping|alert|warn|"
    r"let)\s+(?:me|us)\b|\b(?:remind|wake|text|ping|alert|warn)\s+(?:me|us)\b.+\b(?:if|"
    r"unless|whenever)\b",
    re.IGNORECASE,
)
_EMBEDDED_QUESTION = re.compile(
    r"\b(?:(?:tell|show|let)\s+(?:me|us)(?:\s+know)?|check|see|know|wonder(?:ing)?|ask)"
    r"\s+(?:if|whether)\b",
    re.IGNORECASE,
)


def conditioned_request(text: str) -> bool:
    """Whether the words make a request on a condition ("if it snows tomorrow remind me to
    take boots"); "tell me if it's going to rain" asks a question, no condition."""
    return bool(_CONDITIONED_REQUEST.search(_EMBEDDED_QUESTION.sub(" ", text)))


# A remark said after a request, about the speaker ("..., i want to ring my daughter",
# "..., i'm on holiday next week"): context, which asks for nothing.
_TRAILING_REMARK = re.compile(
    r"^(?:(?:cause|because|cos|since|as|so)\s+)?(?:i|i'm|im|i've|ive|i'll|i'd|we|we're|"
    r"we've|we'll|my|our)\s+(?!.*\?)"
)


def trailing_remark(text: str) -> tuple[str, str] | None:
    """``(request, remark)`` when the words end, after a comma or a full stop, with a
    remark about the speaker that asks for nothing, names no time and holds no request of
    its own; else None. The request is then read alone."""
    from understanding.arguments.qualifiers import find_qualifiers, is_question

    cut = max(text.rfind(", "), text.rfind(". "))
    if cut <= 0:
        return None
    head, tail = text[:cut].strip(), text[cut + 2 :].strip(" .!")
    if not head or not _TRAILING_REMARK.match(tail.lower()) or is_question(tail):
        return None
    if _is_request(tail) or find_qualifiers(tail) or _CONDITIONAL.search(tail):
        return None  # "..., i'll be back at 6": the remark says when
    return head, tail


def compound_reason(text: str, intent: str) -> str | None:
    """Why the query is more than one tool call, or None when it is a single request."""
    if intent == "device_control" and _CONDITIONAL.search(_POLITE_CONDITIONS.sub(" ", text)):
        return "conditional or scheduled device command"
    if intent in _REASONING_TOOLS and conditioned_request(text):
        return "a request on a condition the device cannot wait for"
    if missing_subject(text, intent):
        return f"no {intent} subject in the query"
    if second_request(text, intent):
        return "compound: a second request follows the first"
    if needs_reasoning(text, intent):
        return "needs reasoning: comparison or advice on top of the tool"
    return None


def request_reason(text: str, intent: str) -> str | None:
    """Why one request the joint model found is not one plain tool call (a scheduled or
    conditional device command, a comparison or advice, a later part that asks for what no
    device tool does), or None. How many device requests the utterance holds is the
    model's to say, not this module's; a part no tool does is no request of the model's."""
    if intent == "device_control" and _CONDITIONAL.search(_POLITE_CONDITIONS.sub(" ", text)):
        return "conditional or scheduled device command"
    if intent in _REASONING_TOOLS and conditioned_request(text):
        return "a request on a condition the device cannot wait for"
    if needs_reasoning(text, intent):
        return "needs reasoning: comparison or advice on top of the tool"
    if unserved_request(text, intent):
        return "compound: a part asks for what no device tool does"
    return None


# A preposition a request ends with when the model cut its argument off as a request of
# its own ("start the coffee machine at | 6:45"); a word that opens a request's noun
# when the model cut the request after it ("the | tv in the living room, is it on").
_DANGLING = frozenset({"at", "for", "until", "till", "by", "in", "from", "to"})
_OPENERS = frozenset({"the", "my", "our", "a", "an", "and", "so", "is", "are"})


def joined_fragments(parts: list[Any]) -> list[Any]:
    """A joint model's requests with the fragments it cut from one request joined back:
    a part whose every word is a slot, after a part that ends with a preposition, is
    that part's argument ("at 6:45": the time of the command, not an alarm); a part of
    one word that opens the next, with no slot, is the next one's. Other parts as read."""
    from dataclasses import replace

    out: list[Any] = []
    for part in parts:
        words = str(part.text).split()
        before = out[-1] if out else None
        ends = str(before.text).split()[-1] if before is not None and before.text else ""
        slotted = sum(int(s.end) - int(s.start) for s in part.slots)
        if before is not None and words and slotted == len(words) and ends in _DANGLING:
            text = f"{before.text} {part.text}"
            out[-1] = replace(before, text=text, slots=(*before.slots, *part.slots))
            continue
        if before is not None and not before.slots and str(before.text).lower() in _OPENERS:
            out[-1] = replace(part, text=f"{before.text} {part.text}")
            continue
        out.append(part)
    return out
