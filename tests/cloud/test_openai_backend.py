"""The openai backend against a real local HTTP server that answers like an
OpenAI-compatible endpoint from a script of replies."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest

from cloud_agent.config import CloudConfig, OpenAIConfig
from cloud_agent.openai_backend import BackendRequestError, OpenAIReasoner
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel import ReasoningContext

KERNEL_TESTS = Path(__file__).resolve().parents[1] / "kernel"
CORPUS = KERNEL_TESTS / "parser_corpus.jsonl"


class ScriptedEndpoint:
    """``POST /v1/chat/completions`` answered from a list of replies, in order.

    A reply is a dict: ``{"content": str}`` (200 with usage), ``{"status": int}`` or
    ``{"delay": seconds, "content": str}``. Requests are recorded.
    """

    def __init__(self) -> None:
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                endpoint.requests.append(body)
                endpoint.headers.append(dict(self.headers))
                reply = endpoint.script.pop(0) if endpoint.script else {"status": 500}
                if reply.get("delay"):
                    time.sleep(reply["delay"])
                status = int(reply.get("status", 200))
                if status != 200:
                    payload = json.dumps({"error": {"message": "scripted failure"}}).encode()
                else:
                    payload = json.dumps(
                        {
                            "id": "chatcmpl-1",
                            "object": "chat.completion",
                            "model": body.get("model"),
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": reply["content"]},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {
                                "prompt_tokens": 100,
                                "completion_tokens": 20,
                                "total_tokens": 120,
                            },
                        }
                    ).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    server = ScriptedEndpoint()
    yield server
    server.close()


def backend(endpoint: ScriptedEndpoint, **kw: Any) -> OpenAIReasoner:
    config = OpenAIConfig(base_url=endpoint.base_url, model="test-model", **kw)
    return OpenAIReasoner(config)


def test_well_formed_replies_through_the_service(
    endpoint: ScriptedEndpoint, make_cloud: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    endpoint.script = [
        {"content": 'Thought: weather first\nAction: get_weather\nAction Input: {"city": "paris"}'},
        {"content": "Thought: done\nFinal Answer: It is mild in Paris."},
    ]
    config = CloudConfig(
        port=0,
        backends=("openai",),
        openai=OpenAIConfig(base_url=endpoint.base_url, model="test-model", timeout_s=5),
    )
    cloud = make_cloud(config)
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        request = pb.ReasonRequest(session_id=uuid.uuid4().hex, query="weather in Paris?")
        steps = [r.step for r in stub.Reason(request, timeout=10)]
    assert [s.step_type for s in steps] == [
        pb.STEP_TYPE_THOUGHT,
        pb.STEP_TYPE_ACTION,
        pb.STEP_TYPE_OBSERVATION,
        pb.STEP_TYPE_THOUGHT,
        pb.STEP_TYPE_FINAL_ANSWER,
    ]
    assert steps[-1].content == "It is mild in Paris."
    assert steps[1].token_usage.prompt_tokens == 100
    assert steps[-1].model == "test-model"
    # The prompt carries the tools' schemas and, on the second call, the observation.
    assert "get_weather" in endpoint.requests[0]["messages"][0]["content"]
    assert any("Observation:" in m["content"] for m in endpoint.requests[1]["messages"])
    assert endpoint.headers[0].get("Authorization") == "Bearer sk-test"


def _corpus() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def test_malformed_replies_from_the_parser_corpus(endpoint: ScriptedEndpoint) -> None:
    from cloud_agent.parse_command import load_tools

    tools = load_tools(None)  # the built-in tools, as the kernel's corpus test uses
    corpus = _corpus()
    endpoint.script = [{"content": case["reply"]} for case in corpus]
    reasoner = backend(endpoint, timeout_s=5)
    try:
        for case in corpus:
            ctx = ReasoningContext(query="q", history=[], tools=tools, session_id="s")
            steps = reasoner.next_steps(ctx)
            decisive = steps[-1]
            expected = case["expect"]["step_type"]
            assert pb.StepType.Name(decisive.step_type) == f"STEP_TYPE_{expected}", case["name"]
            if "tool" in case["expect"]:
                assert decisive.tool == case["expect"]["tool"], case["name"]
            if "content_contains" in case["expect"]:
                assert case["expect"]["content_contains"] in decisive.content, case["name"]
    finally:
        reasoner.close()


def test_tool_name_typo_is_matched(endpoint: ScriptedEndpoint) -> None:
    from cloud_agent.tools import cloud_registry

    endpoint.script = [{"content": 'Action: get_wether\nAction Input: {"city": "rome"}'}]
    reasoner = backend(endpoint)
    try:
        ctx = ReasoningContext(query="q", history=[], tools=cloud_registry(), session_id="s")
        steps = reasoner.next_steps(ctx)
    finally:
        reasoner.close()
    assert steps[-1].step_type == pb.STEP_TYPE_ACTION
    assert cloud_registry().match(steps[-1].tool) == "get_weather"


def test_http_500_is_retried_then_raises(endpoint: ScriptedEndpoint) -> None:
    from cloud_agent.tools import cloud_registry

    endpoint.script = [{"status": 500}, {"status": 500}]
    reasoner = backend(endpoint, max_retries=1)
    try:
        ctx = ReasoningContext(query="q", history=[], tools=cloud_registry(), session_id="s")
        with pytest.raises(BackendRequestError, match="HTTP 500"):
            reasoner.next_steps(ctx)
    finally:
        reasoner.close()
    assert len(endpoint.requests) == 2


def test_slow_reply_past_the_timeout(endpoint: ScriptedEndpoint) -> None:
    from cloud_agent.tools import cloud_registry

    endpoint.script = [{"delay": 1.0, "content": "Final Answer: late"}]
    reasoner = backend(endpoint, timeout_s=0.2, max_retries=0)
    try:
        ctx = ReasoningContext(query="q", history=[], tools=cloud_registry(), session_id="s")
        with pytest.raises(BackendRequestError, match="timed out"):
            reasoner.next_steps(ctx)
    finally:
        reasoner.close()


def test_failing_endpoint_falls_back_to_the_planner(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    endpoint.script = [{"status": 500}] * 10
    config = CloudConfig(
        port=0,
        backends=("openai", "planner"),
        metrics_port=0,
        breaker_failures=1,
        openai=OpenAIConfig(base_url=endpoint.base_url, model="m", max_retries=0, timeout_s=2),
    )
    cloud = make_cloud(config)
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        for i in range(2):
            request = pb.ReasonRequest(session_id=f"f{i}", query="weather in Paris and Rome")
            steps = [r.step for r in stub.Reason(request, timeout=10)]
            assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
            assert {s.metadata["backend"] for s in steps if "backend" in s.metadata} == {"planner"}
    # The breaker opened after the first failure: the endpoint was asked once only.
    assert len(endpoint.requests) == 1
    states = cloud.cloud.reasoner.breaker_states()
    assert states["backend:openai"] == "open"


def test_token_usage_lands_in_the_receipt(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    from edge_agent.cloud_link import CloudLink

    endpoint.script = [
        {"content": 'Action: world_clock\nAction Input: {"city": "tokyo"}'},
        {"content": "Final Answer: It is evening in Tokyo."},
    ]
    config = CloudConfig(
        port=0,
        backends=("openai",),
        openai=OpenAIConfig(base_url=endpoint.base_url, model="test-model", timeout_s=5),
    )
    cloud = make_cloud(config)
    with CloudLink(cloud.target, deadline_s=10) as link:
        steps = list(
            link.run("time in Tokyo?", session_id="tok", trace_id="t", run_device_tool=lambda a: a)
        )
        receipt = link.last_receipt
    assert steps[-1].content == "It is evening in Tokyo."
    assert receipt is not None
    assert receipt.token_usage.prompt_tokens == 200
    assert receipt.token_usage.completion_tokens == 40
