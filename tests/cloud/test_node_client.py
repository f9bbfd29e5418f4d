"""A Node.js client (tests/node/reason_client.mjs, loading agent.proto at run time with
proto-loader) drives ``Reason`` on the real reasoner."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

NODE_DIR = Path(__file__).resolve().parents[1] / "node"


@pytest.mark.node
def test_node_client_drives_the_planner(cloud: Any) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the cross-language test needs Node.js")
    # Missing Node packages are a set-up error (`python3.11 dev.py setup` installs them),
    # not a reason to skip: the test fails and says so.
    assert (NODE_DIR / "node_modules" / "@grpc" / "proto-loader").exists(), (
        "tests/node/node_modules missing: run `python3.11 dev.py setup`"
    )
    result = subprocess.run(
        [
            "node",
            str(NODE_DIR / "reason_client.mjs"),
            cloud.target,
            "is Tokyo warmer than Seoul today?",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    steps = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [s["tool"] for s in steps if s["stepType"] == "STEP_TYPE_ACTION"] == [
        "get_weather",
        "get_weather",
    ]
    assert steps[-1]["stepType"] == "STEP_TYPE_FINAL_ANSWER"
    assert {s["traceId"] for s in steps} == {steps[0]["traceId"]}
    assert steps[0]["traceId"].startswith("node-trace-")
    assert {s["origin"] for s in steps} == {"ORIGIN_CLOUD"}
