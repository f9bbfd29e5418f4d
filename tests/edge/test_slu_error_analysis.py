"""Error classes of compound requests (understanding.slu.error_analysis): cutting a compound back
into its single requests and naming what went wrong."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from understanding.slu.data import Utterance, compose, join
from understanding.slu.error_analysis import Reading, error_class, segment

TIMER = Utterance(
    ("set", "a", "ten", "minute", "timer"), ("O", "O", "B-time", "I-time", "O"), ("timer",)
)
LIGHTS = Utterance(
    ("turn", "off", "the", "kitchen", "lights"), ("O", "O", "O", "B-room", "O"), ("lights",)
)
MUSIC = Utterance(("play", "some", "jazz"), ("O", "O", "B-genre"), ("music",))
SINGLES = {u.words: u for u in (TIMER, LIGHTS, MUSIC)}


def _pair() -> Utterance:
    return join([TIMER, LIGHTS], [("and", "then")])


def _tags(u: Utterance, changes: dict[int, str]) -> tuple[str, ...]:
    return tuple(changes.get(i, t) for i, t in enumerate(u.tags))


@given(st.integers(min_value=0, max_value=10_000))
def test_segment_cuts_a_composed_utterance_into_its_requests(seed: int) -> None:
    (composed,) = compose(list(SINGLES.values()), 1, random.Random(seed))
    parts = segment(composed, SINGLES)
    assert parts is not None
    assert [p.intents for _, _, p in parts] == [(i,) for i in composed.intents]
    for k, (start, end, _) in enumerate(parts):
        owned = [i for i, o in enumerate(composed.word_intents) if o == k]
        assert owned == list(range(start, end))


def test_segment_needs_known_requests_with_their_own_tags() -> None:
    other = join([TIMER, Utterance(("dim", "it"), ("O", "O"), ("lights",))], [("and",)])
    assert segment(other, SINGLES) is None
    retagged = Utterance(TIMER.words, ("O",) * 5, ("timer",))
    assert segment(join([retagged, MUSIC], [("and",)]), SINGLES) is None


def test_error_classes() -> None:
    pair = _pair()
    parts = segment(pair, SINGLES)
    assert parts is not None
    gold = Reading(pair.intents, pair.tags)
    assert error_class(pair, parts, gold, [True, True]) == "right"
    assert error_class(pair, parts, Reading(("timer",), pair.tags), [True, True]) == "intents"
    # "kitchen" tagged as a time: wrong in the compound
    wrong_room = Reading(pair.intents, _tags(pair, {8: "B-time"}))
    assert error_class(pair, parts, wrong_room, [True, True]) == "compound_only"
    assert error_class(pair, parts, wrong_room, [True, False]) == "wrong_alone"
    # the second request wrong alone does not excuse the first one's error
    wrong_time = Reading(pair.intents, _tags(pair, {2: "O", 3: "O"}))
    assert error_class(pair, parts, wrong_time, [True, False]) == "compound_only"
    # a span that covers the joining words
    across = Reading(pair.intents, _tags(pair, {4: "I-time", 5: "I-time"}))
    assert error_class(pair, parts, across, [True, True]) == "across"
    assert error_class(pair, None, wrong_room, []) == "unmatched"
