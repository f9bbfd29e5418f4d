"""Limits both sides keep alike, so a query the device accepts is one the cloud accepts."""

from __future__ import annotations

#: The longest query, in characters, that the device or the cloud takes (the cloud's
#: ``--max-query-chars`` may lower it; a device query over it is refused before it is
#: kept pending, since the cloud would refuse it for good).
MAX_QUERY_CHARS = 4000


def has_words(text: str) -> bool:
    """True when ``text`` has a letter or a digit: "?!" or "..." is no query (it is
    refused, never kept pending for the cloud).

    >>> has_words("?!"), has_words("2+2"), has_words("¿qué?")
    (False, True, True)
    """
    return any(char.isalnum() for char in text)
