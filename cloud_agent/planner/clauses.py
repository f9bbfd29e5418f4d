"""Split a compound query into clauses, and tell the clauses only an LLM could answer.

The planner reads a query the way a person would: normalise casual spelling ("tmrw",
"rn", "pls", "n"), cut it at conjunctions and commas, and flag open-knowledge or writing
requests ("who wrote...", "write a poem...") that no tool can answer.

    >>> split_clauses("weather in paris and berlin, then lock the door")
    ['weather in paris', 'berlin', 'lock the door']
"""

from __future__ import annotations

import re

from understanding.arguments.heard import as_meant
from understanding.arguments.numbers import normalise_numbers
from understanding.arguments.spelling import is_english
from understanding.arguments.units import AMBIGUOUS as AMBIGUOUS_UNITS
from understanding.arguments.units import NAMES as UNIT_NAMES
from understanding.gazetteer import find_cities

_CASUAL: tuple[tuple[str, str], ...] = (
    (
        r"\btmrw\b|\btmr\b|\btomorow\b|\btommorow\b|\btommorrow\b|\btomorrw\b|\b2moro\w*\b|"
        r"\b2morrow\b|\b2mrw\b|\btmoro\b",
        "tomorrow",
    ),
    (r"\btdy\b|\btoday's\b", "today"),
    (r"\brn\b|\bright now\b", "now"),
    (r"\bpls\b|\bplz\b|\bplease\b", ""),
    (r"\bu\b", "you"),
    (r"\bur\b", "your"),
    (r"\bn\b|&", " and "),
    (r"\bwhats\b", "what is"),
    (r"\bim\b", "i'm"),
    (r"\bive\b", "i've"),
    (r"\bhows\b", "how is"),
    (r"\bwheres\b", "where is"),
    (r"\bwots\b|\bwuts\b", "what is"),
    (r"\bthn\b|\bthne\b|\bhten\b", "then"),
    (r"\badn\b|\bnad\b", "and"),
    (r"\bwhat's\b", "what is"),
    (r"\bhow's\b", "how is"),
    (r"\bit's\b", "it is"),
    (r"\bgonna\b", "going to"),
    (r"\bgimme\b", "give me"),
    (r"\bvs\.?\b|\bversus\b", " or "),
    (r"\btemps?\b", "temperature"),
    (r"\blites\b", "lights"),
    (r"\blite\b", "light"),
    (r"\btimr\b", "timer"),
    (r"\bnite\b", "night"),
    (r"\badd\s+one\s+(?=saying|that\s+says|reading|with)", "add a note "),
    (r"\bmins?\b", "minutes"),
    (r"\bsecs?\b", "seconds"),
    (r"\bhrs?\b", "hours"),
)
_SPLIT = re.compile(
    r"\s*(?:[,;]\s*(?:and\s+then|and\s+after\s+that|after\s+that|and\s+also|and|then|also|plus)?"
    r"|\+|\b(?:and\s+)?after\s+(?:that|this|which)\b|\b(?:and\s+)?afterwards\b"
    r"|\bfollowed\s+by\b|\bas\s+well\s+as\b|\band\s+then\b|\bthen\b|\band\s+also\b"
    r"|\balso\b|\bplus\b|\band\b)\s*"
)
# Open knowledge and writing: only an LLM backend can give these.
_OPEN = re.compile(
    r"\b(?:who|whom|whose|why|explain|history|histor\w+|write|compose|draft|poem|haiku|"
    r"limerick|story|joke|translate|summari[sz]e|summary|recommend\w*|suggest\w*|ideas?|"
    r"capital|population|meaning|interesting|itinerary|sights?|attractions?|president|"
    r"best|tallest|biggest|largest|facts?|plot|define|definition|"
    r"how\s+(?:do|does|did|should|tall|old|far(?!\s+(?:ahead|behind))|big|long\s+ago|many\s+people)|"
    r"(?:a|any)\s+good|fun|things?\s+to\s+do|usually|typically|normally|on\s+average|in\s+(?:january|february|march|"
    r"april|may|june|july|august|september|october|november|december|spring|summer|autumn|fall|"
    r"winter)|"
    r"what\s+should\s+i\s+(?:see|do|visit|read|watch|eat|cook)|tell\s+me\s+about|"
    r"sun\s*(?:set|rise)s?|dawn|dusk|what\s+time\s+(?:does|do|did)|"
    r"is\s+it\s+(?:rude|polite|ok|okay|safe|appropriate|legal|normal|worth|a\s+good\s+idea)|"
    r"should\s+i\s+(?:pick|choose|use|get|book|pack|say|wear|learn)|"
    r"should\s+i\s+(?:visit|go\s+to|move|buy)|plan\s+a|news|headlines?|lyrics)\b"
)


