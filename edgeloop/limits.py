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


def query_problem(query: str, max_chars: int = MAX_QUERY_CHARS) -> str | None:
    """Why ``query`` cannot be asked (empty, too long, a NUL character, no words), or None.

    The one check of a query's shape: the device's agent, its command line and its page
    refuse with this reason before anything is kept.

    >>> query_problem("  "), query_problem("?!"), query_problem("what's 2 + 2")
    ('the query is empty', 'the query has no words', None)
    """
    text = " ".join(query.split())
    if not text:
        return "the query is empty"
    if len(text) > max_chars:
        return f"the query is {len(text)} characters; the limit is {max_chars}"
    if "\x00" in text:
        return "the query contains a NUL character"
    if not has_words(text):
        return "the query has no words"
    return None
