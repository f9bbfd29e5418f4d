"""The `notes` and `lists` command groups: read and edit the device's notes and list items
by id, without Python.

A list item is a note ("shopping list: milk", docs/sync-protocol.md 1.7), so both groups
read and write the same records, through the store's one write path (``update_note``,
``delete_note``, ``add_note``): every edit is a CRDT write and syncs like the tools'.
Ids are the notes' full 32-hex ids; any unique prefix of one is accepted.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from edge_agent.cli._common import MemoryOption, _device_store
from edgeloop.console import fail

if TYPE_CHECKING:
    from sync.store import MemoryStore

notes_app = typer.Typer(help="The device's notes, by id (edits sync like any write).")
lists_app = typer.Typer(help="Named lists and their items, by id (each item is a note).")

JsonOption = typer.Option(False, "--json", help="One JSON object a line.")


def _find(notes: list[dict[str, Any]], wanted: str, what: str = "note") -> dict[str, Any]:
    """The one note whose id is ``wanted`` or starts with it; a one-line failure else."""
    key = wanted.strip().lower()
    if not key:
        where = "edge-agent notes list" if what == "note" else "edge-agent lists show NAME"
        raise fail(f"give a {what} id ({where} shows them)", 2)
    exact = [n for n in notes if n["note_id"] == key]
    found = exact or [n for n in notes if str(n["note_id"]).startswith(key)]
    if not found:
        raise fail(f"no {what} with id {wanted!r} in memory", 2)
    if len(found) > 1:
        raise fail(f"{len(found)} {what}s have ids starting {wanted!r}: give more of the id", 2)
    return found[0]


def _text(text: str) -> str:
    """A note's new text, whitespace-tidied; a one-line failure when empty."""
    clean = " ".join(text.split())
    if not clean:
        raise fail("the text is empty", 2)
    return clean


def _line(note_id: str, text: str) -> str:
    flat = " ".join(text.split())
    return f"{note_id}  {flat if len(flat) <= 200 else flat[:199] + '…'}"


def _edit(store: MemoryStore, note_id: str, text: str) -> None:
    from sync.errors import MemoryStoreError

    try:
        store.update_note(note_id, text)
    except MemoryStoreError as exc:  # a text over the store's limit
        raise fail(str(exc), 2) from None


@notes_app.command("list")
def notes_list(memory: MemoryOption = None, json_output: bool = JsonOption) -> None:
    """Every note, oldest first: its id and text (list items included)."""
    store = _device_store(memory)
    try:
        notes = store.notes()
    finally:
        store.close()
    for note in notes:
        out = json.dumps(note, ensure_ascii=False) if json_output else None
        typer.echo(out or _line(note["note_id"], note["text"]))
    if not notes and not json_output:
        typer.echo("no notes")


@notes_app.command("show")
def notes_show(
    note_id: str = typer.Argument(..., help="The note's id (or a unique prefix)."),
    memory: MemoryOption = None,
    json_output: bool = JsonOption,
) -> None:
    """One note in full: id, when it was written, the action that wrote it, its text."""
    store = _device_store(memory)
    try:
        note = _find(store.notes(), note_id)
    finally:
        store.close()
    if json_output:
        typer.echo(json.dumps(note, ensure_ascii=False))
        return
    typer.echo(f"note {note['note_id']}")
    typer.echo(f"created {note['created_at']}  by {note['source_act_id'] or '-'}")
    typer.echo(note["text"])


@notes_app.command("edit")
def notes_edit(
    note_id: str = typer.Argument(..., help="The note's id (or a unique prefix)."),
    text: str = typer.Argument(..., help="The note's new text, whole."),
    memory: MemoryOption = None,
) -> None:
    """Replace a note's text (a list item's too: give the whole "<list> list: item")."""
    new = _text(text)
    store = _device_store(memory)
    try:
        note = _find(store.notes(), note_id)
        _edit(store, note["note_id"], new)
    finally:
        store.close()
    typer.echo(f"edited {note['note_id']}: {new}")


