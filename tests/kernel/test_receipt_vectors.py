"""The receipt's canonical encoding (docs/protocol.md, "Receipts: the canonical
encoding") against its test vectors (docs/receipt-vectors.json), in Python and, when
Node.js is present, in the stand-alone verifier tests/node/verify_receipt.mjs; and a
stored receipt keeps its timestamp's nanoseconds, without which it would not verify."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.timestamp_pb2 import Timestamp

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.executor import canonical_json
from react_kernel.receipts import build_receipt, receipt_digest, receipt_id_for, verify_receipt
from sync import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "docs" / "receipt-vectors.json"
VERIFIER = ROOT / "tests" / "node" / "verify_receipt.mjs"
CASES: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]


def _parse(data: dict[str, Any]) -> pb.DecisionReceipt:
    return json_format.ParseDict(data, pb.DecisionReceipt())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_python_computes_each_vectors_id_and_digest(case: dict[str, Any]) -> None:
    receipt = _parse(case["receipt"])
    assert json_format.MessageToDict(receipt) == case["receipt"]  # the JSON round-trips
    expected_id = hashlib.sha256(case["receipt_id_input"].encode("utf-8")).hexdigest()
    assert receipt_id_for(receipt.session_id, receipt.query, receipt.created_at) == expected_id
    assert expected_id == case["receipt_id"] == receipt.receipt_id
    without = dict(case["receipt"])
    del without["digest"]
    assert canonical_json(without) == case["canonical"]
    assert hashlib.sha256(case["canonical"].encode("utf-8")).hexdigest() == case["digest"]
    assert receipt_digest(receipt) == case["digest"] == receipt.digest


def test_the_vectors_cover_what_the_spec_names() -> None:
    spec = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert "docs/receipt-vectors.json" in spec or "receipt-vectors.json" in spec
    stamps = {c["receipt"]["createdAt"][19:] for c in CASES}
    assert {"Z", ".123Z", ".123456Z", ".123456789Z"} <= stamps
    canon = "".join(c["canonical"] for c in CASES)
    pieces = ('"value":21.0', "-0.0", "1e+16", "1.5e-07", "\\u0001", "Zürich", '"tokenUsage":{}')
    for piece in pieces:
        assert piece in canon, piece


def _steps(nanos: int) -> tuple[list[pb.ReactStep], pb.ReactStep]:
    stamp = Timestamp(seconds=1796112187, nanos=nanos)
    action = pb.ReactStep(
        session_id="s1", turn_id=1, step_index=1, step_type=pb.STEP_TYPE_ACTION, act_id="a1",
        tool="calculator",
    )  # fmt: skip
    action.arguments.update({"expression": "15% of 80"})
    observation = pb.ReactStep(
        session_id="s1", turn_id=1, step_index=2, step_type=pb.STEP_TYPE_OBSERVATION,
        act_id="a1", tool="calculator", status=pb.OBSERVATION_STATUS_OK,
    )  # fmt: skip
    observation.observation.update({"value": 12})
    final = pb.ReactStep(
        session_id="s1", turn_id=1, step_index=3, step_type=pb.STEP_TYPE_FINAL_ANSWER,
        content="12",
    )  # fmt: skip
    final.created_at.CopyFrom(stamp)
    return [action, observation, final], final


def test_a_stored_receipt_keeps_its_nanoseconds_and_verifies(tmp_path: Path) -> None:
    steps, final = _steps(123_456_789)
    receipt = build_receipt("s1", "what's 15% of 80", steps, final)
    final.receipt_id = receipt.receipt_id
    with MemoryStore(tmp_path / "m.db", node_id="dev") as store:
        store.save_steps("s1", steps)
        store.save_receipt(receipt)
        stored = store.get_receipt(receipt.receipt_id)
        kept = store.steps("s1")
    assert stored is not None
    assert stored.created_at.nanos == 123_456_789
    assert stored == receipt
    assert verify_receipt(stored, kept) == []
    # Why a replica must keep them: the same receipt cut to milliseconds fails both checks.
    cut = copy.deepcopy(stored)
    cut.created_at.nanos = 123_000_000
    problems = verify_receipt(cut, kept)
    assert any(p.startswith("digest") for p in problems)
    assert any(p.startswith("receipt_id") for p in problems)


node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def _verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(VERIFIER), *args], capture_output=True, text=True, timeout=60, check=False
    )


@node
def test_the_node_verifier_checks_every_vector() -> None:
    run = _verify(str(VECTORS))
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout) == {"checked": len(CASES), "failures": []}


@node
def test_the_node_verifier_refuses_an_edited_receipt(tmp_path: Path) -> None:
    edited = json.loads(VECTORS.read_text(encoding="utf-8"))
    edited["cases"][1]["receipt"]["answer"] += "!"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited, ensure_ascii=False), encoding="utf-8")
    run = _verify(str(path))
    assert run.returncode == 1
    failures = json.loads(run.stdout)["failures"]
    assert [f["name"] for f in failures] == [edited["cases"][1]["name"]]
    assert "digest" in failures[0]["problems"]


@node
def test_the_node_verifier_verifies_a_receipt_python_stored(tmp_path: Path) -> None:
    steps, final = _steps(987_654_321)
    receipt = build_receipt("s1", "what's 15% of 80", steps, final, model="planner")
    with MemoryStore(tmp_path / "m.db", node_id="dev") as store:
        store.save_receipt(receipt)
        record = store.get_record("receipts", receipt.receipt_id)
    assert record is not None
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(record["receipt"], ensure_ascii=False), encoding="utf-8")
    run = _verify("--receipt", str(path))
    assert run.returncode == 0, run.stdout + run.stderr
