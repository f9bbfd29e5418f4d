"""The notes and lists tools' arguments from a joint model's slots: ``add_note``,
``remove_note`` and ``search_notes`` (:mod:`understanding.arguments.builtin_slots`)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from understanding.arguments.builtin_request import _missing, _one, _Request, _said
from understanding.arguments.schema import Filled


def slot_list(span: str) -> str | None:
    """A list's name as kept ("my shopping list" -> shopping, "to do" -> to do)."""
    from understanding.tools.notes import list_name

    name = list_name(_said(span))
    return name if 0 < len(name) <= 40 else None


_EMPTY_WORDS = frozenset(
    "a an the my our your this that these those it them some any of about for on to".split()  # noqa: SIM905
)


def _words_of(span: str | None) -> str | None:
    """The span as said, or None when it holds no word of its own ("the", "it")."""
    if span is None:
        return None
    said = " ".join(span.split())
    return said if set(_said(said).split()) - _EMPTY_WORDS else None


# What ran out, said before a request that points at it: "we're out of coffee, put it on
# the shopping list", "ran out of eggs so add them to the list".
_RAN_OUT = re.compile(
    r"\b(?:(?:we(?:'re|\s+are)|i'?m|i\s+am)\s+(?:all\s+)?(?:out\s+of|low\s+on|running\s+"
    r"(?:low\s+on|out\s+of)|(?:almost|nearly)\s+out\s+of)|(?:(?:we|i)(?:'ve|\s+have)?\s+)?(?:run|ran)"
    r"\s+out\s+of|there'?s\s+no(?:\s+more)?|(?:we|i)\s+need(?:\s+(?:more|some))?)\s+"
    r"(?:(?:any|some|the)\s+)?(?P<item>[a-z][a-z' -]*?)\s*(?:[,.;!]|\s+(?:so|and|left|can|could|"
    r"please|pls)\b)"
)
_POINTED_ITEM = re.compile(
    r"\b(?:put|add|stick|pop|write|chuck|jot)\s+(?:it|them|some|that|those|more)\s+"
    r"(?:on|to|onto|in)\b"
)


def _ran_out(words: str) -> tuple[str, re.Match[str], re.Match[str]] | None:
    """The words (lower case), what ran out and the words pointing at it, or None."""
    said = " ".join(words.lower().split())
    pointed = _POINTED_ITEM.search(said)
    ran_out = _RAN_OUT.search(said[: pointed.start()]) if pointed else None
    return (said, ran_out, pointed) if pointed is not None and ran_out is not None else None


def _ran_out_item(request: _Request) -> Filled | None:
    """The item a request points at with "it"/"them" after saying it ran out, or None."""
    found = _ran_out(request.words)
    if found is None:
        return None
    return _with_list(request, {"text": found[1].group("item").strip()})


def ran_out_words(words: str) -> set[int]:
    """The indices (``tokens_of``) of the words that say what ran out and point at it ("we're
    out of coffee, put it on" the list): the note's context, no words it leaves out."""
    from understanding.arguments.qualifiers import tokens_of

    found = _ran_out(words)
    if found is None:
        return set()
    said, ran_out, pointed = found
    # the item's own words stay the note's to keep, whole
    before, item = len(tokens_of(said[: ran_out.start("item")])), tokens_of(ran_out["item"])
    return set(range(len(tokens_of(said[: pointed.end()])))) - set(
        range(before, before + len(item))
    )


