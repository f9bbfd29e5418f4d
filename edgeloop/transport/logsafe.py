"""Log lines a client cannot forge: every value is escaped, every line is bounded.

The servers log with :class:`SafeFormatter`: the message (and the trace id) of a record is
one line whatever a client put in it. Control characters (newline, carriage return, NUL,
escape, DEL, the C1 range, the Unicode line and paragraph separators) are written as
``\\xNN`` / ``\\uNNNN``, and a message longer than :data:`MAX_MESSAGE_CHARS` is cut with a
note of how much was left out. A traceback, which only the server writes, follows on lines
that start with ``  | ``, so no line of it can pass for a line of the server's own.

Example:
    >>> escape("session s1\\n2026-01-01 00:00:00 ERROR forged")
    'session s1\\\\x0a2026-01-01 00:00:00 ERROR forged'
"""

from __future__ import annotations

import logging
import re

MAX_MESSAGE_CHARS = 2000
"""The longest message a log line carries (the rest is counted, not written)."""
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
FORMAT = "%(asctime)s %(levelname)s %(name)s trace=%(trace_id)s %(message)s"


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` on one line, control characters escaped, at most ``limit`` characters kept."""
    extra = len(text) - limit
    if extra > 0:
        text = text[:limit]
    text = _CONTROL.sub(_escaped, text)
    return f"{text}... ({extra} more characters)" if extra > 0 else text


class SafeFormatter(logging.Formatter):
    """A formatter whose every line is the server's own (see the module's docstring)."""

    def __init__(self, fmt: str = FORMAT) -> None:
        super().__init__(fmt)

    def format(self, record: logging.LogRecord) -> str:
        record.message = escape(record.getMessage())
        if hasattr(record, "trace_id"):
            record.trace_id = escape(str(record.trace_id), 64)
        if self.usesTime():
            record.asctime = self.formatTime(record, self.datefmt)
        line = self.formatMessage(record)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        details = [record.exc_text] if record.exc_text else []
        if record.stack_info:
            details.append(self.formatStack(record.stack_info))
        for detail in details:
            for part in detail.splitlines():
                line += "\n  | " + escape(part)
        return line