def normalise(query: str) -> str:
    """Lower-case, casual spellings spelt out, whitespace collapsed, end punctuation dropped."""
    text = as_meant(query.lower().replace("’", "'").replace("…", "..."))  # the device's reading
    text = _drop_self_corrections(text)
    text = _same_day_part(text.replace("...", " "))
    for pattern, replacement in _CASUAL:
        text = re.sub(pattern, replacement, text)
    # The end of a sentence ends a clause too ("Turn off the lights. Lock the door.").
    text = re.sub(r"[!?]+", " ; ", text)
    text = re.sub(r"\.(?=\s|$)", " ; ", text)
    text = _numbers(" ".join(text.split()))
    text = _PRONOUN_TIMER.sub(r"\1 timer", text)
    text = _ANOTHER_NOTE.sub(r"\1 make a note \2", _another_timer(text))
    return " ".join(_fix_typo(word) for word in text.split())


_CLOCK = re.compile(r"\bat\s+(\d{1,2}(?::\d{2})?)(?P<part>\s*(?:am|pm|a\.m\.|p\.m\.))?")


def _same_day_part(text: str) -> str:
    """A clock time said again without its am/pm takes the one it was said with ("the tv
    off at 8:30 pm and the light on at 8:30 too": 20:30 both)."""
    parts: dict[str, str] = {}
    pieces: list[str] = []
    at = 0
    for found in _CLOCK.finditer(text):
        clock, part = found.group(1), found.group("part")
        if part:
            parts.setdefault(clock, part)
        elif clock in parts:
            pieces += [text[at : found.end()], parts[clock]]
            at = found.end()
    return "".join(pieces) + text[at:]


# "one for <a name or a number>" after a timer was said: one more timer ("a pasta timer for
# 11 minutes and a garlic bread one for 8", "a timer for the roast 80 minutes and one for
# the potatoes 40 minutes").
_ONE_FOR = re.compile(
    r"(?P<before>\S+\s+)?\b(?:one|1)(?=\s+for\s+(?:(?:the|my|a|an)\s+)?(?:[a-z']+\s+){0,2},?\s*\d)"
)
_TIMER_SAID = re.compile(r"\btimers?\b")


def _another_timer(text: str) -> str:
    said = _TIMER_SAID.search(text)
    if said is None:
        return text

    def timer(found: re.Match[str]) -> str:
        before = found.group("before") or ""
        joined = before.strip() in ("and", "then", "also", "plus", ",", ";", "", "set", "start")
        return f"{before}{'a timer' if joined else 'timer'}"

    return text[: said.end()] + _ONE_FOR.sub(timer, text[said.end() :])


# "make a note that the wifi is x and another that checkout is at 11": a second note (read
# as the first note's words, it would store both as one).
_ANOTHER_NOTE = re.compile(
    r"(?<=\S)(\s+(?:and|,|then|also)(?:\s+(?:then|also))?)\s+another(?:\s+(?:one|note))?\s+"
    r"(that|saying|to\s+say|reading|about|:)(?=\s)"
)


# "a 30 minute one": the pronoun names the timer (the edge's duration reader would add it
# as one more unit, 1801 s).
_PRONOUN_TIMER = re.compile(
    r"\b(\d+(?:\.\d+)?\s*-?\s*(?:hours?|minutes?|seconds?))\s+(?:one|1)\b"
    r"(?!\s*(?:and|hours?|minutes?|seconds?|[\d.]))"
)


def _numbers(text: str) -> str:
    """Number words as digits ("two and a half" -> "2.5"), so that "and" inside a number
    never cuts a clause; the edge's own reader does it. A clock time stays as said ("7:00",
    "10:05": the reader would make them "7 : 0" and "10 : 5", which no time reader reads)."""
    pieces = _CLOCK_TIME.split(text)
    return " ".join(
        piece if _CLOCK_TIME.fullmatch(piece) else str(normalise_numbers(piece))
        for piece in pieces
        if piece.strip()
    )


