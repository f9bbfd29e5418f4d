"""examples/go-client built as its README says (`make`: protoc generates the Go code from
proto/, Go builds it in GOPATH mode against Debian's packages, offline) and run against a
real cloud on 127.0.0.1: health, ListTools, Reason and Converse.

Skipped when the Go toolchain, protoc or Debian's Go gRPC packages are not installed
(`.ci/run` installs them)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "go-client"
GOCODE = Path("/usr/share/gocode/src")
MISSING = [
    name
    for name, present in [
        ("go", shutil.which("go")),
        ("make", shutil.which("make")),
        ("protoc", shutil.which("protoc")),
        ("protoc-gen-go", shutil.which("protoc-gen-go")),
        ("protoc-gen-go-grpc", shutil.which("protoc-gen-go-grpc")),
        ("golang-google-grpc-dev", (GOCODE / "google.golang.org/grpc").is_dir()),
        ("libprotobuf-dev", Path("/usr/include/google/protobuf/struct.proto").is_file()),
    ]
    if not present
]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"the Go example needs Debian's {', '.join(MISSING)} (see its README)"
)
TOKEN = "go-token"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make` with the build folder in a temporary directory: generate, then build."""
    build = tmp_path_factory.mktemp("go") / "build"
    done = subprocess.run(
        ["make", f"BUILD={build}"], cwd=EXAMPLE,
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    generated = build / "gopath/src/github.com/edgeloop/edgeloop/gen/go/edgeloop/v1"
    assert sorted(p.name for p in generated.iterdir()) == ["agent.pb.go", "agent_grpc.pb.go"]
    return build / "edgeloop-client"


def _run(
    client: Path, cloud: Any, *args: str, token: str = TOKEN, code: int = 0
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(client), "-cloud", cloud.target, "-token", token, "-device-id", "go-client",
         "-json", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == code, done.stdout + done.stderr
    return done


def _lines(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_health_says_serving(client: Path, served_cloud: Any) -> None:
    lines = _lines(_run(client, served_cloud, "health"))
    assert [x["health"]["status"] for x in lines] == ["SERVING", "SERVING"]


def test_list_tools_names_each_tool_s_executor(client: Path, served_cloud: Any) -> None:
    lines = _lines(_run(client, served_cloud, "tools"))
    tools = {x["tool"]["name"]: x["tool"]["executor"] for x in lines}
    assert tools["get_weather"] == "ORIGIN_CLOUD" and tools["device_control"] == "ORIGIN_EDGE"


def test_reason_streams_steps_to_a_final_answer(client: Path, served_cloud: Any) -> None:
    done = _run(client, served_cloud, "reason", "what time is it in Tokyo")
    steps = [x["step"] for x in _lines(done)]
    assert [s.get("tool") for s in steps if s["stepType"] == "STEP_TYPE_ACTION"] == ["world_clock"]
    assert steps[-1]["stepType"] == "STEP_TYPE_FINAL_ANSWER" and "Tokyo" in steps[-1]["content"]
    assert len(steps[-1]["receiptId"]) == 64


def test_converse_runs_the_device_action_and_gets_the_receipt(
    client: Path, served_cloud: Any
) -> None:
    query = "turn on the light in the kitchen and tell me the time in Tokyo"
    lines = _lines(_run(client, served_cloud, "converse", query))
    actions = [x["device_action"] for x in lines if "device_action" in x]
    assert [(a["tool"], a["arguments"]) for a in actions] == [
        ("device_control", {"action": "on", "device": "light", "room": "kitchen"})
    ]
    steps = [x["step"] for x in lines if "step" in x]
    assert not [s for s in steps if s["stepType"] == "STEP_TYPE_ERROR"]
    final = steps[-1]
    assert final["stepType"] == "STEP_TYPE_FINAL_ANSWER" and "on" in final["content"]
    receipt = lines[-1]["receipt"]
    assert receipt["receiptId"] == final["receiptId"]
    assert sorted(e["tool"] for e in receipt["evidence"]) == ["device_control", "world_clock"]


def test_a_wrong_token_is_one_line_and_exit_3(client: Path, served_cloud: Any) -> None:
    done = _run(client, served_cloud, "reason", "hi", token="not-a-token", code=3)
    assert done.stderr.strip() == "edgeloop-client: Unauthenticated: unknown bearer token"
