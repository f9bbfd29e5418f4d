"""Where a compound request's exact match goes: error classes over composed data.

MixSNIPS/MixATIS (and the trainer's own compound examples) join single requests with
"and", "and then", "and also" and commas. When the single requests are known (MixSNIPS
dev is built from SNIPS dev), each missed compound falls in one class:

* ``intents``: the set of intents is wrong;
* ``across``: the intents are right, but a slot span covers a joining word or runs from
  one request into the next;
* ``wrong_alone``: the intents are right, and a request whose slots are wrong in the
  compound is also wrong when the model reads it alone (the single request's error);
* ``compound_only``: the intents are right, and every request whose slots are wrong in
  the compound is right alone (the other requests' words changed its reading);
* ``unmatched``: the compound could not be cut into known single requests.

``parts_alone`` is the exact match the compounds would get if every request were
decided as when read alone (a bound for what the context costs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from understanding.slu.data import Utterance, spans

__all__ = ["ERROR_CLASSES", "JOINING_WORDS", "Reading", "error_class", "segment"]

ERROR_CLASSES = ("right", "intents", "across", "wrong_alone", "compound_only", "unmatched")
JOINING_WORDS = frozenset({",", "and", "then", "also"})


@dataclass(frozen=True)
class Reading:
    """What a model read in an utterance: its intents and one BIO tag per word."""

    intents: tuple[str, ...]
    tags: tuple[str, ...]

    def right_for(self, u: Utterance) -> bool:
        """Exact match: the same set of intents and the same slot spans."""
        return set(self.intents) == set(u.intents) and set(spans(self.tags)) == set(spans(u.tags))


def segment(
    compound: Utterance, singles: Mapping[tuple[str, ...], Utterance]
) -> list[tuple[int, int, Utterance]] | None:
    """The compound cut into known single requests: (start, end, single) word ranges,
    with only joining words between them; None if no cut reads it whole.

    ``singles`` maps a single request's words to it; a part must carry the single's
    own tags (the same words annotated otherwise are not the same request).
    """
    words, tags = compound.words, compound.tags
    n = len(words)
    reach: dict[int, list[tuple[int, int, Utterance]]] = {0: []}
    for i in range(n):
        if i not in reach:
            continue
        starts = [i]
        j = i
        while i > 0 and j < n and words[j].lower() in JOINING_WORDS:
            j += 1
            starts.append(j)
        for s in starts:
            for e in range(s + 1, n + 1):
                single = singles.get(words[s:e])
                if single is not None and single.tags == tags[s:e] and e not in reach:
                    reach[e] = [*reach[i], (s, e, single)]
    return reach.get(n)


def error_class(
    compound: Utterance,
    parts: Sequence[tuple[int, int, Utterance]] | None,
    reading: Reading,
    alone_right: Sequence[bool],
) -> str:
    """The class (one of :data:`ERROR_CLASSES`) of the model's ``reading`` of
    ``compound``; ``alone_right[k]``: whether the model reads part k alone exactly right.
    """
    if reading.right_for(compound):
        return "right"
    if set(reading.intents) != set(compound.intents):
        return "intents"
    if not parts:
        return "unmatched"
    predicted = set(spans(reading.tags))
    gold = set(spans(compound.tags))
    inside = [(s, e) for s, e, _ in parts]
    for _, start, end in predicted:
        if not any(s <= start and end <= e for s, e in inside):
            return "across"
    for k, (s, e, _) in enumerate(parts):
        mine_gold = {x for x in gold if s <= x[1] < e}
        mine_pred = {x for x in predicted if s <= x[1] < e}
        if mine_gold != mine_pred and not alone_right[k]:
            return "wrong_alone"
    return "compound_only"
