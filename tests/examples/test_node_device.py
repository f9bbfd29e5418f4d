"""examples/node-device run as its README says, against a real cloud on 127.0.0.1: Reason,
Converse with a built-in device tool and with its own declared tool (water_plants), memory
sync between two Node replicas through the cloud, and the receipt checked in JavaScript
byte for byte as react_kernel.receipts computes it.

Skipped when Node.js or npm is not installed (the example needs both); `npm ci` runs
once in the example's folder when its node_modules is missing."""

from __future__ import annotations

import base64
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.struct_pb2 import Struct
from typer.testing import CliRunner

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.receipts import observation_sha256, receipt_digest, receipt_id_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "node-device"
VECTORS = Path(__file__).with_name("receipt_vectors.mjs")
TOKEN = "node-token"
WATERING = "water the fern with 200 ml and tell me the weather in Oslo"
pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        shutil.which("node") is None or shutil.which("npm") is None,
        reason="Node.js and npm are not installed (the Node example needs both)",
    ),
]


@pytest.fixture(scope="module")
def node_example() -> Path:
    """The example with its packages installed (`npm ci`, as the README says)."""
    if not (EXAMPLE / "node_modules").is_dir():
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=EXAMPLE, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return EXAMPLE


def _device(
    cloud: Any, state: Path, *args: str, token: str = TOKEN, code: int = 0
) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["node", "device.mjs", "--cloud", cloud.target, "--token", token,
         "--state", str(state), "--json", *args],
        cwd=EXAMPLE, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == code, done.stdout + done.stderr
    if code == 3:
        return [{"stderr": done.stderr}]
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def _steps(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [x["step"] for x in lines if "step" in x and x["step"]["step_type"] == kind]


def _verdict(lines: list[dict[str, Any]]) -> dict[str, Any]:
    verdicts = [x["verdict"] for x in lines if "verdict" in x]
    assert len(verdicts) == 1, lines
    return dict(verdicts[0])


def test_reason_streams_the_cloud_s_steps_and_checks_the_receipt_id(
    node_example: Path, served_cloud: Any, tmp_path: Path
) -> None:
    lines = _device(served_cloud, tmp_path, "reason", "what's the weather in Oslo")
    assert [s["tool"] for s in _steps(lines, "STEP_TYPE_ACTION")] == ["get_weather"]
    finals = _steps(lines, "STEP_TYPE_FINAL_ANSWER")
    assert len(finals) == 1 and "Oslo" in finals[0]["content"]
    verdict = _verdict(lines)
    assert verdict["receipt_id"] == finals[0]["receipt_id"] and verdict["checked"] == "id"
    assert verdict["problems"] == []


def test_converse_runs_a_built_in_device_tool_and_the_receipt_checks(
    node_example: Path, served_cloud: Any, tmp_path: Path
) -> None:
    lines = _device(served_cloud, tmp_path, "add oat milk to my shopping list")
    actions = [x["device_action"] for x in lines if "device_action" in x]
    assert [(a["tool"], a["arguments"]) for a in actions] == [
        ("add_note", {"text": "oat milk", "list": "shopping"})
    ]
    observed = [x["observation"] for x in lines if "observation" in x]
    assert observed[0]["status"] == "OBSERVATION_STATUS_OK"
    assert observed[0]["act_id"] == actions[0]["act_id"]
    assert _verdict(lines) == {
        "receipt_id": _steps(lines, "STEP_TYPE_FINAL_ANSWER")[0]["receipt_id"],
        "checked": "receipt",
        "problems": [],
        "evidence": ["add_note"],
    }
    notes = _device(served_cloud, tmp_path, "notes")[0]["notes"]
    assert list(notes.values()) == ["shopping list: oat milk"]


def test_a_note_travels_to_another_node_replica_through_the_cloud(
    node_example: Path, served_cloud: Any, tmp_path: Path
) -> None:
    phone, tablet = tmp_path / "phone", tmp_path / "tablet"
    note_id = _device(served_cloud, phone, "note", "repot the fern in spring")[0]["note"]
    assert _device(served_cloud, phone, "sync")[0]["sync"]["rejected"] == []
    _device(served_cloud, tablet, "sync")
    assert _device(served_cloud, tablet, "notes")[0]["notes"][note_id] == (
        "repot the fern in spring"
    )
    replicas = {json.loads((d / "replica.json").read_text())["node"] for d in (phone, tablet)}
    assert len(replicas) == 2  # each replica writes under its own node id


def test_notes_travel_between_the_node_device_and_a_python_device(
    node_example: Path, served_cloud: Any, tmp_path: Path
) -> None:
    from edge_agent.cli import app
    from sync import MemoryStore

    node_state, python_db = tmp_path / "node", tmp_path / "python.db"
    with MemoryStore(python_db) as python_device:
        python_device.add_note("written in Python")
    _device(served_cloud, node_state, "note", "written in Node.js")
    _device(served_cloud, node_state, "sync")

    def python_sync() -> None:
        args = ["sync", "--cloud", served_cloud.target, "--memory", str(python_db)]
        done = CliRunner().invoke(app, [*args, "--token", "py-token"])
        assert done.exit_code == 0, done.output

    python_sync()
    # (the user's memory in the cloud also holds the other tests' notes)
    with MemoryStore(python_db) as python_device:
        assert "written in Node.js" in {n["text"] for n in python_device.notes()}
    _device(served_cloud, node_state, "sync")
    notes = _device(served_cloud, node_state, "notes")[0]["notes"]
    assert "written in Python" in notes.values()


def test_a_wrong_token_is_one_line_and_exit_3(
    node_example: Path, served_cloud: Any, tmp_path: Path
) -> None:
    out = _device(served_cloud, tmp_path, "hello", token="not-a-token", code=3)
    assert out[0]["stderr"].strip() == "device.mjs: UNAUTHENTICATED: unknown bearer token"


def test_the_cloud_plans_the_device_s_own_tool_and_the_receipt_lists_it(
    node_example: Path, served_cloud: Any, tmp_path: Path
) -> None:
    tools = {t["name"]: t for t in _device(served_cloud, tmp_path, "tools")[0]["tools"]}
    assert tools["water_plants"]["declared"] and tools["water_plants"]["executor"] == "ORIGIN_EDGE"
    lines = _device(served_cloud, tmp_path, WATERING)
    actions = [x["device_action"] for x in lines if "device_action" in x]
    assert [(a["tool"], a["arguments"]) for a in actions] == [
        ("water_plants", {"plant": "fern", "ml": 200})
    ]
    observed = [x["observation"] for x in lines if "observation" in x]
    assert observed[0]["status"] == "OBSERVATION_STATUS_OK"
    assert not _steps(lines, "STEP_TYPE_ERROR")  # the cloud accepted the observation
    assert [s["tool"] for s in _steps(lines, "STEP_TYPE_ACTION")] == ["get_weather"]
    verdict = _verdict(lines)
    assert verdict["problems"] == []
    assert sorted(verdict["evidence"]) == ["get_weather", "water_plants"]
    garden = json.loads((tmp_path / "garden.json").read_text())
    assert garden["fern"]["last_ml"] == 200


def test_the_openai_backend_calls_the_device_s_own_tool_as_a_function(
    node_example: Path, cloud_server: Any, tmp_path: Path
) -> None:
    """The Done-when's second half: a model with function calling (a scripted
    OpenAI-compatible server on 127.0.0.1) is offered water_plants from the Node device's
    declaration and calls it; the device runs it and the receipt lists it."""
    from tests.cloud.openai_stand_in import ScriptedEndpoint, call

    offered: list[dict[str, Any]] = []

    def tools_variant(body: dict[str, Any]) -> dict[str, Any]:
        offered.extend(
            t["function"] for t in body.get("tools", []) if t["function"]["name"] == "water_plants"
        )
        weather = {"city": "oslo", "day": "today"}
        calls = [call("water_plants", {"plant": "fern", "ml": 200}), call("get_weather", weather)]
        return {"content": None, "tool_calls": calls}

    endpoint = ScriptedEndpoint()
    endpoint.script = [tools_variant, {"content": "I watered the fern. Oslo: -5°C, foggy."}]
    options = ["--backend", "openai", "--openai-base-url", endpoint.base_url]
    options += ["--openai-model", "test-model", "--openai-tools", "native"]
    try:
        with cloud_server(tmp_path, *options) as cloud:
            lines = _device(cloud, tmp_path / "device", WATERING)
    finally:
        endpoint.close()
    assert len(offered) == 1 and offered[0]["parameters"]["required"] == ["plant", "ml"]
    actions = [x["device_action"] for x in lines if "device_action" in x]
    assert [(a["tool"], a["arguments"]) for a in actions] == [
        ("water_plants", {"plant": "fern", "ml": 200})
    ]
    assert _steps(lines, "STEP_TYPE_FINAL_ANSWER")[0]["content"] == (
        "I watered the fern. Oslo: -5°C, foggy."
    )
    verdict = _verdict(lines)
    assert verdict["problems"] == [] and verdict["evidence"] == ["water_plants", "get_weather"]


# ---- the receipt's encoding, JavaScript against Python ------------------------------

AWKWARD_NUMBERS = [0.0, -0.0, 1.0, 200.0, 0.1, 0.1 + 0.2, 1e-4, 1e-5, 1.5e-7, 1e15, 1e16,
                   123456789.125, 2.0**53, 2.0**53 + 2, 1e21, 1e22, -3.25e300, 5e-324]  # fmt: skip
AWKWARD_TEXT = ["", "fern", "é", "😀", "\ue000", "a\nb", "tab\t", "\x01", '"q"', "back\\", "\u2028"]


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 2 else 4)
    if kind == 0:
        return rng.choice(AWKWARD_NUMBERS) if rng.random() < 0.6 else rng.uniform(-1e6, 1e6)
    if kind == 1:
        return rng.choice(AWKWARD_TEXT) + rng.choice(AWKWARD_TEXT)
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.randint(-(2**40), 2**40)
    if kind in (4, 5):
        return {rng.choice(AWKWARD_TEXT) + str(i): _value(rng, depth + 1) for i in range(3)}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _struct(data: dict[str, Any]) -> Struct:
    struct = Struct()
    struct.update(data)
    return struct


