"""`edge-agent notes` and `edge-agent lists`: notes and list items read and edited by id
from the command line, one-line errors, and edits that sync (the store's CRDT path)."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
from typer.testing import CliRunner

from edge_agent.cli import app
from sync import MemoryStore
from sync.client import sync_with
from sync.server import SyncServerThread

runner = CliRunner()


def _run(memory: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "--memory", str(memory)])
    return result.exit_code, result.output


def _seed(memory: Path) -> dict[str, str]:
    with MemoryStore(memory) as store:
        return {
            "dentist": store.add_note("the dentist is on friday at 9"),
            "milk": store.add_note("shopping list: milk"),
            "eggs": store.add_note("shopping list: eggs"),
            "mum": store.add_note("to do list: call mum"),
        }


def test_notes_list_show_edit_and_rm(tmp_path: Path) -> None:
    memory = tmp_path / "edge.db"
    ids = _seed(memory)
    code, out = _run(memory, "notes", "list")
    assert code == 0
    assert out.splitlines()[0] == f"{ids['dentist']}  the dentist is on friday at 9"
    assert len(out.splitlines()) == 4
    code, out = _run(memory, "notes", "list", "--json")
    assert [json.loads(line)["note_id"] for line in out.splitlines()] == list(ids.values())
    code, out = _run(memory, "notes", "show", ids["dentist"])
    assert code == 0 and out.splitlines()[-1] == "the dentist is on friday at 9"
    code, out = _run(memory, "notes", "edit", ids["dentist"], "the dentist  is on monday")
    assert code == 0 and "the dentist is on monday" in out
    code, out = _run(memory, "notes", "rm", ids["mum"])
    assert code == 0 and "removed" in out
    with MemoryStore(memory) as store:
        texts = {n["note_id"]: n["text"] for n in store.notes()}
    assert texts == {
        ids["dentist"]: "the dentist is on monday",
        ids["milk"]: "shopping list: milk",
        ids["eggs"]: "shopping list: eggs",
    }


def test_a_unique_prefix_names_a_note(tmp_path: Path) -> None:
    memory = tmp_path / "edge.db"
    ids = _seed(memory)
    unique = next(
        ids["dentist"][:n]
        for n in range(1, 33)
        if sum(i.startswith(ids["dentist"][:n]) for i in ids.values()) == 1
    )
    code, out = _run(memory, "notes", "show", unique, "--json")
    assert code == 0 and json.loads(out)["note_id"] == ids["dentist"]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    memory = tmp_path / "edge.db"
    ids = _seed(memory)
    shared = ids["milk"][:4]  # made within milliseconds: the ids share their first digits
    cases = [
        (("notes", "show", "nope"), "error: no note with id 'nope' in memory"),
        (("notes", "edit", shared, "x"), "have ids starting"),
        (("notes", "edit", ids["milk"], "   "), "error: the text is empty"),
        (("notes", "rm", " "), "error: give a note id"),
        (("lists", "show", "groceries"), "no list named 'groceries' (lists: shopping, to do)"),
        (("lists", "rm", ids["dentist"]), "error: no list item with id"),
        (("notes", "edit", ids["milk"], "x" * 100_001), "longer than 100000 characters"),
    ]
    for args, message in cases:
        code, out = _run(memory, *args)
        assert code == 2, (args, out)
        assert len(out.strip().splitlines()) == 1 and message in out, (args, out)
    with MemoryStore(memory) as store:  # nothing changed
        assert [n["note_id"] for n in store.notes()] == list(ids.values())
        assert store.get_record("notes", ids["milk"])["text"] == "shopping list: milk"  # type: ignore[index]


def test_lists_list_show_add_edit_and_rm(tmp_path: Path) -> None:
    memory = tmp_path / "edge.db"
    ids = _seed(memory)
    code, out = _run(memory, "lists", "list")
    assert code == 0 and out.splitlines() == ["shopping  (2)", "to do  (1)"]
    code, out = _run(memory, "lists", "show", "Shopping List")
    assert out.splitlines() == [f"{ids['milk']}  milk", f"{ids['eggs']}  eggs"]
    code, out = _run(memory, "lists", "add", "shopping", "oat milk")
    assert code == 0 and "to the shopping list: oat milk" in out
    code, out = _run(memory, "lists", "edit", ids["milk"], "whole milk")
    assert code == 0 and "on the shopping list: whole milk" in out
    code, out = _run(memory, "lists", "rm", ids["eggs"])
    assert code == 0
    code, out = _run(memory, "lists", "show", "shopping", "--json")
    assert [json.loads(line)["text"] for line in out.splitlines()] == ["whole milk", "oat milk"]
    with MemoryStore(memory) as store:
        assert store.get_record("notes", ids["milk"])["text"] == "shopping list: whole milk"  # type: ignore[index]


def test_cli_edits_sync_to_the_other_replicas(tmp_path: Path) -> None:
    """Edits made with the CLI are CRDT writes: a sync carries them to the server and on
    to another device, a note another device wrote included."""
    memory = tmp_path / "edge.db"
    with SyncServerThread(tmp_path / "server") as server:
        other = MemoryStore(tmp_path / "other.db", node_id="tablet")
        theirs = other.add_note("shopping list: bread")
        mine = MemoryStore(memory, node_id="phone")
        ours = mine.add_note("pick up the parcel")
        with grpc.insecure_channel(server.target) as channel:
            sync_with(channel, other)
            sync_with(channel, mine)
        mine.close()
        assert _run(memory, "lists", "edit", theirs, "rye bread")[0] == 0
        assert _run(memory, "notes", "rm", ours)[0] == 0
        mine = MemoryStore(memory)
        with grpc.insecure_channel(server.target) as channel:
            sync_with(channel, mine)
            sync_with(channel, other)
        assert [n["text"] for n in other.notes()] == ["shopping list: rye bread"]
        assert [n["text"] for n in server.stores("local").notes()] == ["shopping list: rye bread"]
        assert other.document_json() == mine.document_json()
        mine.close()
        other.close()