def _note(request: _Request, _home: Any, _now: datetime) -> Filled:
    span, refusal = _one(request, "note_text", "text")
    if refusal is not None:
        return refusal
    text = _words_of(span)
    ran_out = _ran_out_item(request) if request.tool == "add_note" else None
    said_item = str((ran_out.arguments or {}).get("text", "")) if ran_out is not None else ""
    if ran_out is not None and said_item and (text is None or _said(text) in _said(said_item)):
        return ran_out  # "we've run out of washing up liquid, stick it on": the item whole
    if span is not None and text is None:
        return Filled(None, f"{span!r} says nothing to write down")
    if text is None:
        if request.tool == "add_note" and (created := _new_list(request)) is not None:
            return created
        if request.tool == "add_note" and (item := _list_item(request)) is not None:
            return item
        if request.reader_may("text") and (found := _note_from_words(request)):
            return Filled(found)
        return _missing("note_text", "text")
    if request.tool == "add_note" and not request.spans("list_name"):
        text = _whole_note(request.words, text)
    args: dict[str, Any] = {"text": " ".join(text.split())}
    return _with_list(request, args)


def _whole_note(words: str, tagged: str) -> str:
    """The note as said, where the tagger marked only part of it ("the wifi router is in
    the cupboard" of "... in the cupboard under the stairs", "Tom prefers tea" of "...,
    not coffee"): the words after the note's verb (``free_text.note_text``), when they hold
    the tagged words and start no second request ("note that the milk is off and turn off
    the lights" keeps its cut, which the policy sends to the cloud)."""
    from understanding.arguments.free_text import note_text
    from understanding.arguments.qualifiers import is_question, tokens_of
    from understanding.policy import COMMAND_VERBS, GLUE, OPENERS, second_request

    said = note_text(words)
    said = re.sub(r"\s+([,.;:!?])", r"\1", said) if said is not None else None
    if said is None or len(said) <= len(tagged) or _said(tagged) not in _said(said):
        return tagged
    if second_request(tokens_of(said)) is not None:
        return tagged
    for clause in re.split(r"[,;:]", _said(said).replace(_said(tagged), ",", 1)):
        tokens = [t for t in tokens_of(clause) if t not in OPENERS and t not in GLUE]
        if tokens and (tokens[0] in COMMAND_VERBS or is_question(clause)):
            return tagged  # "..., turn off the lights": a clause of its own, maybe a request
    return said


_CREATE = re.compile(r"\b(?:create|make|start|open|set up|begin|new)\b")


_TRAILING = r"(?:\s+(?:please|now|olly|alexa|thanks|thank you|for me))*"


def _new_list(request: _Request) -> Filled | None:
    """``{"list": name}`` for a request that creates a named list with no item ("create a
    new list for school supplies", "make a new to do list"): a creating verb, and the
    ``list_name`` span right before "list" or after "list for/called/named" up to the end
    of the request, so a name the tagger cut short ("monthly" of "a list of monthly
    groceries") creates nothing. None for any other request."""
    said = _said(request.words)
    names = request.spans("list_name")
    if len(names) != 1 or not _CREATE.search(said):
        return None
    span = _said(names[0])
    name = slot_list(span)
    if not name or name == "list" or not set(name.split()) - _EMPTY_WORDS:
        return None
    before_list = re.search(r"\b" + re.escape(span) + r"\s+lists?\b", said)
    after_list = re.search(
        r"\blist\s+(?:for|called|named|titled)\s+(?:my\s+|the\s+|our\s+)?"
        + re.escape(span)
        + _TRAILING
        + r"$",
        said,
    )
    if before_list is None and after_list is None:
        return None
    return Filled({"list": name})


_NO_ITEM = frozenset({"item", "items", "something", "stuff", "thing", "things", "one"})


def _list_item(request: _Request) -> Filled | None:
    """``{"text", "list"}`` for an item put on a named list whose words the tagger left
    untagged ("add milk to my grocery list" with only "grocery" tagged): only where the
    whole request is the list grammar of :func:`understanding.requests.list_request` ("add
    <item> to my/the <name> list", nothing after it but politeness), its list is the
    tagger's ``list_name``, and the item has words of its own (not "this", "something").
    None for anything else: a note is never read from free words."""
    from understanding.requests import list_request

    names = request.spans("list_name")
    said = re.sub(r"(?:\s+(?:please|now|olly|alexa|thanks|thank you))+$", "", _said(request.words))
    asked = list_request(said)
    if len(names) != 1 or asked is None or asked[0] != "add" or not asked[1]:
        return None
    if not re.search(r"\blist$", said) or asked[2] != slot_list(names[0]):
        return None
    item = asked[1]
    if not set(_said(item).split()) - _EMPTY_WORDS - _NO_ITEM:
        return None
    return Filled({"text": item, "list": asked[2]})


