"""A Node.js device for split execution (tests/node/converse_device.mjs, written from
docs/protocol.md): ListTools tells it which tools it runs and what their observations
hold; it answers the cloud's device actions over Converse; a wrong observation is refused
naming the field; a half-close while an action waits ends the turn with an ERROR."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "node" / "converse_device.mjs"
QUERY = "turn on the light in the kitchen and tell me the time in Tokyo"
pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed"),
]


def _device(target: str, mode: str) -> list[dict[str, Any]]:
    result = subprocess.run(
        ["node", str(SCRIPT), target, QUERY, mode],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_the_node_device_runs_the_cloud_s_device_action(cloud: Any) -> None:
    lines = _device(cloud.target, "good")
    tools = dict(lines[0]["tools"])
    assert tools["device_control"] == "ORIGIN_EDGE" and tools["world_clock"] == "ORIGIN_CLOUD"
    assert [x["device_action"] for x in lines if "device_action" in x] == ["device_control"]
    steps = [x for x in lines if "step" in x]
    assert not [s for s in steps if s["step"] == "STEP_TYPE_ERROR"]
    finals = [s for s in steps if s["step"] == "STEP_TYPE_FINAL_ANSWER"]
    assert len(finals) == 1 and "on" in finals[0]["content"]
    receipt = [x for x in lines if "receipt" in x]
    assert receipt and receipt[0]["answer"] == finals[0]["content"]
    assert lines[-1] == {"status": "OK"}


def test_a_wrong_observation_is_refused_naming_the_field(cloud: Any) -> None:
    lines = _device(cloud.target, "wrong")
    refused = [
        x for x in lines if "step" in x and x["metadata"].get("observation_refused") == "true"
    ]
    assert len(refused) == 1
    assert "field 'state' must be of type string, got object" in refused[0]["content"]
    assert lines[-1] == {"status": "OK"}


def test_half_close_while_an_action_waits(cloud: Any) -> None:
    lines = _device(cloud.target, "halfclose")
    steps = [x for x in lines if "step" in x]
    assert [s["step"] for s in steps][-1] == "STEP_TYPE_ERROR"
    assert steps[-1]["stop_reason"] == "STOP_REASON_CANCELED"
    assert lines[-1]["status"] == "FAILED_PRECONDITION"
    assert "device_control" in lines[-1]["details"]
