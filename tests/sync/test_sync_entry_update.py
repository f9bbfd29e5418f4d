"""Map-entry writes encoded without the document are the bytes Yjs itself writes."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pycrdt import Doc, Map, get_state, merge_updates

from sync.entry_update import MapSet, encode_map_sets, join_plain

values = st.text(min_size=0, max_size=40)
keys = st.text(alphabet="abcxyz|0123456789é", min_size=1, max_size=12)


@given(old=values, new=st.lists(values, min_size=1, max_size=4), key=keys)
def test_an_edit_is_the_update_yjs_writes(old: str, new: list[str], key: str) -> None:
    doc = Doc(client_id=70_000)
    ymap = doc.get("notes", type=Map)
    ymap[key] = old
    updates: list[bytes] = []
    doc.observe(lambda event: updates.append(event.update))
    origin = (70_000, 0)
    for clock, value in enumerate(new, start=1):
        ymap[key] = value
        expected = encode_map_sets(70_000, clock, [MapSet("notes", key, value, origin)])
        assert updates[-1] == expected
        origin = (70_000, clock)


@given(entries=st.dictionaries(keys, values, min_size=1, max_size=5))
def test_new_keys_are_the_update_yjs_writes(entries: dict[str, str]) -> None:
    doc = Doc(client_id=12_345)
    ymap = doc.get("steps", type=Map)
    updates: list[bytes] = []
    doc.observe(lambda event: updates.append(event.update))
    with doc.transaction():
        for key, value in entries.items():
            ymap[key] = value
    sets = [MapSet("steps", key, value, None) for key, value in entries.items()]
    assert updates == [encode_map_sets(12_345, 0, sets)]


def test_edits_from_another_client_replace_the_entries() -> None:
    doc = Doc(client_id=900)
    ymap = doc.get("facts", type=Map)
    ymap["a|me"] = "1"
    ymap["b|me"] = "2"
    # a client smaller than the items' own: without the origin Yjs would place the new
    # items before the old ones, and a map keeps only its last item per key
    update = encode_map_sets(
        5, 0, [MapSet("facts", "a|me", "1'", (900, 0)), MapSet("facts", "b|me", "2'", (900, 1))]
    )
    doc.apply_update(update)
    assert dict(ymap.items()) == {"a|me": "1'", "b|me": "2'"}
    other = Doc()
    other.apply_update(doc.get_update())
    assert dict(other.get("facts", type=Map).items()) == {"a|me": "1'", "b|me": "2'"}


writes = st.lists(
    st.tuples(
        st.sampled_from(["notes", "steps"]), st.sampled_from(["a|me", "b|me", "c|me"]), values
    ),
    min_size=1,
    max_size=8,
)


@given(before=writes, during=writes)
def test_a_transaction_of_new_keys_and_edits_is_the_update_yjs_writes(
    before: list[tuple[str, str, str]], during: list[tuple[str, str, str]]
) -> None:
    # What the store writes without the document: new keys (no origin) and edits of its
    # own items, in two roots, a key written twice in one transaction included.
    doc = Doc(client_id=4_242)
    origins: dict[tuple[str, str], tuple[int, int]] = {}
    clock = 0
    for root, key, value in before:
        with doc.transaction():
            doc.get(root, type=Map)[key] = value
        origins[(root, key)] = (4_242, clock)
        clock += 1
    updates: list[bytes] = []
    doc.observe(lambda event: updates.append(event.update))
    sets = []
    with doc.transaction():
        for root, key, value in during:
            doc.get(root, type=Map)[key] = value
            sets.append(MapSet(root, key, value, origins.get((root, key))))
            origins[(root, key)] = (4_242, clock + len(sets) - 1)
    encoded = encode_map_sets(4_242, clock, sets)
    if len({(root, key) for root, key, _ in during}) == len(during):
        assert updates[-1] == encoded
    # (Yjs writes a key's earlier item of the same transaction as deleted content; the
    # encoder keeps its value, and deletes it.) Applied to what a peer held before, it
    # gives the same document as Yjs's own.
    expected, got = Doc(), Doc()
    prior = Doc(client_id=4_242)
    for root, key, value in before:
        with prior.transaction():
            prior.get(root, type=Map)[key] = value
    history = prior.get_update()
    expected.apply_update(history)
    expected.apply_update(updates[-1])
    got.apply_update(history)
    got.apply_update(encoded)
    for root in ("notes", "steps"):
        assert dict(got.get(root, type=Map).items()) == dict(expected.get(root, type=Map).items())
    assert got.get_state() == expected.get_state()


batches = st.lists(
    st.tuples(
        st.sampled_from([7, 300, 70_000]),
        st.dictionaries(keys, values, min_size=1, max_size=4),
    ),
    min_size=1,
    max_size=6,
)


@given(batches=batches, order=st.randoms(use_true_random=False))
def test_plain_updates_joined_are_what_yjs_merges(
    batches: list[tuple[int, dict[str, str]]], order: Any
) -> None:
    clocks: dict[int, int] = {}
    updates = []
    for client, entries in batches:
        sets = [MapSet("notes", key, value, None) for key, value in entries.items()]
        updates.append(encode_map_sets(client, clocks.get(client, 0), sets))
        clocks[client] = clocks.get(client, 0) + len(sets)
    order.shuffle(updates)
    joined = join_plain(updates)
    assert joined == merge_updates(*updates)
    if len(clocks) == 1:
        assert join_plain([joined]) == joined  # one client's joined update is plain too
    doc = Doc()
    doc.apply_update(joined)
    assert doc.get_state() == get_state(merge_updates(*updates))


def test_updates_with_a_gap_or_not_plain_are_not_joined() -> None:
    first = encode_map_sets(5, 0, [MapSet("notes", "a|x", "1", None)])
    third = encode_map_sets(5, 2, [MapSet("notes", "c|x", "3", None)])
    assert join_plain([first, third]) is None  # clock 1 is missing
    assert join_plain([first, first]) is None  # overlap
    assert join_plain([first, b"\x00\x00"]) is None  # no structs
    assert join_plain([first, b"\x02\x01"]) is None  # truncated
