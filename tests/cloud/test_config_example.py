"""The literal cloud.toml of docs/operations.md parses with the real config loader, and a
cloud started from it serves a query through a keyless OpenAI-compatible server (a real
local HTTP server) without sending any Authorization header."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest

from cloud_agent.config import CloudConfig
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def _example() -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- cloud-toml-example -->\s*```toml\n(.*?)```", text, re.S)
    assert found is not None, "docs/operations.md lost its cloud.toml example"
    return found.group(1)


def test_the_documented_cloud_toml_parses_with_the_real_loader(tmp_path: Path) -> None:
    path = tmp_path / "cloud.toml"
    path.write_text(_example(), encoding="utf-8")
    config = CloudConfig.load(path)
    assert config.backends == ("openai", "planner")
    assert config.openai.model == "qwen2.5-7b-instruct"
    assert config.openai.base_url == "http://127.0.0.1:8080/v1"
    assert config.openai.api_key is None and config.openai.api_key_env == "OPENAI_API_KEY"
    assert config.memory_dir == "memory" and config.tokens_file == "tokens.json"
    # An override wins over the file, as `cloud-agent serve --port` does.
    assert CloudConfig.load(path, port=0).port == 0


class _Keyless:
    """A chat-completions server that needs no key and records the headers it gets."""

    def __init__(self) -> None:
        self.headers: list[dict[str, str]] = []
        seen = self.headers

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                seen.append(dict(self.headers))
                body = json.dumps(
                    {
                        "model": "qwen2.5-7b-instruct",
                        "choices": [
                            {"message": {"role": "assistant", "content": "Final Answer: Hello!"}}
                        ],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 3},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def keyless() -> Iterator[_Keyless]:
    server = _Keyless()
    yield server
    server.close()


def test_a_cloud_from_the_example_needs_no_api_key(
    tmp_path: Path, keyless: _Keyless, make_cloud: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "cloud.toml"
    path.write_text(_example(), encoding="utf-8")
    loaded = CloudConfig.load(path, port=0)
    config = replace(
        loaded,
        tokens_file=None,  # the example's token file is the operator's to write
        memory_dir=str(tmp_path / "memory"),
        openai=replace(loaded.openai, base_url=keyless.base_url, tools="text"),
    )
    cloud = make_cloud(config)
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        request = pb.ReasonRequest(session_id="s-keyless", query="write me a haiku about tea")
        steps = [r.step for r in stub.Reason(request, timeout=20)]
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert steps[-1].content == "Hello!"
    assert keyless.headers, "the cloud never called the model server"
    assert all("authorization" not in {k.lower() for k in h} for h in keyless.headers)