def _note_from_words(request: _Request) -> dict[str, Any] | None:
    """The readers' note or list item from the words (not in the shipped policy)."""
    from understanding.arguments.free_text import note_text
    from understanding.requests import list_request

    listed = list_request(request.words)
    wanted = "add" if request.tool == "add_note" else "remove"
    if listed is not None and listed[0] == wanted and listed[1]:
        return {"text": listed[1], "list": listed[2]}
    if request.tool == "add_note" and (body := note_text(request.words)):
        return {"text": body}
    return None


def _with_list(request: _Request, args: dict[str, Any]) -> Filled:
    span, refusal = _one(request, "list_name", "list")
    if refusal is not None:
        return refusal
    if span is not None:
        name = slot_list(span)
        if name is None:
            return Filled(None, f"{span!r} is no list name")
        args["list"] = name
    return Filled(args)


# "list" as a noun ("my list", "the lists", "what lists"), not the verb ("list everything")
# nor a list of something else ("the list of trains to chester").
_LIST_NOUN = re.compile(
    r"(?:\blists|\b(?:my|the|our|a|this|that|which|what|any|every|all)\s+(?:[\w']+\s+)?list)"
    r"\b(?!\s+of\b)",
    re.IGNORECASE,
)


# A write beside a search ("... and make a packing list"): a second request of its own.
_WRITES = re.compile(
    r"(?<!\bdid i )(?<!\bhave i )(?<!\bdid we )(?<!\bi )(?<!\bwe )"
    r"\b(?:make|create|start|add|set up)\s+(?:(?:a|an|the|my|new|another)\s+)*"
    r"(?:[\w']+\s+){0,2}?(?:list|note|reminder|memo)s?\b"
)


# Notes by when they were written ("my last three notes"): the search finds notes by their
# words, never by their order, so such a request is no search of its.
_BY_ORDER = re.compile(
    r"\b(?:last|latest|most recent|recent|newest|first|oldest|previous|earliest)\s+"
    r"(?:[\w']+\s+)?(?:notes?|entries|items|memos?|things i (?:wrote|saved|noted))\b"
)


def _search_notes(request: _Request, _home: Any, _now: datetime) -> Filled:
    from understanding.arguments.free_text import search_query

    said = _said(request.words)
    if _WRITES.search(said):
        return Filled(None, "a note or list to write beside the search: two requests")
    if _BY_ORDER.search(said):
        return Filled(None, "notes by when they were written: the search reads their words")

    span, refusal = _one(request, "query", "query")
    if refusal is not None:
        return refusal
    query = _words_of(span)
    if span is not None and query is None:
        return Filled(None, f"{span!r} names nothing to search for")
    args: dict[str, Any] = {"query": query} if query else {}
    listed = _with_list(request, args)
    if listed.arguments is None or listed.arguments:
        return listed
    if request.reader_may("query"):
        from understanding.requests import list_request

        asked = list_request(request.words)
        if asked is not None and asked[0] == "read":
            return Filled({"list": asked[2]})
        if _LIST_NOUN.search(request.words):
            # "what's on my list", "show me my lists": no list named, so the lists there
            # are (the one list's items when there is one); never a search for "list".
            return Filled({"lists": True})
        if re.search(r"\blists?\b", request.words, re.IGNORECASE):
            # "list" the verb, or a list of something else: no search for the word "list".
            return Filled(None, "the query names no list of the user's")
        if found := search_query(request.words):
            return Filled({"query": found})
    return _missing("query' or 'list_name", "query")
