"""The edge keeps the cloud's receipts in its memory; `edge-agent receipt` shows a
session's receipt and verifies it (a real cloud on 127.0.0.1, the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from typer.testing import CliRunner

from edge_agent.cli import app
from edgeloop.v1 import agent_pb2 as pb
from sync import MemoryStore

CLOUD_QUERY = "turn on the light in the kitchen and tell me the time in Tokyo"


def _ask(target: str, memory: Path, query: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(
        app, ["ask", query, "--cloud", target, "--memory", str(memory), "--json"]
    )
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]


def _receipt(memory: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["receipt", *args, "--memory", str(memory), "--verify", "--json"]
    )


def test_the_cloud_receipt_is_kept_and_verifies(cloud: Any, tmp_path: Path) -> None:
    memory = tmp_path / "device.db"
    steps = _ask(cloud.target, memory, CLOUD_QUERY)
    final = steps[-1]
    assert final["stepType"] == "STEP_TYPE_FINAL_ANSWER"
    assert any(s.get("origin") == "ORIGIN_CLOUD" for s in steps)
    session_id = final["sessionId"]
    with MemoryStore(memory) as store:
        kept = store.get_receipt(final["receiptId"])
    assert kept is not None and kept.answer == final["content"]
    assert any(e.tool == "device_control" for e in kept.evidence)

    result = _receipt(memory, session_id)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["verified"] is True and report["problems"] == []
    assert report["receipt"]["receiptId"] == final["receiptId"]
    # The latest session is the default.
    assert json.loads(_receipt(memory).stdout)["session_id"] == session_id


def test_a_changed_answer_fails_verification(cloud: Any, tmp_path: Path) -> None:
    memory = tmp_path / "device.db"
    final = _ask(cloud.target, memory, CLOUD_QUERY)[-1]
    with MemoryStore(memory) as store:
        steps = store.steps(final["sessionId"])
        for step in steps:
            if step.step_type == pb.STEP_TYPE_FINAL_ANSWER:  # edited after the fact
                step.content = "The light is off and it is noon in Tokyo."
        store.save_steps(final["sessionId"], steps)
    result = _receipt(memory, final["sessionId"])
    assert result.exit_code == 1
    assert "answer" in result.stderr
    assert json.loads(result.stdout)["verified"] is False


def test_a_device_session_receipt_verifies(tmp_path: Path) -> None:
    memory = tmp_path / "device.db"
    result = CliRunner().invoke(app, ["ask", "what is 12 * 7", "--memory", str(memory), "--json"])
    assert result.exit_code == 0, result.output
    final = json.loads(result.output.splitlines()[-1])
    receipt = _receipt(memory, final["sessionId"])
    assert receipt.exit_code == 0, receipt.stderr
    report = json.loads(receipt.stdout)
    assert report["verified"] is True
    message = json_format.ParseDict(report["receipt"], pb.DecisionReceipt())
    assert message.answer == final["content"]


def test_unknown_session_is_one_line_and_exit_1(tmp_path: Path) -> None:
    memory = tmp_path / "device.db"
    MemoryStore(memory).close()
    result = CliRunner().invoke(app, ["receipt", "nope", "--memory", str(memory)])
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("error: no session 'nope'")