def _case(rng: random.Random) -> tuple[pb.DecisionReceipt, list[pb.ReactStep]]:
    text = lambda: "".join(rng.choice(AWKWARD_TEXT) for _ in range(3))  # noqa: E731
    receipt = pb.DecisionReceipt(session_id=text(), query=text(), answer=text(), model=text())
    receipt.reasoning.extend(text() for _ in range(rng.randrange(3)))
    observations = []
    for i in range(rng.randrange(4)):
        output = {f"k{i}{rng.choice(AWKWARD_TEXT)}": _value(rng) for i in range(3)}
        observations.append(pb.ReactStep(observation=_struct(output)))
        evidence = receipt.evidence.add(act_id=f"act{i}", tool=text(), output_sha256="0" * 64)
        if rng.random() < 0.8:
            evidence.arguments.CopyFrom(_struct({"x": _value(rng), "y": _value(rng)}))
    if rng.random() < 0.7:
        receipt.token_usage.prompt_tokens = rng.choice([0, 7, 2**31 - 1])
        receipt.token_usage.completion_tokens = rng.choice([0, 3])
    if rng.random() < 0.9:
        receipt.created_at.seconds = rng.randint(0, 4_000_000_000)
        receipt.created_at.nanos = rng.choice([0, 120_000_000, 123_456_000, 123_456_789, 1])
    receipt.receipt_id = "r" * 64
    receipt.digest = receipt_digest(receipt)
    return receipt, observations