_CLOCK_TIME = re.compile(r"(\b\d{1,2}:\d{2}\b)")


# The words that name a tool or a device; misspellings of them are read as them.
_VOCABULARY = (
    "weather",
    "forecast",
    "temperature",
    "convert",
    "timer",
    "timers",
    "notes",
    "note",
    "search",
    "lights",
    "light",
    "thermostat",
    "blinds",
    "heater",
    "speaker",
    "unlock",
    "tomorrow",
    "today",
    "warmer",
    "colder",
    "hotter",
    "sunny",
    "raining",
    "snowing",
    "minutes",
    "seconds",
    "hours",
    "kilometers",
    "miles",
    "celsius",
    "fahrenheit",
    "kilograms",
    "pounds",
    "television",
    "volume",
    "remind",
    "switch",
    "calculate",
    "divided",
    "multiply",
    "except",
    "excluding",
    "unless",
    "until",
)


# Real words that are close to a vocabulary word: never "corrected".
_REAL_WORDS = frozenset(
    {
        "whether",
        "wither",
        "heather",
        "leather",
        "feather",
        "minute",
        "second",
        "times",
        "tiers",
        "timed",
        "timely",
    }
)


# Short words are too close to other real words to correct by likeness; only two letters
# swapped ("lcok", "teh", "tiem") is read as one of these.
_SHORT_VOCABULARY = ("lock", "door", "time", "turn", "note", "lamp", "open", "shut", "what", "the")


def _fix_typo(word: str) -> str:
    """A misspelt tool or device word as the word ('wether' -> 'weather'); others as is."""
    core = word.strip(",;:'\"")
    if 3 <= len(core) < 5 and core.isalpha() and core not in _SHORT_VOCABULARY:
        for candidate in _SHORT_VOCABULARY:
            if len(candidate) == len(core) and _one_swap(core, candidate):
                return word.replace(core, candidate)
        return word
    if len(core) < 5 or not core.isalpha() or core in _VOCABULARY or core in _REAL_WORDS:
        return word
    if is_english(core):
        return word  # "showing" is no misspelt "snowing"
    import difflib

    # Typos rarely change the first letter; real words that do ("older" / "colder") stay.
    candidates = [v for v in _VOCABULARY if v[0] == core[0]]
    for candidate in candidates:  # two letters swapped: "lihgts", "wetaher"
        if len(candidate) == len(core) and _one_swap(core, candidate):
            return word.replace(core, candidate)
    match = difflib.get_close_matches(core, candidates, n=1, cutoff=0.84)
    return word.replace(core, match[0]) if match else word


def _one_swap(a: str, b: str) -> bool:
    """Whether ``a`` is ``b`` with two adjacent letters swapped."""
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and a[diff[0]] == b[diff[1]]
        and a[diff[1]] == b[diff[0]]
    )


_CORRECTION = re.compile(
    r"\.\.\.\s*(?:(?:no|nope|i\s+mean|sorry|actually|wait|rather|oops|make\s+(?:that|it)|"
    r"scratch\s+that)\b[,:]?\s*)+"
)
_BOUNDARY = re.compile(r"(?:^|[,;]|\band\b|\bthen\b|\bor\b|\bthan\b)\s*")


def _drop_self_corrections(text: str) -> str:
    """'unlock... no, lock the door' -> 'lock the door'; 'than oslo... i mean than moscow'
    -> 'than moscow': what comes before the correction, back to the clause's start, goes."""
    while True:
        match = _CORRECTION.search(text)
        if match is None:
            return text
        head = text[: match.start()]
        cut = max((m.end() for m in _BOUNDARY.finditer(head)), default=0)
        lead = text[match.end() :].split(" ", 1)[0]
        swapped = _swap_last_city(head, text[match.end() :])
        if swapped is not None:  # "weather in tokyo, osaka, kyoto... no, seoul"
            text = swapped
            continue
        partial = ("to", "for", "in", "at", "with", "by", "the", "a", "an", "my", "of")
        if lead in partial and f" {lead} " in f" {head[cut:]}":
            # "set the thermostat to 68 f... no, to 20": only the value is corrected.
            cut = f" {head}".rindex(f" {lead} ")
            text = head[: max(cut - 1, 0)] + " " + text[match.end() :]
            continue
        # "... than oslo... i mean than moscow": drop the repeated boundary word too.
        tail = text[match.end() :]
        keep = head[:cut]
        boundary = head[cut - 5 : cut].strip() if cut else ""
        if boundary and tail.startswith(boundary):
            keep = head[: cut - len(boundary) - 1].rstrip() + " "
        text = keep + tail


