"""bench/soak.py fails loudly (issue 25): a run folder with a lost write, a duplicate side
effect or an unresolved pending query makes ``--check-only`` exit 1, and a write the plan
changed is told from one lost in sync."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sync.store import MemoryStore
from sync.userstores import UserStores

ROOT = Path(__file__).resolve().parents[1]


def _run_folder(
    folder: Path, device_notes: list[str], cloud_notes: list[str], acks: list[dict[str, str]]
) -> None:
    """A kept soak run of one device (alice's) and the cloud, as the soak leaves them."""
    with MemoryStore(folder / "device0.db", node_id="device0") as store:
        for text in device_notes:
            store.add_note(text)
    with UserStores(folder / "cloud-memory", node_id="cloud") as stores:
        for text in cloud_notes:
            stores("alice").add_note(text)
        stores("bob")
    lines = [{"op": "ask", "code": "OK", "session": True}, *acks]
    (folder / "device0.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _check(folder: Path) -> tuple[int, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "soak.py"), "--check-only", str(folder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    return done.returncode, json.loads(done.stdout.strip().splitlines()[-1])


def test_a_clean_run_exits_zero(tmp_path: Path) -> None:
    _run_folder(tmp_path, ["soak abc"], ["soak abc"], [{"ack": "soak abc", "via": "cloud"}])
    code, report = _check(tmp_path)
    assert (code, report["lost_writes"], report["duplicate_side_effects"]) == (0, 0, 0)


def test_a_write_the_plan_changed_fails_the_run(tmp_path: Path) -> None:
    # The cloud's plan stored "soak" where "soak ohdydzxtqd" was asked and acknowledged.
    _run_folder(tmp_path, ["soak"], ["soak"], [{"ack": "soak ohdydzxtqd", "via": "cloud"}])
    code, report = _check(tmp_path)
    assert code == 1
    assert (report["lost_by_plan"], report["lost_in_sync"]) == (1, 0)


def test_a_write_lost_in_sync_fails_the_run(tmp_path: Path) -> None:
    _run_folder(tmp_path, ["offline x"], [], [{"ack": "offline x", "via": "offline"}])
    code, report = _check(tmp_path)
    assert code == 1
    assert (report["lost_in_sync"], report["lost_by_plan"]) == (1, 0)


def test_a_duplicate_side_effect_fails_the_run(tmp_path: Path) -> None:
    _run_folder(tmp_path, ["soak a", "soak a"], ["soak a"], [{"ack": "soak a", "via": "cloud"}])
    code, report = _check(tmp_path)
    assert code == 1 and report["duplicate_side_effects"] == 1


def test_an_unresolved_pending_query_fails_the_run(tmp_path: Path) -> None:
    _run_folder(tmp_path, [], [], [])
    with MemoryStore(tmp_path / "device0.db", node_id="device0") as store:
        store.add_pending("is Tokyo warmer than Seoul today", "s1")
    code, report = _check(tmp_path)
    assert code == 1 and report["unresolved_pending"] == 1
