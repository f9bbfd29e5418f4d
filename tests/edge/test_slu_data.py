"""The joint model's data, decoding, metrics and slot normalisers (no training here)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from understanding.arguments.slots import clock_time, fill_from_slots
from understanding.intents.errors import IntentDataError, IntentModelError
from understanding.slu.data import (
    CONJUNCTIONS,
    LIST_SEPARATOR,
    LOOSE_JOINERS,
    Joints,
    Utterance,
    compose,
    intent_only,
    parse_inline,
    read_utterances,
    spans,
    split_words,
)
from understanding.slu.decode import allowed_transitions, contiguous_owners, viterbi, with_learned
from understanding.slu.metrics import slu_metrics
from understanding.slu.model import TRANSITIONS_FILE, Slot, decode, learned_transitions

SNIPS = """\
wake O
me O
at O
five B-time
thirty I-time
SetAlarm

turn O
off O
the O
kitchen B-room
lights O
and O
play O
jazz B-genre
Lights#PlayMusic

"""


def test_read_snips(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text(SNIPS, "utf-8")
    first, second = read_utterances(path, None)  # .txt is snips
    assert first.words == ("wake", "me", "at", "five", "thirty")
    assert first.tags[3:] == ("B-time", "I-time") and first.intents == ("SetAlarm",)
    assert second.intents == ("Lights", "PlayMusic")
    assert spans(second.tags) == [("room", 3, 4), ("genre", 7, 8)]


def test_snips_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text("wake O\nme O\n\n", "utf-8")
    with pytest.raises(IntentDataError, match=r"d.txt:3: utterance without an intent line"):
        read_utterances(path, "snips")
    path.write_text("wake O X\nSetAlarm\n", "utf-8")
    with pytest.raises(IntentDataError, match=r"d.txt:1: expected 'word TAG'"):
        read_utterances(path, "snips")
    path.write_text("wake Z-x\nSetAlarm\n", "utf-8")
    with pytest.raises(IntentDataError, match="bad slot tag 'Z-x'"):
        read_utterances(path, "snips")


def test_read_jsonl_with_inline_slots(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    rows = [
        {"text": "wake me at [time : five thirty am]", "intent": "alarm_set"},
        {"text": "what's 15% of 80?", "intent": "calculator"},
        {"text": "tell me a story", "intent": "oos"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    alarm, calc, oos = read_utterances(path, "jsonl")
    assert alarm.words == ("wake", "me", "at", "five", "thirty", "am")
    assert alarm.tags == ("O", "O", "O", "B-time", "I-time", "I-time")
    assert calc.words == ("what's", "15%", "of", "80", "?") and not calc.has_slots
    assert oos.intents == ("oos",)
    path.write_text(json.dumps({"text": "set [time : ]", "intent": "a"}) + "\n", "utf-8")
    with pytest.raises(IntentDataError, match=r"d.jsonl:1: slot \[time : \] has no words"):
        read_utterances(path, "jsonl")
    path.write_text(json.dumps({"text": "set [time 5", "intent": "a"}) + "\n", "utf-8")
    with pytest.raises(IntentDataError, match="unbalanced"):
        read_utterances(path, "jsonl")


def test_read_slurp(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    line = {
        "sentence": "wake me up at five am",
        "sentence_annotation": "wake me up at [time : five am]",
        "intent": "alarm_set",
    }
    path.write_text(json.dumps(line) + "\n", "utf-8")
    (u,) = read_utterances(path, "slurp")
    assert spans(u.tags) == [("time", 4, 6)] and u.intents == ("alarm_set",)


words_st = st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=4)


@given(st.lists(st.tuples(words_st, st.one_of(st.none(), st.sampled_from(["time", "room"])))))
def test_parse_inline_round_trips(chunks: list[tuple[list[str], str | None]]) -> None:
    text = " ".join(
        " ".join(w) if kind is None else f"[{kind} : {' '.join(w)}]" for w, kind in chunks
    )
    words, tags = parse_inline(text)
    assert words == [w for ws, _ in chunks for w in ws]
    expected = [
        (kind, sum(len(w) for w, _ in chunks[:i]), sum(len(w) for w, _ in chunks[: i + 1]))
        for i, (_, kind) in enumerate(chunks)
        if kind is not None
    ]
    # adjacent slots of one type stay apart: B- starts each
    assert spans(tags) == expected


def test_compose_joins_different_intents(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text(SNIPS.split("\n\n")[0] + "\n\nplay O\njazz B-genre\nPlayMusic\n\n", "utf-8")
    singles = read_utterances(path, "snips")
    (joined,) = compose(singles, 1, random.Random(0))
    assert set(joined.intents) == {"SetAlarm", "PlayMusic"}
    assert len(joined.word_intents) == len(joined.words) == len(joined.tags)
    joint = [w for w, o in zip(joined.words, joined.word_intents, strict=True) if o < 0]
    assert tuple(joint) in CONJUNCTIONS + LOOSE_JOINERS


def test_compose_joins_three_requests_as_a_list() -> None:
    singles = [
        Utterance((word, "now"), ("B-thing", "O"), (intent,))
        for word, intent in (("a", "A"), ("b", "B"), ("c", "C"))
    ]
    composed = compose(singles, 200, random.Random(1))
    three = [u for u in composed if len(u.intents) == 3]
    assert 20 < len(three) < 120  # about 30%
    for u in composed:
        assert len(set(u.intents)) == len(u.intents)
        # each request keeps its words and tags, in one piece, in the order of the intents
        for k, intent in enumerate(u.intents):
            own = [i for i, o in enumerate(u.word_intents) if o == k]
            assert [u.words[i] for i in own] == [intent.lower(), "now"]
            assert [u.tags[i] for i in own] == ["B-thing", "O"]
        joints = _joints(u)
        assert joints[-1] in CONJUNCTIONS + LOOSE_JOINERS
        assert all(j == LIST_SEPARATOR for j in joints[:-1])


@given(st.integers(0, 2**32 - 1))
def test_compose_with_the_callers_joints(seed: int) -> None:
    """A caller's joints replace the defaults: here every joint is drawn from ``last``
    (none from the list separator or the loose joints), two or three requests."""
    singles = [
        Utterance((word, "now"), ("B-thing", "O"), (intent,))
        for word, intent in (("a", "A"), ("b", "B"), ("c", "C"), ("d", "D"))
    ]
    last = (("plus",), ("and", "next"))
    joints = Joints(last=last, loose=(), loose_share=0.0, earlier=None, two_share=0.5)
    for u in compose(singles, 20, random.Random(seed), joints=joints):
        assert 2 <= len(u.intents) <= 3
        assert all(j in last for j in _joints(u))
    # The defaults are the MixSNIPS joints (the trainer's; a pinned build passes its own).
    default = compose(singles, 20, random.Random(seed))
    assert default == compose(singles, 20, random.Random(seed), joints=Joints())


def _joints(u: Utterance) -> list[tuple[str, ...]]:
    """The runs of joining words (word_intents -1) between requests."""
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    for w, o in zip(u.words, u.word_intents, strict=True):
        if o < 0:
            run.append(w)
        elif run:
            out.append(tuple(run))
            run = []
    return out


def test_split_words() -> None:
    assert split_words("What's 15% of 80?") == ["What's", "15%", "of", "80", "?"]
    assert split_words("at 7:30, please") == ["at", "7:30", ",", "please"]


# -- decoding and metrics -----------------------------------------------------------------

TAGS = ["O", "B-time", "I-time", "B-room", "I-room"]


@given(st.lists(st.lists(st.floats(-5, 5), min_size=5, max_size=5), min_size=1, max_size=8))
def test_viterbi_never_decodes_an_invalid_transition(rows: list[list[float]]) -> None:
    path = [TAGS[i] for i in viterbi(np.asarray(rows), allowed_transitions(TAGS))]
    for prev, tag in zip(["O", *path], path, strict=False):
        if tag.startswith("I-"):
            assert prev in (f"B-{tag[2:]}", tag)


@given(
    st.lists(st.lists(st.floats(-5, 5), min_size=5, max_size=5), min_size=1, max_size=5),
    st.none() | st.lists(st.floats(-2, 2), min_size=30, max_size=30),
)
def test_viterbi_finds_the_best_sequence(
    rows: list[list[float]], learned: list[float] | None
) -> None:
    """Whether the words' own best tags are taken (their transitions score the most any
    could) or the search runs, no tag sequence scores more (every one, tried)."""
    scores = np.asarray(rows)
    allowed = allowed_transitions(TAGS)
    if learned is not None:
        extra = (np.asarray(learned[:5]), np.reshape(learned[5:], (5, 5)))
        allowed = with_learned(allowed, extra)
    start, trans = allowed

    def total(path: tuple[int, ...] | list[int]) -> float:
        pairs = itertools.pairwise(path)
        return float(
            start[path[0]] + sum(scores[i, t] for i, t in enumerate(path))
            + sum(trans[a, b] for a, b in pairs)
        )  # fmt: skip

    every = itertools.product(range(len(TAGS)), repeat=len(rows))
    assert total(viterbi(scores, allowed)) == pytest.approx(max(map(total, every)), abs=1e-6)


def test_decode_splits_words_between_intents() -> None:
    n_words = 4
    first = np.arange(1, n_words + 1)
    slot_logits = np.zeros((n_words + 2, len(TAGS)))
    slot_logits[[1, 2, 3, 4], [0, 1, 0, 3]] = 5.0
    word_intent = np.zeros((n_words + 2, 3))
    word_intent[[1, 2], 2] = 5.0
    word_intent[[3, 4], 0] = 5.0
    d = decode(np.array([3.0, -3.0, 2.0]), slot_logits, word_intent, first, TAGS,
               allowed_transitions(TAGS))  # fmt: skip
    assert d.intents == [2, 0]  # in the order of the words
    assert d.owners == [0, 0, 1, 1]
    assert d.tags == ["O", "B-time", "O", "B-room"]


def test_viterbi_follows_learned_transitions() -> None:
    # word by word the tagger says B-time twice; the learned scores say a time goes on
    scores = np.log(np.array([[0.1, 0.6, 0.3, 0.0001, 0.0001], [0.1, 0.5, 0.4, 0.0001, 0.0001]]))
    allowed = allowed_transitions(TAGS)
    assert [TAGS[i] for i in viterbi(scores, allowed)] == ["B-time", "B-time"]
    learned = np.zeros((len(TAGS), len(TAGS)))
    learned[1, 1], learned[1, 2] = -2.0, 1.0
    path = viterbi(scores, with_learned(allowed, (np.zeros(len(TAGS)), learned)))
    assert [TAGS[i] for i in path] == ["B-time", "I-time"]


def test_learned_transitions_are_checked(tmp_path: Path) -> None:
    assert learned_transitions(tmp_path, 3) is None  # a model from before the CRF
    np.savez(tmp_path / TRANSITIONS_FILE, start=np.zeros(3), transitions=np.ones((3, 3)))
    learned = learned_transitions(tmp_path, 3)
    assert learned is not None and learned[1].sum() == 9.0
    with pytest.raises(IntentModelError, match="the model has 5"):
        learned_transitions(tmp_path, 5)
    (tmp_path / TRANSITIONS_FILE).write_bytes(b"not numpy")
    with pytest.raises(IntentModelError, match="unreadable"):
        learned_transitions(tmp_path, 3)


def test_crf_nll_is_the_likelihood_over_every_path() -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) trains the CRF")
    from understanding.slu.network import crf_nll

    gen = torch.Generator().manual_seed(0)
    n_tags = 3
    emissions = torch.randn(2, 3, n_tags, generator=gen)
    start = torch.randn(n_tags, generator=gen)
    trans = torch.randn(n_tags, n_tags, generator=gen)
    gold = torch.tensor([[0, 2, 1], [1, 1, -100]])
    mask = torch.tensor([[True, True, True], [True, True, False]])

    def score(row: int, path: tuple[int, ...]) -> Any:
        s = start[path[0]] + emissions[row, 0, path[0]]
        for t in range(1, len(path)):
            s = s + trans[path[t - 1], path[t]] + emissions[row, t, path[t]]
        return s

    expected = torch.tensor(0.0)
    for row, length in ((0, 3), (1, 2)):
        every = [score(row, p) for p in itertools.product(range(n_tags), repeat=length)]
        path = tuple(int(t) for t in gold[row, :length])
        expected = expected + torch.logsumexp(torch.stack(every), 0) - score(row, path)
    got = crf_nll(emissions, gold, mask, start, trans)
    assert torch.allclose(got, expected, atol=1e-5)


@given(
    st.integers(2, 4).flatmap(
        lambda k: st.lists(
            st.lists(st.floats(-8, 0), min_size=k, max_size=k), min_size=1, max_size=7
        )
    )
)
def test_contiguous_owners_is_the_best_unbroken_split(rows: list[list[float]]) -> None:
    scores = np.asarray(rows)
    n, k = scores.shape
    owners = contiguous_owners(scores)
    assert len(owners) == n
    if n < k:
        return
    runs = [o for i, o in enumerate(owners) if i == 0 or owners[i - 1] != o]
    assert sorted(runs) == list(range(k))  # each request one unbroken run, none left out
    best = max(
        sum(scores[w, order[j]] for j in range(k) for w in range(b[j], b[j + 1]))
        for order in itertools.permutations(range(k))
        for cuts in itertools.combinations(range(1, n), k - 1)
        for b in [[0, *cuts, n]]
    )
    assert sum(scores[w, o] for w, o in enumerate(owners)) == pytest.approx(best)


def test_decode_keeps_each_request_in_one_piece() -> None:
    # "order lattes and water the ficus": the head alone gives "ficus" to the coffee
    n_words = 6
    first = np.arange(1, n_words + 1)
    word_intent = np.zeros((n_words + 2, 2))
    word_intent[1:7, 0] = [5, 5, 1, -5, -5, 1]
    word_intent[1:7, 1] = [-5, -5, 0, 5, 5, -1]
    slot_logits = np.zeros((n_words + 2, len(TAGS)))
    d = decode(np.array([3.0, 3.0]), slot_logits, word_intent, first, TAGS,
               allowed_transitions(TAGS))  # fmt: skip
    assert d.owners == [0, 0, 0, 1, 1, 1]


def test_slot_f1_is_conlleval() -> None:
    gold = [["B-time", "I-time", "O", "B-room"]]
    pred = [["B-time", "O", "O", "B-room"]]  # one span cut short: wrong
    m = slu_metrics([["a"]], gold, [["a"]], pred)
    assert m["slot_precision"] == 0.5 and m["slot_recall"] == 0.5 and m["slot_f1"] == 0.5
    assert m["intent_accuracy"] == 1.0 and m["exact_match"] == 0.0
    m = slu_metrics([["a", "b"]], gold, [["b", "a"]], gold)
    assert m["exact_match"] == 1.0
    assert spans(["I-time", "I-time", "B-time"]) == [("time", 0, 2), ("time", 2, 3)]


# -- arguments from slots -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "time"),
    [
        ("five thirty am", "05:30"),
        ("seven pm", "19:00"),
        ("half past seven", "07:30"),
        ("quarter to eight pm", "19:45"),
        ("noon", "12:00"),
        ("17:45", "17:45"),
        ("12 am", "00:00"),
        ("banana", None),
        ("25:00", None),
    ],
)
def test_clock_time(said: str, time: str | None) -> None:
    assert clock_time(said) == time


SCHEMA = {
    "type": "object",
    "properties": {
        "people": {"type": "integer", "minimum": 1},
        "time": {"type": "string", "format": "time"},
        "wait": {"type": "integer", "x-edgeloop-filler": "duration"},
        "size": {"type": "string", "enum": ["small", "large"]},
        "what": {"type": "string", "x-edgeloop-slots": ["dish", "drink"]},
        "guests": {"type": "array", "items": {"type": "string"}, "x-edgeloop-slots": "guest"},
    },
    "required": ["people", "time"],
}


def test_fill_from_slots_normalises_by_schema() -> None:
    slots = [
        Slot("people", "four", 0, 1),
        Slot("time", "half past", 1, 3),
        Slot("time", "seven", 3, 4),  # a span split by the tagger reads as one
        Slot("wait", "half an hour", 5, 8),
        Slot("size", "a large one", 8, 11),
        Slot("drink", "flat white", 11, 13),
        Slot("guest", "ann", 13, 14),
        Slot("guest", "bo", 15, 16),
    ]
    filled = fill_from_slots(SCHEMA, slots)
    assert filled.arguments == {
        "people": 4,
        "time": "07:30",
        "wait": 1800,
        "size": "large",
        "what": "flat white",
        "guests": ["ann", "bo"],
    }


def test_fill_from_slots_never_guesses() -> None:
    assert (
        "required argument 'time'" in fill_from_slots(SCHEMA, [Slot("people", "two", 0, 1)]).reason
    )
    two = [Slot("people", "two", 0, 1), Slot("people", "three", 3, 4), Slot("time", "7pm", 5, 6)]
    assert "several values for 'people'" in fill_from_slots(SCHEMA, two).reason
    bad = [Slot("people", "lots", 0, 1), Slot("time", "7pm", 2, 3)]
    assert "'lots' is not a number" in fill_from_slots(SCHEMA, bad).reason
    zero = [Slot("people", "zero", 0, 1), Slot("time", "7pm", 2, 3)]
    assert "do not fit the schema" in fill_from_slots(SCHEMA, zero).reason
    rules = fill_from_slots(
        SCHEMA,
        [Slot("people", "2", 0, 1), Slot("time", "7pm", 2, 3)],
        lambda args: "closed at 19:00" if args["time"] == "19:00" else None,
    )
    assert rules.arguments is None and "closed at 19:00" in rules.reason


def test_read_jsonl_intent_only_lines(tmp_path: Path) -> None:
    """``"slots": null``: slots nobody annotated (the trainer masks them); a line without
    the key and without brackets keeps its meaning, no slots (every tag a known ``O``)."""
    path = tmp_path / "d.jsonl"
    rows = [
        {"text": "is it going to rain in tampa", "intent": "get_weather", "slots": None},
        {"text": "what's 15% of 80?", "intent": "calculator"},
        {"text": "tell me a story", "intent": "oos"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    weather, calc, oos = read_utterances(path, "jsonl")
    assert weather.known_tags == (False,) * 7 and not weather.fully_tagged
    assert weather.intents == ("get_weather",) and not weather.has_slots
    assert calc.fully_tagged and calc.known_tags == (True,) * 5
    assert oos.fully_tagged
    path.write_text(json.dumps({"text": "rain in [city : tampa]", "intent": "w", "slots": None}))
    with pytest.raises(IntentDataError, match=r'd.jsonl:1: inline slots on a line with "slots"'):
        read_utterances(path, "jsonl")
    path.write_text(json.dumps({"text": "rain in tampa", "intent": "w", "slots": []}) + "\n")
    with pytest.raises(IntentDataError, match=r'd.jsonl:1: "slots" may only be null'):
        read_utterances(path, "jsonl")


@given(st.lists(st.tuples(words_st, st.booleans()), min_size=2, max_size=3), st.integers(0, 99))
def test_a_compound_keeps_its_parts_unknown_tags(
    parts: list[tuple[list[str], bool]], seed: int
) -> None:
    """Composed from tagged and intent-only requests, a compound knows the tags of the
    tagged requests' words and of the joining words, and no intent-only request's."""
    singles = [
        intent_only(words, (f"I{k}",))
        if unknown
        else Utterance(tuple(words), ("B-x",) + ("O",) * (len(words) - 1), (f"I{k}",))
        for k, (words, unknown) in enumerate(parts)
    ]
    for u in compose(singles, 10, random.Random(seed)):
        assert len(u.known_tags) == len(u.words)
        for word, owner, known in zip(u.words, u.word_intents, u.known_tags, strict=True):
            if owner < 0:
                assert known, word  # a joining word is a known O
            else:
                part = singles[int(u.intents[owner][1:])]
                assert known == part.fully_tagged
        assert u.fully_tagged == all(p.fully_tagged for p in singles if p.intents[0] in u.intents)