def _swap_last_city(head: str, tail: str) -> str | None:
    """When a correction names a city, it replaces the place just said: the last word
    (or the last two, for a two-word city) before the correction."""
    new = find_cities(tail)
    words = head.split()
    if not new or new[0][0] != 0 or not words or words[-1] in ("in", "for", "at", "of"):
        return None
    width = (
        2 if len(words) >= 2 and find_cities(" ".join(words[-2:])) == [(0, _city_of(words))] else 1
    )
    return " ".join(words[:-width]) + " " + tail


def _city_of(words: list[str]) -> str:
    from understanding.gazetteer import resolve_city

    return resolve_city(" ".join(words[-2:])) or ""


# One duration said in two parts: a smaller unit after a larger one ("2 hours and 15
# minutes", "a minute and 30 seconds") or a fraction ("an hour and a half"); "6 minutes
# and 12 minutes" are two durations.
_DURATION_AND = re.compile(
    r"\b((?:\d+(?:\.\d+)?|an?)\s*(?:hours?|h))\s+and\s+(?=(?:a\s+(?:half|quarter)\b|0?\.\d+\b|"
    r"\d+(?:\.\d+)?\s*(?:minutes?|min|seconds?|s)\b))"
    r"|\b((?:\d+(?:\.\d+)?|an?)\s*(?:minutes?|min))\s+and\s+(?=(?:a\s+(?:half|quarter)\b|0?\.\d+\b|"
    r"\d+(?:\.\d+)?\s*(?:seconds?|s)\b))"
)


# "3 plus 4", "12 + 5", "the sum of 3 and 4": arithmetic, not two requests.
_ARITHMETIC_JOIN = re.compile(r"(?<=\d)\s*(?:\+|\bplus\b)\s*(?=-?\.?\d)")
# "a mile and a half", "3 pounds and a quarter": the fraction is the quantity's, not a
# clause of its own (cut there, "0.5 in km" converts the half).
_UNIT_AND = re.compile(
    r"\b((?:\d+(?:\.\d+)?|an?|one)\s+(?:"
    + "|".join(
        re.escape(name)
        for name in sorted(UNIT_NAMES, key=len, reverse=True)
        if name not in AMBIGUOUS_UNITS and name.replace(" ", "").isalpha()
    )
    + r"))\s+and\s+(?=(?:an?\s+(?:half|quarter|third)|0?\.(?:5|25|75))\b)"
)


_PAIR_OF_NUMBERS = re.compile(
    r"\b((?:sum|product|difference|average|mean)\s+of\s+-?[\d.]+)\s+and\s+(?=-?[\d.])"
)


_COLON = re.compile(r"([\w']+)\s*:(?=\s|$)")
_COLON_KEEPS = frozenset(
    {"note", "notes", "saying", "says", "reads", "reminder", "text", "message"}
)


def _colon(match: re.Match[str]) -> str:
    """A colon ends a clause ("Tokyo, Seoul and Beijing: which is warmest"), except the
    one that opens a note's text ("add a note: router is in the closet")."""
    word = match.group(1)
    if word.isdigit() and re.match(r"\s*\d", match.string[match.end() :]):
        return match.group(0)  # a clock time ("6 : 30" once numbers are read): no cut
    framed = (
        word in ("this", "that")
        and re.search(  # "save this: locker 118"
            r"\b(?:save|keep|remember|store|note|jot|write)\s+$", match.string[: match.start()]
        )
    )
    return match.group(0) if word in _COLON_KEEPS or framed else f"{word} ;"


_OP_ON_QUANTITY = re.compile(
    r"\b([a-z°]+)\s+(plus|minus|times|multiplied\s+by|divided\s+by)\s+(?=-?\.?\d)"
)


def _op_on_quantity(match: re.Match[str]) -> str:
    """ "10 kg in pounds plus 5": the arithmetic works on the converted value, so it is a
    clause of its own that refers back ("that plus 5")."""
    from cloud_agent.planner.interpret import is_unit_word

    unit, op = match.group(1), match.group(2)
    op = "\x01" if op == "plus" else op  # kept whole, as in "3 plus 4"
    return f"{unit} ; that {op} " if is_unit_word(unit) else match.group(0)


