"""The free text of a note, or of a note search, without the command around it.

"hey, could you jot down that the plumber comes on friday" keeps "the plumber comes on
friday"; "what did I write about the wifi password?" keeps "the wifi password". The
patterns strip what people put around the content (greetings, politeness, the command
verb, "a note", "that"), and what is left must still have a word in it.
"""

from __future__ import annotations

import re

_POLITE = (
    r"(?:(?:hey|hi|ok|okay|yo|so|um|uh|oh|alright|right|please|pls|plz|quick(?:ly)?|"
    r"assistant|computer|buddy|mate)[\s,!.]+)*"
    r"(?:(?:can|could|would|will) you(?: please)?[\s,]+|please[\s,]+|i need you to[\s,]+|"
    r"i want you to[\s,]+|i'd like you to[\s,]+|go ahead and[\s,]+|i want to[\s,]+|"
    r"i'd like to[\s,]+|let's[\s,]+|lets[\s,]+|help me[\s,]+)?"
)
_NOTE_COMMAND = re.compile(
    r"^" + _POLITE + r"(?:"
    # A verb with the word "note" (or memo): "add a note", "make me a quick memo that".
    r"(?:add|make|take|create|write|jot|save|put|leave|log|record|store|start|new|keep|"
    r"scribble)(?: me)?(?: down)?"
    r"(?: (?:a|an|the|this|my|one|quick|new|short|little))*"
    r" (?:note|notes|memo|entry)(?: down)?"
    r"(?: (?:to|in|on|for) (?:my|the) (?:notes?|memos?|notebook|list))?"
    r"(?:\s*(?:that|saying|which says|to say|says|reading|:|-|—|about|of|with|for me|:))*"
    # "add to my notes", "save to notes:", "put this in my notes:"
    r"|(?:add|save|put|write|log|store)(?: this| it)? (?:to|in|into|on) (?:my |the )?"
    r"(?:notes?|memos?|notebook)(?:\s*(?:that|:|-))*"
    # A verb that means writing down on its own: "jot down", "write this down".
    r"|(?:write|jot|note|scribble|put|get)(?: it| this| that)? down"
    r"(?:\s*(?:that|saying|:|-|—|for me))*"
    r"|note(?: down| to self| this| that)*(?:\s*(?:that|:|-))?"
    r"|remember(?: that| this| to)?(?:\s*:)?"
    r"|memo(?: to self)?(?:\s*:)?"
    r"|don't let me forget(?: that| to)?"
    r")[\s:,-]*",
    re.IGNORECASE,
)
# "add <text> to my notes": the content sits between the verb and the notebook.
_ADD_TO_NOTES = re.compile(
    r"^" + _POLITE + r"(?:add|put|save|write|stick|pop|jot)\s+(?P<body>.+?)\s+"
    r"(?:to|in|into|on|onto)\s+(?:my|the)\s+(?:notes?|memos?|notebook)\b[\s.!?]*"
    r"(?:please|pls|thanks|thank you)?[\s.!?]*$",
    re.IGNORECASE,
)
# Commands about existing notes that an add-note reading would swallow whole.
_NOT_A_NEW_NOTE = re.compile(
    r"^\W*(?:please\s+)?(?:delete|remove|erase|edit|change|update|rename|share|send|email|"
    r"summari[sz]e|sort|read|translate|list|count|clear|move|copy|print|forward)\b",
    re.IGNORECASE,
)
_NOTE_TAIL = re.compile(
    r"[\s,]*\b(?:(?:in|to|on) (?:my|the) (?:notes?|memos?|notebook)|as a note|for me|"
    r"please|pls|thanks|thank you|thx|ok|okay|cheers)[\s.!?]*$",  # \b: "book" keeps its "ok"
    re.IGNORECASE,
)

