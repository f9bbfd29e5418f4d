"""Bounds on the identifiers a client chooses: session ids, device ids, trace ids.

An identifier reaches maps, pages and log lines, so it is checked before anything keeps
or logs it: at most :data:`MAX_ID_CHARS` characters from a small printable set (letters,
digits and ``. _ : @ -``). A session id of three megabytes or one holding a newline is
refused with INVALID_ARGUMENT, never stored.

Example:
    >>> check_id("3f2a-session.1", "session_id")
    '3f2a-session.1'
    >>> check_id("a\\nb", "session_id")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    edgeloop.transport.identifiers.InvalidIdError: session_id may only hold letters, digits...
"""

from __future__ import annotations

import re

from edgeloop.transport.errors import InvalidArgumentError

MAX_ID_CHARS = 128
"""The longest session, device or trace id a server accepts."""
_ALLOWED = re.compile(r"[A-Za-z0-9._:@-]+")


class InvalidIdError(InvalidArgumentError, ValueError):
    """An identifier that is empty, too long or holds characters outside the set."""


def check_id(value: str, what: str) -> str:
    """``value`` when it is a bounded identifier; InvalidIdError (INVALID_ARGUMENT) otherwise.

    The message never repeats the value (it may be megabytes, or hold a forged log line).
    """
    if not value:
        raise InvalidIdError(f"{what} must be set")
    if len(value) > MAX_ID_CHARS:
        raise InvalidIdError(f"{what} is {len(value)} characters; the limit is {MAX_ID_CHARS}")
    if _ALLOWED.fullmatch(value) is None:
        raise InvalidIdError(
            f"{what} may only hold letters, digits and . _ : @ - "
            f"(at most {MAX_ID_CHARS} characters)"
        )
    return value


def is_valid_id(value: str) -> bool:
    """True when :func:`check_id` would accept ``value``."""
    return 0 < len(value) <= MAX_ID_CHARS and _ALLOWED.fullmatch(value) is not None
