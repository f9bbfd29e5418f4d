"""An OpenAI-compatible HTTP server stand-in on 127.0.0.1 that answers from a script of
replies, as vLLM, llama.cpp's server, Ollama and hosted APIs do, and checks what chat
templates check (two consecutive user or assistant messages: HTTP 400); with the helpers
the backend's tests share (a cloud on it, one Reason call, the step kinds)."""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc

from cloud_agent.config import CloudConfig, OpenAIConfig
from cloud_agent.openai_backend import OpenAIReasoner
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

KERNEL_TESTS = Path(__file__).resolve().parents[1] / "kernel"
CORPUS = KERNEL_TESTS / "parser_corpus.jsonl"
ALTERNATION_ERROR = "Conversation roles must alternate user/assistant/user/assistant/..."


def call(name: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
    """One entry of ``message.tool_calls`` (arguments: a JSON string, or an object)."""
    return {
        "id": call_id or f"call_{uuid.uuid4().hex[:8]}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


class ScriptedEndpoint:
    """``POST /v1/chat/completions`` answered from a list of replies, in order.

    A reply is a dict with any of: ``content`` (str or None), ``tool_calls`` (list),
    ``status`` (an error status), ``headers`` (sent with it), ``delay`` (seconds before
    answering); or a function of the request's body that returns one. Requests and their
    arrival times are recorded. With ``refuse_tools`` a request carrying ``tools`` gets the
    HTTP 400 vLLM gives without tool parsing enabled.
    """

    def __init__(self) -> None:
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        self.headers: list[dict[str, str]] = []
        self.refuse_tools = False
        self.rejections: list[str] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                endpoint.requests.append(body)
                endpoint.arrivals.append(time.monotonic())
                endpoint.headers.append(dict(self.headers))
                problem = endpoint.check(body)
                if problem is not None:
                    endpoint.rejections.append(problem)
                    self.reply(400, {"error": {"message": problem, "type": "BadRequestError"}})
                    return
                reply: Any = endpoint.script.pop(0) if endpoint.script else {"status": 500}
                if callable(reply):  # a reply made from the request (its ``tools``...)
                    reply = reply(body)
                if reply.get("delay"):
                    time.sleep(reply["delay"])
                status = int(reply.get("status", 200))
                if status != 200:
                    payload = {"error": {"message": "scripted failure"}}
                    self.reply(status, payload, dict(reply.get("headers") or {}))
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
                if reply.get("tool_calls"):
                    message["tool_calls"] = reply["tool_calls"]
                finish = "tool_calls" if reply.get("tool_calls") else "stop"
                self.reply(
                    200,
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "model": body.get("model"),
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                        "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                    },
                )

            def reply(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeouts, canceled sessions)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def check(self, body: dict[str, Any]) -> str | None:
        """What a strict chat template refuses in a request (None: nothing)."""
        if self.refuse_tools and body.get("tools"):
            return '"auto" tool choice requires --enable-auto-tool-choice to be set'
        roles = [m.get("role") for m in body.get("messages", [])]
        if roles[:1] == ["system"]:
            roles = roles[1:]
        if roles[:1] != ["user"]:
            return "the conversation must start with a user message"
        for before, after in itertools.pairwise(roles):
            if before == after and before in ("user", "assistant"):
                return ALTERNATION_ERROR
        return None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def backend(endpoint: ScriptedEndpoint, **kw: Any) -> OpenAIReasoner:
    config = OpenAIConfig(base_url=endpoint.base_url, model="test-model", **kw)
    return OpenAIReasoner(config)


def cloud_for(
    endpoint: ScriptedEndpoint,
    make_cloud: Any,
    *,
    fallback: bool = True,
    breaker_failures: int = 3,
    **openai: Any,
) -> Any:
    """A real cloud server whose first backend is the scripted endpoint."""
    settings: dict[str, Any] = {"timeout_s": 20, "deadline_margin_s": 1.0}
    settings.update(openai)
    config = CloudConfig(
        port=0,
        backends=("openai", "planner") if fallback else ("openai",),
        breaker_failures=breaker_failures,
        openai=OpenAIConfig(base_url=endpoint.base_url, model="test-model", **settings),
    )
    return make_cloud(config)


def reason(cloud: Any, query: str, deadline_s: float = 8.0) -> list[pb.ReactStep]:
    """One Reason call with the device's deadline; its steps."""
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        request = pb.ReasonRequest(session_id=uuid.uuid4().hex, query=query)
        return [r.step for r in stub.Reason(request, timeout=deadline_s)]


def kinds(steps: list[pb.ReactStep]) -> list[str]:
    return [pb.StepType.Name(s.step_type).removeprefix("STEP_TYPE_") for s in steps]


def backends_used(steps: list[pb.ReactStep]) -> set[str]:
    return {s.metadata["backend"] for s in steps if "backend" in s.metadata}


def assert_quiet_after(endpoint: ScriptedEndpoint, seconds: float = 1.5) -> None:
    """The endpoint hears nothing more once the session ended (watched for a while)."""
    heard = len(endpoint.requests)
    time.sleep(seconds)
    assert len(endpoint.requests) == heard, "the endpoint was called after the session ended"