# Words said between a joiner and the request it opens ("and umm what's ...", "and ok so
# if ..."): the request opens all the same.
FILLER = r"(?:also|u+m+|u+h+|e+r+m*|oh|hmm+|so|ok|okay|well|right)"


# A note's words run from its cue to the end of its sentence or to the next request: the
# commas and "and"s inside are the note's ("add a note: call the bank, ask about the rate").
_NOTE_OPENS = re.compile(
    r"\b(?:add\s+(?:a\s+|another\s+)?note|make\s+a\s+note|take\s+a\s+note|note\s+that"
    r"|(?:note|write|jot)(?:\s+(?:this|it|these|that))?\s+down|jot|remember\s+that"
    r"|save\s+a\s+note|new\s+note"
    r"|add\s+to\s+my\s+notes)\b|\bnote\s*:|\b(?:save|keep|remember|store)\s+(?:this|that)\s*:"
)
_NOTE_ENDS = re.compile(
    r"\s*;|\s*(?:,\s*)?\b(?:and|then|also|plus)\s+(?:(?:then|" + FILLER + r")\s+)*"
    r"(?=(?:what|what's|whats|if\s+i|did|have\s+i|has\s+the|will\s+(?:it|i|the)|was\s+(?:it|i|the)|"
    r"how|tell|set|turn|switch|check|convert|search|find|lock|unlock|open|close|start|is|are|"
    r"can|could|give|look|add|put|remind|wake|dim|mute|another|a\s+(?:second\s+)?note|"
    r"make\s+a\s+note|"
    r"calc|calculate|compute|work\s+out|multiply|divide|"
    r"the\s+(?:weather|forecast|time|temperature|local\s+time))\b)"
    r"|,\s*(?:then|also)\b|,\s*(?=(?:add|make|take|save)\s+(?:a\s+|another\s+)?note\b)"
    r"|,\s*(?=(?:set|turn|switch|search|find|lock|unlock|start|convert|check)\b)"
)


def _protect_note(text: str) -> str:
    """The commas and "and"s of a note's words kept from cutting it (not a list's items:
    "add milk, eggs and bread to my list" is three)."""
    opened = _NOTE_OPENS.search(text)
    if opened is None:
        return text
    ends = _NOTE_ENDS.search(text, opened.end())
    end = ends.start() if ends else len(text)
    span = text[opened.end() : end]
    if re.search(r"\blists?\b", span):
        return text
    kept = span.replace(",", "\x02").replace(":", "\x04")
    kept = re.sub(r"\band\b", "\x00", kept)
    return text[: opened.end()] + kept + text[end:]


def _exception_list() -> re.Pattern[str]:
    """The rooms an exception leaves out, listed ("apart from the kitchen and porch ones",
    "except the hall, the study and the den"): one command's exception, no cut."""
    from understanding.arguments.devices import ROOM_NAMES
    from understanding.arguments.qualifiers import EXCEPTION_WORDS

    rooms = "|".join(re.escape(r) for r in sorted(ROOM_NAMES, key=len, reverse=True))
    room = rf"(?:the\s+|my\s+)?(?:{rooms})(?:'s)?(?:\s+ones?)?"
    return re.compile(
        rf"(\b(?:{EXCEPTION_WORDS})\s+{room}(?:\s+\x00\s+{room})*)"
        rf"(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?={room}\b)"
    )


_EXCEPTION_LIST = _exception_list()


def _protect_exceptions(text: str) -> str:
    while (joined := _EXCEPTION_LIST.sub(lambda m: f"{m.group(1)} \x00 ", text)) != text:
        text = joined
    return text


def split_clauses(text: str) -> list[str]:
    """Cut normalised text at conjunctions and commas; empty pieces are dropped."""
    protected = _DURATION_AND.sub(lambda m: f"{m.group(1) or m.group(2)} \x00 ", text)
    protected = _UNIT_AND.sub(lambda m: f"{m.group(1)} \x00 ", protected)
    protected = _protect_exceptions(protected)
    protected = _PAIR_OF_NUMBERS.sub(lambda m: f"{m.group(1)} \x00 ", protected)
    protected = _OP_ON_QUANTITY.sub(_op_on_quantity, protected)
    protected = _ARITHMETIC_JOIN.sub(" \x01 ", protected)
    protected = _COLON.sub(_colon, _protect_note(protected))
    pieces = _SPLIT.split(protected)
    return [
        piece.replace(" \x00 ", " and ")
        .replace("\x00", "and")
        .replace("\x02", ",")
        .replace("\x04", ":")
        .replace(" \x01 ", " plus ")
        .replace("\x01", "plus")
        .strip(" .")
        for piece in pieces
        if piece and piece.strip(" .")
    ]


