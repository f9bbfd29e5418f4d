"""The openai backend against a real local HTTP server that answers the way vLLM,
llama.cpp's server, Ollama and hosted APIs do, from a script of replies.

The server checks what chat templates check: two consecutive user (or assistant)
messages get HTTP 400, as Mistral's and Gemma's templates answer. Every session runs
through the real gRPC service with a device deadline; each must end in the right
FINAL_ANSWER or in the planner's fallback before that deadline (the call would fail with
DEADLINE_EXCEEDED otherwise), and the endpoint must hear nothing after the session ended.
"""

from __future__ import annotations

import itertools
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
from cloud_agent.openai_backend import BackendRequestError, OpenAIReasoner, retry_after_s
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel import ReasoningContext

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


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    server = ScriptedEndpoint()
    yield server
    server.close()


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


def test_the_template_check_refuses_two_user_messages_in_a_row(
    endpoint: ScriptedEndpoint,
) -> None:
    import httpx

    body = {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    response = httpx.post(endpoint.base_url + "/chat/completions", json=body)
    assert response.status_code == 400
    assert "alternate" in response.text


# -- native tool calling ----------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments", ['{"city": "paris"}', {"city": "paris"}], ids=["string", "object"]
)
def test_native_tool_call(endpoint: ScriptedEndpoint, make_cloud: Any, arguments: Any) -> None:
    endpoint.script = [
        {"content": None, "tool_calls": [call("get_weather", arguments, "call_w1")]},
        {"content": "It is mild in Paris."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="native")
    steps = reason(cloud, "weather in Paris?")
    assert kinds(steps) == ["THOUGHT", "ACTION", "OBSERVATION", "FINAL_ANSWER"]
    action = steps[1]
    assert action.tool == "get_weather" and action.arguments["city"] == "paris"
    assert action.metadata["tool_call_id"] == "call_w1"
    assert steps[-1].content == "It is mild in Paris."
    assert backends_used(steps) == {"openai"}
    first, second = endpoint.requests
    tools = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert tools["get_weather"]["parameters"]["properties"]["city"]["type"] == "string"
    assert "stop" not in first
    assistant, tool = second["messages"][2], second["messages"][3]
    assert assistant["role"] == "assistant"
    assert assistant["tool_calls"][0]["id"] == "call_w1"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "paris"}
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_w1"
    assert "temperature" in tool["content"]
    assert endpoint.rejections == []


