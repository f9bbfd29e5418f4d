"""Map-entry writes encoded without the document are the bytes Yjs itself writes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from pycrdt import Doc, Map

from sync.entry_update import MapSet, encode_map_sets

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