# Small talk around the requests: greetings, thanks, politeness and the speaker's own
# situation ("so i'm heading out in a bit"). It asks for nothing, so it is set aside.
_CHATTER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|oh|right|alright|now|and|but|hmm+|um+|uh+)\s+)*(?:"
    r"alright|all\s+right|right|cool|great|perfect|awesome|nice|got\s+it|"
    r"morning|afternoon|evening|night|yes\s+or\s+no|oh|ah+|oops|um+|uh+|hmm+|well|"
    r"true\s+or\s+false|or\s+not|"
    r"(?:hi|hey|hello|yo|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|day))"
    r"(?:\s+(?:there|again|you|friend|buddy|mate|assistant))?"
    r"|(?:many\s+)?thanks?(?:\s+you)?(?:\s+(?:so|very)\s+much|\s+a\s+(?:lot|bunch|ton)"
    r"|\s+in\s+advance|\s+again|\s+mate)?|thx|ty|cheers|much\s+appreciated|appreciate\s+it"
    r"|(?:i\s+)?hope\s+you(?:\s+are|'re)?\s+(?:well|good|doing\s+\w+|having\s+an?\s+\w+\s+"
    r"(?:day|morning|evening|week|weekend))(?:\s+today)?"
    r"|(?:a\s+)?quick\s+(?:one|1|question|thing|favou?r)|(?:one|1)\s+(?:more|last)\s+thing"
    r"|if\s+you\s+(?:can|could|don't\s+mind|do\s+not\s+mind)|when\s+you\s+(?:can|get\s+a\s+chance)"
    r"|if\s+possible|no\s+rush|sorry\s+to\s+bother\s+you|real\s+quick|ok(?:ay)?|so|sure"
    r"|(?:could|can|would|will)\s+you\s+do\s+me\s+a\s+(?:favou?r|solid)"
    r"|if\s+it\s+is(?:n't|\s+not)\s+too\s+much\s+(?:trouble|bother)|(?:would|do)\s+you\s+mind"
    r"|here(?:'s|\s+is)\s+what\s+i\s+(?:need|want)(?:\s+you\s+to\s+do)?"
    r"|(?:before|after)\s+(?:bed|bedtime|work|school|dinner|lunch|breakfast|i\s+(?:leave|go|sleep))"
    r"|(?:morning|night|evening|bedtime|leaving)\s+routine|for\s+(?:tonight|later|the\s+morning)"
    r"|if\s+(?:not|so|none|there\s+(?:are|is)\s+(?:none|nothing|not))|otherwise|or\s+else"
    r"|(?:both|all|each|every\s+one)\s+of\s+(?:them|those|these|'em)|the\s+lot"
    r"|why\s+not|no\s+worries|that(?:'s|\s+is)\s+(?:all|it)(?:\s+for\s+now)?|you(?:'re|\s+are)\s+the\s+best"
    r"|(?:(?:i\s+need|i\s+have|i\s+want|i(?:'d|\s+would)\s+like)(?:\s+to\s+(?:know|ask))?\s+)?"
    r"(?:a\s+few|a\s+couple\s+of|couple|some|several|\d+)\s+(?:more\s+)?(?:things|questions|requests)"
    r"|(?:i'm|i\s+am|i'll|i\s+will|we're|we\s+are|i've|i\s+have|i\s+was|i\s+just)\s+"
    r"(?!.*\d)(?!.*\b(?:what|who|whom|whose|why|how|which|where|when|wonder\w*|curious|want|need|"
    r"would|like|love|know|ask\w*)\b).*"
    r")$"
)


def is_chatter(text: str) -> bool:
    """Whether a clause is small talk that asks for nothing ("hi there", "thanks a lot")."""
    return bool(_CHATTER.match(text.strip(" ,;:")))


def open_knowledge_cues(text: str) -> list[str]:
    """The words that mark a request for open knowledge or writing (empty: none)."""
    return [match.group(0) for match in _OPEN.finditer(text)]