@notes_app.command("rm")
def notes_rm(
    note_id: str = typer.Argument(..., help="The note's id (or a unique prefix)."),
    memory: MemoryOption = None,
) -> None:
    """Delete a note (everywhere, once synced)."""
    store = _device_store(memory)
    try:
        note = _find(store.notes(), note_id)
        store.delete_note(note["note_id"])
    finally:
        store.close()
    typer.echo(f"removed {_line(note['note_id'], note['text'])}")


def _items(store: MemoryStore, name: str) -> tuple[str, list[dict[str, Any]]]:
    """A list's normalised name and items; a one-line failure for a list that is not there."""
    from understanding.tools.notes import all_lists, list_items, list_name

    key = list_name(name)
    if key not in {entry["name"] for entry in all_lists(store)}:
        known = ", ".join(e["name"] for e in all_lists(store)) or "none"
        raise fail(f"no list named {name!r} (lists: {known})", 2)
    return key, list_items(store, key)


def _item(store: MemoryStore, item_id: str) -> tuple[str, dict[str, Any]]:
    """The list item with this id (or prefix): its list's name and the note."""
    from understanding.tools.notes import all_lists, list_items

    items = {
        i["id"]: (entry["name"], i)
        for entry in all_lists(store)
        for i in list_items(store, entry["name"])
    }
    notes = [{"note_id": k, "text": v[1]["text"]} for k, v in items.items()]
    found = _find(notes, item_id, "list item")
    return items[found["note_id"]]


@lists_app.command("list")
def lists_list(memory: MemoryOption = None, json_output: bool = JsonOption) -> None:
    """The named lists and how many items each holds."""
    from understanding.tools.notes import all_lists

    store = _device_store(memory)
    try:
        found = all_lists(store)
    finally:
        store.close()
    for entry in found:
        typer.echo(json.dumps(entry) if json_output else f"{entry['name']}  ({entry['count']})")
    if not found and not json_output:
        typer.echo("no lists")


@lists_app.command("show")
def lists_show(
    name: str = typer.Argument(..., help='The list ("shopping", "to do").'),
    memory: MemoryOption = None,
    json_output: bool = JsonOption,
) -> None:
    """A list's items, oldest first, with their ids."""
    store = _device_store(memory)
    try:
        key, items = _items(store, name)
    finally:
        store.close()
    for item in items:
        out = json.dumps(item, ensure_ascii=False) if json_output else None
        typer.echo(out or _line(item["id"], item["text"]))
    if not items and not json_output:
        typer.echo(f"the {key} list is empty")


@lists_app.command("add")
def lists_add(
    name: str = typer.Argument(..., help="The list (created if new)."),
    item: str = typer.Argument(..., help="The item."),
    memory: MemoryOption = None,
) -> None:
    """Add an item to a list, as the add_note tool does."""
    from understanding.tools.notes import make_add

    store = _device_store(memory)
    try:
        added = make_add(store)({"text": item, "list": name})
    except ValueError as exc:
        raise fail(str(exc), 2) from None
    finally:
        store.close()
    typer.echo(f"added {added['note_id']} to the {added['list']} list: {added['text']}")


@lists_app.command("edit")
def lists_edit(
    item_id: str = typer.Argument(..., help="The item's id (or a unique prefix)."),
    text: str = typer.Argument(..., help="The item's new text (it stays on its list)."),
    memory: MemoryOption = None,
) -> None:
    """Change a list item's text."""
    new = _text(text)
    store = _device_store(memory)
    try:
        name, item = _item(store, item_id)
        _edit(store, item["id"], f"{name} list: {new}")
    finally:
        store.close()
    typer.echo(f"edited {item['id']} on the {name} list: {new}")


@lists_app.command("rm")
def lists_rm(
    item_id: str = typer.Argument(..., help="The item's id (or a unique prefix)."),
    memory: MemoryOption = None,
) -> None:
    """Take an item off its list."""
    store = _device_store(memory)
    try:
        name, item = _item(store, item_id)
        store.delete_note(item["id"])
    finally:
        store.close()
    typer.echo(f"removed {item['id']} from the {name} list: {item['text']}")
