"""Named lists created empty (issue 12): ``add_note {list}`` with no ``text`` creates the
list ("create a new list for school supplies"), once; an item still needs its own words,
and a list name the tagger cut short creates nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from edge_agent.cli import app
from sync.store import MemoryStore
from tests.edge.slot_filling import arguments_or_cloud
from understanding.answers import tool_answer
from understanding.arguments import validate_arguments
from understanding.tools import notes

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def fill(words: str, **spans: str) -> Any:
    return arguments_or_cloud("add_note", words, None, NOW, **spans)


@pytest.mark.parametrize(
    ("words", "spans", "expected"),
    [
        ("create a new list for school supplies", {"list_name": "school supplies"},
         {"list": "school supplies"}),
        ("make a new to do list", {"list_name": "to do"}, {"list": "to do"}),
        ("start a shopping list please", {"list_name": "shopping"}, {"list": "shopping"}),
        ("create a list called holiday ideas", {"list_name": "holiday ideas"},
         {"list": "holiday ideas"}),
        # An item is still an item.
        ("add milk to my shopping list", {"note_text": "milk", "list_name": "shopping"},
         {"text": "milk", "list": "shopping"}),
    ],
)  # fmt: skip
def test_a_list_created_empty(words: str, spans: dict[str, str], expected: object) -> None:
    assert fill(words, **spans) == expected


@pytest.mark.parametrize(
    ("words", "spans", "expected"),
    [
        ("add milk to my grocery list", {"list_name": "grocery"},
         {"text": "milk", "list": "grocery"}),
        ("please add pastries to the christmas list", {"list_name": "christmas"},
         {"text": "pastries", "list": "christmas"}),
        # The grammar whole, its list the tagger's, an item with words of its own.
        ("add this to my shopping list", {"list_name": "shopping"}, None),
        ("add something to the shopping list", {"list_name": "shopping"}, None),
        ("add milk to my shopping list when i get home", {"list_name": "shopping"}, None),
        ("add milk to my grocery list", {}, None),
        ("i said add milk to my grocery list", {"list_name": "grocery"}, None),
    ],
)  # fmt: skip
def test_an_item_the_tagger_left_untagged(
    words: str, spans: dict[str, str], expected: dict[str, str] | None
) -> None:
    got = fill(words, **spans)
    assert got == expected if expected is not None else got[0] == "cloud"


@pytest.mark.parametrize(
    ("words", "spans"),
    [
        ("can you create a new list", {}),  # no name: which list?
        ("create a list of monthly groceries to be bought", {"list_name": "monthly"}),  # cut
        ("add this to a list", {}),  # an item with no words
        ("add to the shopping list", {"list_name": "shopping"}),  # no item, no verb
        ("make a new list", {"list_name": "list"}),
    ],
)
def test_no_list_is_created_on_a_guess(words: str, spans: dict[str, str]) -> None:
    assert fill(words, **spans)[0] == "cloud"


@settings(deadline=None)
@given(st.lists(st.sampled_from(["school", "camping", "gift", "ideas", "work", "books"]),
                min_size=1, max_size=3))  # fmt: skip
def test_any_named_list_is_created_by_its_name(words: list[str]) -> None:
    name = " ".join(words)
    assert fill(f"create a new list for {name}", list_name=name) == {"list": name}
    assert fill(f"make a {name} list", list_name=name) == {"list": name}
    assert validate_arguments("add_note", {"list": name}) is None


def test_the_schema_takes_a_list_alone_but_not_nothing() -> None:
    assert validate_arguments("add_note", {"list": "work"}) is None
    assert validate_arguments("add_note", {}) is not None
    assert validate_arguments("remove_note", {"list": "work"}) is not None


def test_creating_a_list_twice_writes_it_once(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "m.db") as memory:
        add = notes.make_add(memory)
        first = add({"list": "School Supplies List"})
        assert first["created"] is True and first["list"] == "school supplies"
        again = add({"list": "school supplies"})
        assert again == {**again, "created": False, "count": 0, "note_id": first["note_id"]}
        add({"text": "pencils", "list": "school supplies"})
        assert notes.all_lists(memory) == [{"name": "school supplies", "count": 1}]
        assert [i["text"] for i in notes.list_items(memory, "school supplies")] == ["pencils"]
        third = add({"list": "school supplies"})
        assert third["created"] is False and third["count"] == 1
        assert tool_answer("add_note", {"list": "school supplies"}, third) == (
            "You already have a school supplies list (1 item)."
        )


def test_a_list_created_empty_end_to_end(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    runner = CliRunner()

    def ask(query: str) -> str:
        result = runner.invoke(app, ["ask", "--memory", db, query])
        assert result.exit_code == 0, result.output
        return result.output.strip()

    assert ask("create a new list for school supplies") == (
        "Created your school supplies list. It's empty for now."
    )
    assert ask("what lists do i have") == "Your school supplies list (your only list) is empty."