_SEARCH_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(?:about|regarding|re|concerning|on|for|with|mentioning|mention|that mention|"
        r"containing|related to)\s+(?P<q>.+)$",
        r"\bwhat (?:was|is|were|are) (?:my |the )?(?:notes?|memo) (?:on|about|for)\s+(?P<q>.+)$",
        r"\b(?:what|where) did i (?:note|write|save|jot|put|say|store|record)(?: down)?"
        r"(?: about| on| for)?\s+(?P<q>.+)$",
        r"\b(?:find|search|look up|lookup|look for|show|pull up|check|get|read|open|recall|"
        r"dig up|bring up|grep)(?: me)?(?: my| the| all| any)*"
        r"(?: notes?| memos?| saved)?(?: for| about| on)?\s+(?P<q>.+)$",
        r"\bdid i (?:note|write|save|jot)(?: down)?(?: anything)?(?: about)?\s+(?P<q>.+)$",
        r"\bdo i have (?:a |any )?(?:notes?|memos?)(?: about| on| for)?\s+(?P<q>.+)$",
    )
]
_SEARCH_TAIL = re.compile(
    r"[\s,]*(?:(?:in|from|among|inside|within) (?:my|the) (?:notes?|memos?|notebook|memory)|"
    r"i (?:wrote|saved|noted|made|took|jotted)(?: down)?"
    r"(?: earlier| before| yesterday| last week)?|"
    r"(?:that )?i (?:wrote|saved|noted) down|"
    r"please|pls|thanks|thank you|again|earlier|"
    r"from before|did i (?:note|write|save)|in notes)[\s.!?]*$",
    re.IGNORECASE,
)
_QUERY_NOISE = re.compile(
    r"^(?:(?:my|the|a|an|any|all|some|notes?|memos?|note about|notes about|about|on|for)\s+)+",
    re.IGNORECASE,
)


def _clean(text: str) -> str:
    return text.strip(" \t\n.,;:!?\"'-")


def note_text(text: str) -> str | None:
    """The content of an add-note query, or None when nothing is left to write down.

    >>> note_text("hey, could you jot down that the plumber comes on friday")
    'the plumber comes on friday'
    """
    body = text.strip()
    wrapped = _ADD_TO_NOTES.match(body)
    if wrapped:  # "add buy bread to my notes"
        return _clean(wrapped.group("body")) or None
    quoted = re.search(r"[\"“](.+?)[\"”]", body)
    if quoted:
        return _clean(quoted.group(1)) or None
    if ":" in body:
        head, _, tail = body.partition(":")
        if re.search(r"\b(?:note|memo|remember|down|write|jot|save)\b", head, re.IGNORECASE):
            return _clean(_NOTE_TAIL.sub("", tail)) or None
    if _NOT_A_NEW_NOTE.match(body):
        return None
    stripped = _NOTE_COMMAND.sub("", body, count=1)
    if stripped == body:
        # Context first ("we're out of coffee, add a note to buy beans"): the command may
        # open a later clause.
        for boundary in re.finditer(r"(?:,|;|\bso\b|\band\b)\s+", body):
            rest = body[boundary.end() :]
            stripped = _NOTE_COMMAND.sub("", rest, count=1)
            if stripped != rest:
                break
        else:
            return None  # no "note"/"jot down"/"remember" command: not a request to write
    body = _NOTE_TAIL.sub("", stripped)
    body = re.sub(r"^(?:that|to say|saying|says|to)\s+", "", body.strip(), flags=re.IGNORECASE)
    cleaned = _clean(body)
    return cleaned if re.search(r"[a-z0-9]", cleaned, re.IGNORECASE) else None


def search_query(text: str) -> str | None:
    """What a note search looks for, or None when the query names nothing.

    >>> search_query("what did I write about the wifi password?")
    'wifi password'
    """
    body = _clean(text)
    body = _SEARCH_TAIL.sub("", body)
    body = _SEARCH_TAIL.sub("", body)
    for pattern in _SEARCH_PATTERNS:
        match = pattern.search(body)
        if match:
            query = _clean(_QUERY_NOISE.sub("", match.group("q").strip()))
            query = _clean(_SEARCH_TAIL.sub("", query))
            if query and query.lower() not in ("notes", "note", "my notes", "them", "it"):
                return query
    return None


_REQUEST_TAIL = re.compile(r"[\s,]*(?:please|pls|plz|thanks|thank you|thx|cheers)[\s.!?]*$", re.I)


def request_text(text: str) -> str | None:
    """The words of a request for a tool that takes free text: what is quoted, or what
    follows a colon, or else the whole request without greetings and politeness. Nothing
    is invented or reworded; None when no word is left.

    >>> request_text('could you translate "where is the station" please')
    'where is the station'
    >>> request_text("hey, please summarise my day")
    'summarise my day'
    """
    quoted = re.search(r"[\"“](.+?)[\"”]", text)
    if quoted:
        body = quoted.group(1)
    elif ":" in text:
        body = text.partition(":")[2]
    else:
        body = re.sub(r"^" + _POLITE, "", text.strip(), count=1, flags=re.IGNORECASE)
        body = _REQUEST_TAIL.sub("", body)
    cleaned = _clean(body)
    return cleaned if re.search(r"[a-z0-9]", cleaned, re.IGNORECASE) else None
