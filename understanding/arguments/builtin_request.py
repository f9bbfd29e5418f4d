"""One request of the built-in tools' argument fillers: its slots by type and its words,
and the readers every filler shares (:mod:`understanding.arguments.builtin_slots`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from understanding.arguments.schema import Filled
from understanding.arguments.slots import _merged


def _said(span: str) -> str:
    # A decimal point stays ("7.5 hours" is 27000 s, never "7 5 hours").
    return " ".join(re.sub(r"(?<!\d)\.|\.(?!\d)|[^\w'. ]+", " ", span.lower()).split())


class _Request:
    """One request's slots by type, and its words; ``readers``: the (tool, argument) pairs
    the reader over the words may fill (``builtin_slots.WORD_READERS``)."""

    def __init__(
        self,
        tool: str,
        slots: Sequence[Any],
        words: str,
        utterance: Sequence[str] = (),
        readers: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self.tool = tool
        self.slots = _merged(slots)
        self.words = words
        self.utterance = list(utterance)
        self.readers = readers

    def spans(self, *types: str) -> list[str]:
        return [str(s.value) for s in self.slots if s.type in types]

    def free_text(self, kind: str) -> list[str]:
        """The spans of a free-text type; several of them (a tagger that broke "Tom
        prefers tea, not coffee" in two) read as the words from the first to the last,
        when the utterance's words are known."""
        found = [s for s in self.slots if s.type == kind]
        if len(found) < 2 or not self.utterance:
            return [str(s.value) for s in found]
        start, end = found[0].start, found[-1].end
        if not 0 <= start < end <= len(self.utterance):
            return [str(s.value) for s in found]
        text = " ".join(self.utterance[start:end])
        return [re.sub(r"\s+([,.;:!?])", r"\1", text)]

    def reader_may(self, argument: str) -> bool:
        return (self.tool, argument) in self.readers


def _missing(kinds: str, argument: str) -> Filled:
    return Filled(None, f"no '{kinds}' slot in the query for the required argument '{argument}'")


_FREE_TEXT = frozenset({"note_text", "query", "timer_name"})


def _one(request: _Request, kind: str, argument: str) -> tuple[str | None, Filled | None]:
    """The one span of ``kind`` (None when there is none), or a refusal for several."""
    spans = request.free_text(kind) if kind in _FREE_TEXT else request.spans(kind)
    if len(spans) > 1:
        listed = ", ".join(repr(s) for s in spans)
        return None, Filled(None, f"several values for {argument!r} ({listed}): which is a guess")
    return (spans[0] if spans else None), None
