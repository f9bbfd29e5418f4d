"""Split a compound query into clauses, and tell the clauses only an LLM could answer.

The planner reads a query the way a person would: normalise casual spelling ("tmrw",
"rn", "pls", "n"), cut it at conjunctions and commas, and flag open-knowledge or writing
requests ("who wrote...", "write a poem...") that no tool can answer.

    >>> split_clauses("weather in paris and berlin, then lock the door")
    ['weather in paris', 'berlin', 'lock the door']
"""

from __future__ import annotations

import re

_CASUAL: tuple[tuple[str, str], ...] = (
    (r"\btmrw\b|\btmr\b|\btomorow\b|\btommorow\b|\btommorrow\b|\btomorrw\b", "tomorrow"),
    (r"\btdy\b|\btoday's\b", "today"),
    (r"\brn\b|\bright now\b", "now"),
    (r"\bpls\b|\bplz\b|\bplease\b", ""),
    (r"\bu\b", "you"),
    (r"\bur\b", "your"),
    (r"\bn\b|&", " and "),
    (r"\bwhats\b", "what is"),
    (r"\bhows\b", "how is"),
    (r"\bwheres\b", "where is"),
    (r"\bwhat's\b", "what is"),
    (r"\bhow's\b", "how is"),
    (r"\bit's\b", "it is"),
    (r"\bgonna\b", "going to"),
    (r"\bgimme\b", "give me"),
    (r"\bvs\.?\b|\bversus\b", " or "),
    (r"\btemp\b", "temperature"),
    (r"\bmins?\b", "minutes"),
    (r"\bsecs?\b", "seconds"),
    (r"\bhrs?\b", "hours"),
)
_SPLIT = re.compile(
    r"\s*(?:[,;]\s*(?:and\s+then|and|then|also|plus)?|\+|\band\s+then\b|\bthen\b|\band\s+also\b"
    r"|\balso\b|\bplus\b|\band\b)\s*"
)
# Open knowledge and writing: only an LLM backend can give these.
_OPEN = re.compile(
    r"\b(?:who|whom|whose|why|explain|history|histor\w+|write|compose|draft|poem|haiku|"
    r"limerick|story|joke|translate|summari[sz]e|summary|recommend\w*|suggest\w*|ideas?|"
    r"capital|population|meaning|interesting|itinerary|sights?|attractions?|president|"
    r"best|tallest|biggest|largest|facts?|plot|define|definition|"
    r"how\s+(?:do|does|did|tall|old|far|big|long\s+ago|many\s+people)|"
    r"what\s+should\s+i\s+(?:see|do|visit|read|watch|eat|cook)|tell\s+me\s+about|"
    r"should\s+i\s+(?:visit|go\s+to|move|buy)|plan\s+a|news|headlines?|lyrics)\b"
)


def normalise(query: str) -> str:
    """Lower-case, casual spellings spelt out, whitespace collapsed, end punctuation dropped."""
    text = query.lower().replace("’", "'").replace("…", " ").replace("...", " ")
    for pattern, replacement in _CASUAL:
        text = re.sub(pattern, replacement, text)
    text = re.sub(r"[!?]+", " ", text)
    text = re.sub(r"\.(?=\s|$)", " ", text)
    return " ".join(text.split())


def split_clauses(text: str) -> list[str]:
    """Cut normalised text at conjunctions and commas; empty pieces are dropped."""
    return [piece.strip(" .") for piece in _SPLIT.split(text) if piece and piece.strip(" .")]


def open_knowledge_cues(text: str) -> list[str]:
    """The words that mark a request for open knowledge or writing (empty: none)."""
    return [match.group(0) for match in _OPEN.finditer(text)]