def test_two_calls_in_one_reply_are_two_actions(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    endpoint.script = [
        {
            "content": "Both at once.",
            "tool_calls": [
                call("get_weather", '{"city": "paris"}', "call_a"),
                call("world_clock", {"city": "tokyo"}, "call_b"),
            ],
        },
        {"content": "Mild in Paris; evening in Tokyo."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="native")
    steps = reason(cloud, "weather in Paris and the time in Tokyo")
    assert kinds(steps) == [
        "THOUGHT", "ACTION", "OBSERVATION", "ACTION", "OBSERVATION", "FINAL_ANSWER",
    ]  # fmt: skip
    actions = [s for s in steps if s.step_type == pb.STEP_TYPE_ACTION]
    assert [a.tool for a in actions] == ["get_weather", "world_clock"]
    assert actions[0].act_id != actions[1].act_id
    assert [a.metadata["tool_call_id"] for a in actions] == ["call_a", "call_b"]
    observations = [s for s in steps if s.step_type == pb.STEP_TYPE_OBSERVATION]
    assert [o.act_id for o in observations] == [a.act_id for a in actions]
    assert steps[-1].content == "Mild in Paris; evening in Tokyo."
    assert len(endpoint.requests) == 2  # the second call came from the first reply
    messages = endpoint.requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assert messages[2]["content"] == "Both at once."
    assert [m["tool_call_id"] for m in messages[3:]] == ["call_a", "call_b"]
    assert endpoint.rejections == []


def test_native_device_tool_over_converse(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    from edge_agent.cloud_link import CloudLink

    light_on = call("device_control", {"device": "light", "action": "on"}, "call_l")
    endpoint.script = [
        {"content": "", "tool_calls": [light_on]},
        {"content": "The light is on."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="native")

    def run_here(action: pb.ReactStep) -> pb.ReactStep:
        step = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION)
        step.observation.update({"device": "light", "state": "on"})
        return step

    with CloudLink(cloud.target, deadline_s=8) as link:
        steps = list(link.run("turn on the light", session_id="dev1", trace_id="t",
                              run_device_tool=run_here))  # fmt: skip
    assert steps[-1].content == "The light is on."
    tool_message = endpoint.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == "call_l"
    assert '"state": "on"' in tool_message["content"]


def test_a_question_is_not_switched_by_the_model(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    """The plan check guards the model's calls (issue 25): "is the plug on?" proposed as
    device_control(plug, on) is refused before the device runs anything, and the model
    sees the refusal as the call's tool result."""
    from edge_agent.cloud_link import CloudLink

    switch = call("device_control", {"device": "plug", "action": "on"}, "call_p")
    endpoint.script = [
        {"content": "", "tool_calls": [switch]},
        {"content": "I can't tell without reading it."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="native")
    ran: list[pb.ReactStep] = []

    def run_here(action: pb.ReactStep) -> pb.ReactStep:
        ran.append(action)
        return pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION)

    with CloudLink(cloud.target, deadline_s=8) as link:
        steps = list(link.run("is the plug on?", session_id="dev2", trace_id="t",
                              run_device_tool=run_here))  # fmt: skip
    assert ran == []
    assert steps[-1].content == "I can't tell without reading it."
    tool_message = endpoint.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_p"
    assert "was not run" in tool_message["content"]


def test_auto_mode_falls_back_to_text_once(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    endpoint.refuse_tools = True
    endpoint.script = [
        {"content": 'Thought: weather first\nAction: get_weather\nAction Input: {"city": "rome"}'},
        {"content": "Thought: done\nFinal Answer: Sunny in Rome."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="auto")
    steps = reason(cloud, "weather in Rome?")
    assert steps[-1].content == "Sunny in Rome."
    assert backends_used(steps) == {"openai"}
    # The first request carried tools and was refused; every later one is text protocol.
    assert "tools" in endpoint.requests[0]
    assert all("tools" not in r for r in endpoint.requests[1:])
    assert len(endpoint.requests) == 3
    assert "Action Input" in endpoint.requests[1]["messages"][0]["content"]


# -- the text protocol ------------------------------------------------------------------


def test_react_text_alternates_roles(
    endpoint: ScriptedEndpoint, make_cloud: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    endpoint.script = [
        {"content": 'Thought: weather first\nAction: get_weather\nAction Input: {"city": "paris"}'},
        {"content": "Thought: done\nFinal Answer: It is mild in Paris."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="text")
    steps = reason(cloud, "weather in Paris?")
    assert kinds(steps) == ["THOUGHT", "ACTION", "OBSERVATION", "THOUGHT", "FINAL_ANSWER"]
    assert steps[-1].content == "It is mild in Paris."
    assert steps[1].token_usage.prompt_tokens == 100
    assert steps[-1].model == "test-model"
    assert "get_weather" in endpoint.requests[0]["messages"][0]["content"]
    roles = [m["role"] for m in endpoint.requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assistant = endpoint.requests[1]["messages"][2]["content"]
    assert assistant.startswith("Thought: weather first") and "Action: get_weather" in assistant
    assert endpoint.headers[0].get("Authorization") == "Bearer sk-test"
    assert endpoint.rejections == []


def test_fenced_json_reply(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    fenced = '```json\n{"action": "world_clock", "action_input": {"city": "tokyo"}}\n```'
    endpoint.script = [
        {"content": fenced},
        {"content": '```json\n{"final_answer": "It is evening in Tokyo."}\n```'},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="text")
    steps = reason(cloud, "time in Tokyo?")
    assert steps[1].tool == "world_clock"
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert steps[-1].content == "It is evening in Tokyo."
    assert endpoint.rejections == []


def test_parse_errors_keep_roles_alternating(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    endpoint.script = [
        {"content": "Thought: I will look it up"},  # no Action: an ERROR step follows
        {"content": "Action: get_weather\nAction Input: {bad json"},
        {"content": "Final Answer: Mild."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="text")
    steps = reason(cloud, "weather in Paris?")
    assert steps[-1].content == "Mild."
    assert endpoint.rejections == []


# -- failures: each ends in the planner's answer, within the device's deadline ----------


def test_429_with_retry_after_is_honoured(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    endpoint.script = [
        {"status": 429, "headers": {"Retry-After": "1"}},
        {"content": "Final Answer: Done after waiting."},
    ]
    cloud = cloud_for(endpoint, make_cloud, tools="text")
    steps = reason(cloud, "hello there, who are you?")
    assert steps[-1].content == "Done after waiting."
    assert len(endpoint.requests) == 2
    assert endpoint.arrivals[1] - endpoint.arrivals[0] >= 0.95  # the server's wish, kept


def test_429_with_retry_after_past_the_budget_falls_back(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    endpoint.script = [{"status": 429, "headers": {"Retry-After": "120"}}]
    cloud = cloud_for(endpoint, make_cloud)
    steps = reason(cloud, "weather in Paris and Rome", deadline_s=6)
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert "planner" in backends_used(steps)
    assert len(endpoint.requests) == 1  # no retry that could not be kept
    assert_quiet_after(endpoint)


def test_500s_fall_back_to_the_planner(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    endpoint.script = [{"status": 500}] * 10
    cloud = cloud_for(endpoint, make_cloud, breaker_failures=1, max_retries=1)
    for _ in range(2):
        steps = reason(cloud, "weather in Paris and Rome")
        assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
        assert backends_used(steps) == {"planner"}
    # One failed step (a try and a retry) opened the breaker: nothing more was asked.
    assert len(endpoint.requests) == 2
    assert cloud.cloud.reasoner.breaker_states()["backend:openai"] == "open"


def test_empty_reply_counts_as_a_failure(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    endpoint.script = [{"content": None}, {"content": ""}]
    cloud = cloud_for(endpoint, make_cloud, breaker_failures=2)
    steps = reason(cloud, "weather in Paris and Rome")
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert "planner" in backends_used(steps)
    assert not any("empty" in s.content for s in steps)
    assert cloud.cloud.reasoner.breakers["openai"].failures >= 1


def test_slow_reply_falls_back_within_the_deadline(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    endpoint.script = [{"delay": 30, "content": "Final Answer: far too late"}]
    cloud = cloud_for(endpoint, make_cloud, timeout_s=30, deadline_margin_s=1.5)
    # The device gives the whole session 4 s: the call is cut at 2.5 s, the planner answers.
    steps = reason(cloud, "weather in Paris and Rome", deadline_s=4)
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert "far too late" not in steps[-1].content
    assert "planner" in backends_used(steps)
    assert len(endpoint.requests) == 1
    assert_quiet_after(endpoint)


def test_no_call_after_the_device_gives_up(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    endpoint.script = [{"delay": 30, "content": "Final Answer: too late"}] * 5
    cloud = cloud_for(
        endpoint, make_cloud, fallback=False, timeout_s=30, max_retries=3, deadline_margin_s=0
    )
    with pytest.raises(grpc.RpcError) as caught:
        reason(cloud, "weather in Paris?", deadline_s=1.5)
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert_quiet_after(endpoint, 2.5)
    assert len(endpoint.requests) == 1


# -- the backend alone ------------------------------------------------------------------


def _corpus() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def test_malformed_replies_from_the_parser_corpus(endpoint: ScriptedEndpoint) -> None:
    from cloud_agent.parse_command import load_tools

    tools = load_tools(None)  # the built-in tools, as the kernel's corpus test uses
    corpus = _corpus()
    endpoint.script = [{"content": case["reply"]} for case in corpus]
    reasoner = backend(endpoint, timeout_s=30, tools="text")  # a loaded machine is slow
    try:
        for case in corpus:
            ctx = ReasoningContext(query="q", history=[], tools=tools, session_id="s")
            try:
                steps = reasoner.next_steps(ctx)
            except BackendRequestError:  # an empty reply is the backend's failure, not a step
                assert "empty" in case["expect"].get("content_contains", ""), case["name"]
                continue
            decisive = steps[-1]
            expected = case["expect"]["step_type"]
            refused = decisive.metadata.get("refused_tool")
            if refused and expected == "ACTION":
                # Parsed right; the plan check refused a side effect the query "q" never
                # asked for (issue 25): the refusal names the tool the parser read.
                assert refused == case["expect"].get("tool", refused), case["name"]
                continue
            assert pb.StepType.Name(decisive.step_type) == f"STEP_TYPE_{expected}", case["name"]
            if "tool" in case["expect"]:
                assert decisive.tool == case["expect"]["tool"], case["name"]
            if "content_contains" in case["expect"]:
                assert case["expect"]["content_contains"] in decisive.content, case["name"]
    finally:
        reasoner.close()


def test_a_server_that_is_not_there_is_retried_and_named() -> None:
    """No connection (nothing listens at the base URL, as in the README's line with no
    server at :8000): the error names the connection and the retries, in every tool mode
    (``auto`` read the missing response and failed with an UnboundLocalError)."""
    import socket

    from cloud_agent.tools import cloud_registry

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    for mode in ("auto", "native", "text"):
        config = OpenAIConfig(
            base_url=f"http://127.0.0.1:{port}/v1", model="m", tools=mode, max_retries=1
        )
        reasoner = OpenAIReasoner(config)
        try:
            ctx = ReasoningContext(query="q", history=[], tools=cloud_registry(), session_id="s")
            with pytest.raises(BackendRequestError, match=r"ConnectError.*after 2 attempts"):
                reasoner.next_steps(ctx)
        finally:
            reasoner.close()


def test_tool_name_typo_is_matched(endpoint: ScriptedEndpoint) -> None:
    from cloud_agent.tools import cloud_registry

    endpoint.script = [{"content": None, "tool_calls": [call("get_wether", {"city": "rome"})]}]
    reasoner = backend(endpoint)
    try:
        ctx = ReasoningContext(query="q", history=[], tools=cloud_registry(), session_id="s")
        steps = reasoner.next_steps(ctx)
    finally:
        reasoner.close()
    assert steps[-1].step_type == pb.STEP_TYPE_ACTION
    assert steps[-1].tool == "get_weather"


def test_queued_calls_are_dropped_once_another_backend_acted(
    endpoint: ScriptedEndpoint,
) -> None:
    from cloud_agent.tools import cloud_registry

    endpoint.script = [
        {
            "content": None,
            "tool_calls": [
                call("get_weather", {"city": "paris"}, "c1"),
                call("world_clock", {"city": "tokyo"}, "c2"),
            ],
        },
        {"content": "Final Answer: done"},
    ]
    reasoner = backend(endpoint, tools="native")
    history: list[pb.ReactStep] = []
    try:
        ctx = ReasoningContext(query="q", history=history, tools=cloud_registry(), session_id="s")
        thought, first = reasoner.next_steps(ctx)
        history += [thought, first]
        # The planner served the next step (the openai breaker was open): a plain ACTION.
        planner = pb.ReactStep(step_type=pb.STEP_TYPE_ACTION, tool="calculator", act_id="a9")
        history.append(planner)
        steps = reasoner.next_steps(ctx)
    finally:
        reasoner.close()
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER  # asked again, not "c2" replayed
    assert len(endpoint.requests) == 2
    roles = [(m["role"], m.get("tool_call_id")) for m in endpoint.requests[1]["messages"]]
    # Every call of the reply is answered (c2: not run), then the planner's own call.
    assert roles[2:] == [("assistant", None), ("tool", "c2"), ("assistant", None)]
    assert endpoint.rejections == []


def test_retry_after_header_forms() -> None:
    assert retry_after_s("3") == 3.0
    assert retry_after_s(None) is None
    assert retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past
    assert retry_after_s("soon") is None


def test_token_usage_lands_in_the_receipt(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    from edge_agent.cloud_link import CloudLink

    endpoint.script = [
        {"content": None, "tool_calls": [call("world_clock", '{"city": "tokyo"}')]},
        {"content": "It is evening in Tokyo."},
    ]
    cloud = cloud_for(endpoint, make_cloud, fallback=False)
    with CloudLink(cloud.target, deadline_s=10) as link:
        steps = list(
            link.run("time in Tokyo?", session_id="tok", trace_id="t", run_device_tool=lambda a: a)
        )
        receipt = link.last_receipt
    assert steps[-1].content == "It is evening in Tokyo."
    assert receipt is not None
    assert receipt.token_usage.prompt_tokens == 200
    assert receipt.token_usage.completion_tokens == 40


def test_stopping_the_server_closes_the_backends_it_built(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    """The HTTP client and its event loop go with the server, not with the garbage collector."""
    cloud = cloud_for(endpoint, make_cloud)
    backend = cloud.cloud.reasoner.backends[0]
    assert not backend._client.is_closed
    cloud.stop()
    assert backend._client.is_closed
