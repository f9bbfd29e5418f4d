"""The cloud as an attacker, a careless client and a new user find it (issue 14): refused
beyond loopback without tokens, one port per server, bad bytes and silent or greedy
streams ended with the right code and one log line, rate limits no header can dodge, and
Sync buffers bounded."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from typer.testing import CliRunner

from cloud_agent.cli import app as cloud_app
from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer
from edge_agent.cli import app as edge_app
from edgeloop.transport.binding import ExposureError
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

TOKEN = "phone-token"
CONVERSE = "/edgeloop.v1.CloudReasonerService/Converse"
SYNC = "/edgeloop.v1.MemorySyncService/Sync"


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field, written by hand (the library refuses bad input)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _raw_call(target: str, method: str, messages: list[bytes], timeout: float = 10) -> Any:
    with grpc.insecure_channel(target) as channel:
        call = channel.stream_stream(method, lambda b: b, lambda b: b)
        with pytest.raises(grpc.RpcError) as ended:
            list(call(iter(messages), timeout=timeout))
    return ended.value


@pytest.fixture(autouse=True)
def _root_log_handlers() -> Iterator[None]:
    """`cloud-agent serve` adds a stderr handler to the root logger; CliRunner's stderr
    closes when the call returns, so the handler goes with it."""
    before = list(logging.getLogger().handlers)
    yield
    logging.getLogger().handlers[:] = before


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": {TOKEN: {"device_id": "phone", "user_id": "alice"}}}))
    return path


# -- exposure and ports ---------------------------------------------------------------


def test_beyond_loopback_without_tokens_is_refused_unless_insecure(tokens: Path) -> None:
    with pytest.raises(ExposureError, match="without tokens"):
        CloudServer(CloudConfig(host="0.0.0.0", port=0)).exposure_warnings()
    result = CliRunner().invoke(cloud_app, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--insecure" in lines[0], result.output
    loud = CloudServer(CloudConfig(host="0.0.0.0", port=0, insecure=True)).exposure_warnings()
    assert loud and loud[0].startswith("WARNING") and "WITHOUT tokens" in loud[0]
    plain = CloudServer(CloudConfig(host="0.0.0.0", port=0, tokens_file=str(tokens)))
    assert "without TLS" in plain.exposure_warnings()[0]
    with pytest.raises(ExposureError, match="metrics"):
        CloudServer(
            CloudConfig(metrics_port=0, metrics_host="0.0.0.0", tokens_file=str(tokens))
        ).exposure_warnings()
    edge = CliRunner().invoke(edge_app, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert edge.exit_code == 1 and "without tokens" in edge.output


def test_a_busy_port_is_one_line(make_cloud: Any, tmp_path: Path) -> None:
    cloud = make_cloud()
    result = CliRunner().invoke(cloud_app, ["serve", "--port", str(cloud.port)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "already in use" in lines[0], result.output
    edge = CliRunner().invoke(
        edge_app, ["serve", "--port", str(cloud.port), "--memory", str(tmp_path / "m.db")]
    )
    assert edge.exit_code == 1 and "already in use" in edge.output.strip().splitlines()[-1]


# -- bad bytes ------------------------------------------------------------------------


def _nested_struct_observation(depth: int) -> bytes:
    """A Converse observation whose arguments Struct nests ``depth`` levels."""
    value = _field(3, b"x")  # Value.string_value
    for _ in range(depth):
        entry = _field(1, b"k") + _field(2, value)  # Struct.FieldsEntry
        value = _field(5, _field(1, entry))  # Value.struct_value
    struct = _field(1, _field(1, b"k") + _field(2, value))
    step = _field(8, struct)  # ReactStep.arguments
    return _field(2, step)  # ConverseRequest.observation


@pytest.mark.parametrize(
    ("name", "messages"),
    [
        ("invalid utf-8", [_field(1, _field(1, b"s1") + _field(2, b"Paris \xff\xfe"))]),
        ("nested 1000 deep", [_nested_struct_observation(1000)]),
        ("truncated", [_field(1, _field(2, b"weather in Paris"))[:-3]]),
    ],
)
def test_undecodable_requests_are_invalid_argument_with_one_log_line(
    cloud: Any, caplog: pytest.LogCaptureFixture, name: str, messages: list[bytes]
) -> None:
    caplog.set_level(logging.INFO)
    error = _raw_call(cloud.target, CONVERSE, messages)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (name, error.details())
    refusals = [r for r in caplog.records if "undecodable" in r.getMessage()]
    assert len(refusals) == 1
    assert not any(r.exc_info for r in caplog.records)


def test_a_struct_nested_deep_in_the_start_history_is_invalid(cloud: Any) -> None:
    history = _field(4, _field(8, _field(1, _field(1, b"k") + _field(2, _field(3, b"x")))))
    deep = _nested_struct_observation(1000)[2:]  # a ReactStep, nested 1000 deep
    start = _field(1, _field(1, b"s1") + _field(2, b"weather in Paris") + history + deep)
    error = _raw_call(cloud.target, CONVERSE, [start])
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    "query", ["Paris\0\0 and Berlin", "x" * 5000, "what is " + "very " * 20_000 + "big"]
)
def test_nul_bytes_and_long_queries_are_invalid_argument(cloud: Any, query: str) -> None:
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        start = pb.ConverseRequest(start=pb.ReasonRequest(session_id="s", query=query))
        with pytest.raises(grpc.RpcError) as refused:
            list(stub.Converse(iter([start]), timeout=10))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


# -- silent and greedy streams --------------------------------------------------------


class _Silent:
    """A request iterator that sends ``first`` messages and then nothing until closed."""

    def __init__(self, first: list[Any]) -> None:
        self.first = list(first)
        self.closed = False

    def __iter__(self) -> Iterator[Any]:
        yield from self.first
        while not self.closed:
            time.sleep(0.05)


def test_a_silent_stream_ends_with_deadline_exceeded(make_cloud: Any, tmp_path: Path) -> None:
    cloud = make_cloud(stream_idle_s=0.5, memory_dir=str(tmp_path / "cloud"))
    with grpc.insecure_channel(cloud.target) as channel:
        silent = _Silent([])
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        with pytest.raises(grpc.RpcError) as ended:
            list(stub.Converse(iter(silent), timeout=20))
        silent.closed = True
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        hello = pb.SyncRequest(hello=pb.SyncHello(device_id="phone"))
        silent = _Silent([hello])
        sync = pb_grpc.MemorySyncServiceStub(channel)
        with pytest.raises(grpc.RpcError) as ended:
            list(sync.Sync(iter(silent), timeout=20))
        silent.closed = True
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    _wait_until(lambda: cloud.cloud.guard.calls.in_flight() == 0)
    assert cloud.cloud.guard.calls.in_flight() == 0


def _wait_until(condition: Any, limit_s: float = 10.0) -> None:
    """Wait for the server's side of a call to finish (it may end just after the client's)."""
    deadline = time.monotonic() + limit_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)


def test_one_peer_holds_a_bounded_number_of_streams(make_cloud: Any) -> None:
    cloud = make_cloud(stream_idle_s=10, max_calls_per_peer=2)
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        silent = [_Silent([]) for _ in range(2)]
        held = [stub.Converse(iter(s), timeout=20) for s in silent]
        _wait_until(lambda: cloud.cloud.guard.calls.in_flight() >= 2)
        with pytest.raises(grpc.RpcError) as refused:
            list(stub.Converse(iter([]), timeout=10))
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        for call, s in zip(held, silent, strict=True):
            call.cancel()
            s.closed = True


# -- rate limits ----------------------------------------------------------------------


def test_rotating_device_ids_do_not_dodge_the_rate(make_cloud: Any) -> None:
    cloud = make_cloud(rate_per_s=0.01, rate_burst=1)
    codes = []
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        for n in range(3):
            start = pb.ConverseRequest(
                start=pb.ReasonRequest(session_id=f"s{n}", query="weather in Paris")
            )
            try:
                list(stub.Converse(iter([start]), timeout=10, metadata=[("x-device-id", f"d{n}")]))
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                codes.append(error.code())
    assert codes == [grpc.StatusCode.OK] + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2


def test_sync_is_rate_limited_too(make_cloud: Any, tokens: Path, tmp_path: Path) -> None:
    from edgeloop.transport.channels import client_channel
    from sync.client import sync_with
    from sync.store import MemoryStore

    cloud = make_cloud(
        rate_per_s=0.01, rate_burst=1, tokens_file=str(tokens), memory_dir=str(tmp_path / "c")
    )
    with MemoryStore(tmp_path / "phone.db") as store:
        store.add_note("x")
        channel = client_channel(cloud.target)
        try:
            sync_with(channel, store, TOKEN, device_id="")
            with pytest.raises(grpc.RpcError) as limited:
                sync_with(channel, store, TOKEN, device_id="")
        finally:
            channel.close()
    assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


# -- Sync buffers ---------------------------------------------------------------------


def _sync_messages(chunks: list[pb.UpdateChunk]) -> list[bytes]:
    hello = pb.SyncRequest(hello=pb.SyncHello(device_id="phone"))
    from sync.store import MemoryStore

    with MemoryStore(":memory:", node_id="phone") as store:
        store.add_note("a note the cloud lacks")
        state = store.state_vector()
    vector = pb.SyncRequest(state_vector=pb.StateVector(vector=state))
    updates = [pb.SyncRequest(update=c) for c in chunks]
    return [m.SerializeToString() for m in (hello, vector, *updates)]


def test_an_oversized_total_is_refused_at_its_first_chunk(make_cloud: Any, tmp_path: Path) -> None:
    cloud = make_cloud(memory_dir=str(tmp_path / "cloud"), stream_idle_s=5)
    chunk = pb.UpdateChunk(update_id="u", index=0, total=10**9, data=b"x" * 1000, sha256="0" * 64)
    error = _raw_call(cloud.target, SYNC, _sync_messages([chunk]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "chunks" in error.details()
    _wait_until(lambda: cloud.cloud.sync.budget.held == 0)
    assert cloud.cloud.sync.budget.held == 0


def test_streams_share_a_bounded_buffer_and_free_it(make_cloud: Any, tmp_path: Path) -> None:
    cloud = make_cloud(
        memory_dir=str(tmp_path / "cloud"), sync_update_mb=1, sync_budget_mb=1, stream_idle_s=5
    )
    data = b"y" * (512 * 1024)
    digest = hashlib.sha256(data * 3).hexdigest()
    chunks = [
        pb.UpdateChunk(update_id="u", index=i, total=3, data=data, sha256=digest) for i in range(3)
    ]
    error = _raw_call(cloud.target, SYNC, _sync_messages(chunks))
    assert error.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED)
    _wait_until(lambda: cloud.cloud.sync.budget.held == 0)
    assert cloud.cloud.sync.budget.held == 0
    assert cloud.cloud.sync.budget.peak <= 1024 * 1024


def test_a_missing_tls_file_is_one_line(tmp_path: Path) -> None:
    missing = str(tmp_path / "server.pem")
    result = CliRunner().invoke(
        cloud_app, ["serve", "--port", "0", "--tls-cert", missing, "--tls-key", missing]
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "TLS" in lines[0] and missing in lines[0], result.output


def test_serve_help_shows_the_defaults() -> None:
    """The help's "[default: ...]" was read as rich markup and vanished ("Address to
    bind ."); escaped, `cloud-agent serve --help` shows each default (README QA)."""
    result = CliRunner().invoke(cloud_app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for default in ("127.0.0.1", "50051", "auto", "1000", "256", "600", "model"):
        assert f"[default: {default}]" in result.output
    assert "bind ." not in result.output
