"""Properties of the two things that keep client values out of harm's way (issue 26):
the identifier bound and the log line escaping."""

from __future__ import annotations

import logging
import re

from hypothesis import given
from hypothesis import strategies as st

from edgeloop.transport.identifiers import MAX_ID_CHARS, InvalidIdError, check_id, is_valid_id
from edgeloop.transport.logsafe import MAX_MESSAGE_CHARS, SafeFormatter, escape

ALLOWED = re.compile(r"[A-Za-z0-9._:@-]{1,128}")


@given(st.text(max_size=300))
def test_an_id_is_accepted_exactly_when_it_is_short_and_plain(value: str) -> None:
    expected = ALLOWED.fullmatch(value) is not None
    assert is_valid_id(value) is expected
    try:
        assert check_id(value, "session_id") == value
        assert expected
    except InvalidIdError as error:
        assert not expected
        assert len(value) < 20 or value not in str(error)  # never echoed


@given(st.text(alphabet="abc.-_:@019", min_size=1, max_size=MAX_ID_CHARS))
def test_plain_ids_up_to_the_limit_pass(value: str) -> None:
    assert check_id(value, "device id") == value


@given(st.text(max_size=5000))
def test_an_escaped_message_is_one_printable_line(text: str) -> None:
    line = escape(text)
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029]", line)
    assert len(line) <= MAX_MESSAGE_CHARS * 6 + 40  # \u2028 -> 6 characters, the note
    if len(text) <= MAX_MESSAGE_CHARS and "\\" not in text:
        assert line.count("\\") == sum(
            bool(re.match("[\x00-\x1f\x7f-\x9f\u2028\u2029]", c)) for c in text
        )


@given(st.text(max_size=200), st.text(max_size=80))
def test_a_formatted_record_has_one_line_per_server_line(message: str, trace: str) -> None:
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "%s", (message,), None)
    record.trace_id = trace
    lines = SafeFormatter().format(record).split("\n")
    assert len(lines) == 1