def test_the_javascript_receipt_encoding_is_python_s_byte_for_byte(node_example: Path) -> None:
    rng = random.Random(27)
    cases = [_case(rng) for _ in range(300)]
    payload = [
        {
            "receipt": base64.b64encode(
                pb.ConverseResponse(receipt=receipt).SerializeToString()
            ).decode(),
            "observations": [
                base64.b64encode(pb.ConverseRequest(observation=o).SerializeToString()).decode()
                for o in observations
            ],
        }
        for receipt, observations in cases
    ]
    done = subprocess.run(
        ["node", str(VECTORS)], input=json.dumps(payload),
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    for (receipt, observations), got in zip(cases, json.loads(done.stdout), strict=True):
        assert got["digest"] == receipt.digest, receipt
        if receipt.HasField("created_at"):
            assert got["receipt_id"] == receipt_id_for(
                receipt.session_id, receipt.query, receipt.created_at
            )
        assert got["observations"] == [observation_sha256(o) for o in observations]


RECEIPT_VECTORS = ROOT / "docs" / "receipt-vectors.json"


@pytest.mark.skipif(
    not RECEIPT_VECTORS.is_file(),
    reason="docs/receipt-vectors.json comes with the receipt's canonical encoding (issue 27)",
)
def test_the_node_device_reproduces_the_documented_receipt_vectors(node_example: Path) -> None:
    from google.protobuf import json_format

    cases = json.loads(RECEIPT_VECTORS.read_text("utf-8"))["cases"]
    receipts = [json_format.ParseDict(c["receipt"], pb.DecisionReceipt()) for c in cases]
    payload = [
        {"receipt": base64.b64encode(pb.ConverseResponse(receipt=r).SerializeToString()).decode(),
         "observations": []}
        for r in receipts
    ]  # fmt: skip
    done = subprocess.run(
        ["node", str(VECTORS)], input=json.dumps(payload),
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    got = json.loads(done.stdout)
    assert [(g["receipt_id"], g["digest"]) for g in got] == [
        (c["receipt_id"], c["digest"]) for c in cases
    ]
