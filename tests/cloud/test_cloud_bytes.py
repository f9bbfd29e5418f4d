"""The cloud bounded by bytes, not by count (issue 26): session and device ids bounded
before anything keeps or logs them, the rate taken before the session map grows, log
lines a client cannot forge, and requests with negative counts refused."""

from __future__ import annotations

import logging
from typing import Any

import grpc
import pytest

from cloud_agent.handler import TraceIdFilter
from edgeloop.transport.identifiers import MAX_ID_CHARS
from edgeloop.transport.logsafe import SafeFormatter, escape
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc


def _reason(target: str, request: pb.ReasonRequest, **kw: Any) -> grpc.StatusCode:
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        try:
            list(stub.Reason(request, timeout=20, **kw))
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


@pytest.mark.parametrize(
    "session_id",
    ["x" * (MAX_ID_CHARS + 1), "s" * 3_000_000, "s1\n2026-12-02 ERROR forged", "s\x00", "a b"],
)
def test_hostile_session_ids_are_refused_before_anything_keeps_them(
    cloud: Any, session_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    request = pb.ReasonRequest(session_id=session_id, query="what is 2 + 2")
    with caplog.at_level(logging.INFO):
        code = _reason(cloud.target, request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert session_id not in cloud.cloud.handler._owners
    assert not cloud.cloud.handler._owners
    logged = "".join(record.getMessage() for record in caplog.records)
    assert len(logged) < 10_000 and "forged" not in logged and "\x00" not in logged


def test_an_ordinary_session_id_still_works(cloud: Any) -> None:
    request = pb.ReasonRequest(session_id="3f2a9c-1.turn:2", query="what is 2 + 2")
    assert _reason(cloud.target, request) == grpc.StatusCode.OK


def test_a_long_device_id_in_open_mode_is_refused(cloud: Any) -> None:
    request = pb.ReasonRequest(session_id="s1", query="what is 2 + 2")
    code = _reason(cloud.target, request, metadata=[("x-device-id", "d" * 4000)])
    assert code == grpc.StatusCode.INVALID_ARGUMENT


def test_the_rate_is_taken_before_the_session_map_grows(make_cloud: Any) -> None:
    cloud = make_cloud(rate_per_s=0.01, rate_burst=1)
    codes = [
        _reason(cloud.target, pb.ReasonRequest(session_id=f"s{n}", query="what is 2 + 2"))
        for n in range(5)
    ]
    assert codes == [grpc.StatusCode.OK] + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 4
    assert list(cloud.cloud.handler._owners) == ["s0"]


@pytest.mark.parametrize("field", ["max_steps", "turn_id"])
def test_negative_counts_are_invalid_argument(cloud: Any, field: str) -> None:
    request = pb.ReasonRequest(session_id="s1", query="what is 2 + 2", **{field: -5})
    assert _reason(cloud.target, request) == grpc.StatusCode.INVALID_ARGUMENT


# -- log lines -------------------------------------------------------------------------


def _formatted(message: str, *args: Any, exc: bool = False) -> str:
    record = logging.LogRecord("cloud", logging.INFO, __file__, 1, message, args, None)
    if exc:
        try:
            raise RuntimeError("boom\nERROR forged in an exception")
        except RuntimeError:
            import sys

            record.exc_info = sys.exc_info()
    TraceIdFilter().filter(record)
    return SafeFormatter().format(record)


@pytest.mark.parametrize(
    "value", ["s1\n2026-12-02 10:00:00 ERROR forged", "a\rb", "nul\x00", "\u2028x"]
)
def test_a_client_value_cannot_forge_a_log_line(value: str) -> None:
    line = _formatted("session %s started", value)
    assert "\n" not in line and "\r" not in line and "\x00" not in line and "\u2028" not in line
    assert line.endswith("started")


def test_a_traceback_is_indented_and_a_long_message_is_cut() -> None:
    text = _formatted("failed %s", "x" * 10_000, exc=True)
    first, *rest = text.split("\n")
    assert len(first) < 2300 and "more characters" in first
    assert rest and all(line.startswith("  | ") for line in rest)
    assert escape("a\x1bb") == "a\\x1bb"


# -- errors are said, not swallowed ----------------------------------------------------


def test_a_failing_argument_reader_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    from cloud_agent.planner.interpret import edge_arguments

    def broken(tool: str, text: str) -> dict[str, Any]:
        raise KeyError("a reader's bug")

    with caplog.at_level(logging.ERROR):
        assert edge_arguments("calculator", "2 + 2", broken) is None
    assert any("argument reader failed" in r.getMessage() for r in caplog.records)


def test_a_failing_router_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.model_split import place_with_router

    class Broken:
        def decide(self, text: str) -> Any:
            raise RuntimeError("the model's bug")

    clause = it.Clause("make it a bit warmer in here")
    with caplog.at_level(logging.ERROR):
        place_with_router(Broken(), [clause])
    assert clause.tool is None
    assert any("router failed" in r.getMessage() for r in caplog.records)
