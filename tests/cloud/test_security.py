"""TLS, per-device bearer tokens, ownership, the rate limit, against the real server."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cloud_agent.config import CloudConfig
from cloud_agent.errors import RateLimitedError
from cloud_agent.security import RateLimiter
from edge_agent.cloud_link import CloudLink, CloudRequestError
from edgeloop.transport.auth import Principal, TokenAuth
from edgeloop.transport.certs import self_signed
from edgeloop.transport.channels import channel_credentials
from edgeloop.transport.errors import UnauthenticatedError
from edgeloop.transport.metadata import RETRY_AFTER_KEY, call_metadata
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

TOKENS = {
    "alice-phone-token": {"device_id": "alice-phone", "user_id": "alice"},
    "bob-hub-token": {"device_id": "bob-hub", "user_id": "bob"},
}


@pytest.fixture
def secure_cloud(make_cloud: Any, tmp_path: Path) -> tuple[Any, Path]:
    cert, key = self_signed(tmp_path)
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": TOKENS}))
    config = CloudConfig(
        port=0, tls_cert=str(cert), tls_key=str(key), tokens_file=str(tokens), rate_per_s=0
    )
    return make_cloud(config), cert


def reason(channel: grpc.Channel, query: str, session_id: str, metadata: Any) -> list[pb.ReactStep]:
    stub = pb_grpc.CloudReasonerServiceStub(channel)
    request = pb.ReasonRequest(session_id=session_id, query=query)
    return [r.step for r in stub.Reason(request, timeout=10, metadata=metadata)]


def test_token_file_and_auth(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": TOKENS}))
    auth = TokenAuth.from_file(path)
    assert auth.principal_for("bob-hub-token") == Principal("bob-hub", "bob")
    assert auth.authenticate([("authorization", "Bearer alice-phone-token")]).user_id == "alice"
    for metadata in ([], [("authorization", "Bearer nope")], [("authorization", "Basic x")]):
        with pytest.raises(UnauthenticatedError):
            auth.authenticate(metadata)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="cannot read token file"):
        TokenAuth.from_file(tmp_path / "bad.json")


def test_open_mode_is_the_local_user() -> None:
    assert TokenAuth().authenticate([]) == Principal("local", "local")


def test_rate_limiter_refills() -> None:
    now = [0.0]
    limiter = RateLimiter(rate_per_s=2, burst=2, clock=lambda: now[0])
    limiter.acquire("d")
    limiter.acquire("d")
    with pytest.raises(RateLimitedError) as info:
        limiter.acquire("d")
    assert info.value.retry_after_s == pytest.approx(0.5)
    limiter.acquire("other-device")
    now[0] = 0.5
    limiter.acquire("d")


def test_tls_and_tokens(secure_cloud: tuple[Any, Path]) -> None:
    cloud, cert = secure_cloud
    credentials = channel_credentials(cert)
    with grpc.secure_channel(cloud.target, credentials) as channel:
        # Health answers without a token.
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as info:
            reason(channel, "weather in Paris", "s-none", metadata=[])
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        alice = call_metadata(token="alice-phone-token", device_id="alice-phone")
        steps = reason(channel, "weather in Paris and Rome", "s-alice", alice)
        assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
        bob = call_metadata(token="bob-hub-token", device_id="bob-hub")
        with pytest.raises(grpc.RpcError) as info:
            reason(channel, "weather in Paris", "s-alice", bob)  # alice's session
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_device_id_must_match_the_token(secure_cloud: tuple[Any, Path]) -> None:
    cloud, cert = secure_cloud
    with grpc.secure_channel(cloud.target, channel_credentials(cert)) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        request = pb.ReasonRequest(session_id="s", query="weather in Rome", device_id="bob-hub")
        with pytest.raises(grpc.RpcError) as info:
            list(stub.Reason(request, timeout=5, metadata=call_metadata(token="alice-phone-token")))
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_plaintext_client_cannot_talk_to_tls(secure_cloud: tuple[Any, Path]) -> None:
    cloud, _ = secure_cloud
    with grpc.insecure_channel(cloud.target) as channel, pytest.raises(grpc.RpcError) as info:
        reason(channel, "weather in Paris", "s", call_metadata(token="alice-phone-token"))
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE


def test_link_over_tls_with_token(secure_cloud: tuple[Any, Path]) -> None:
    cloud, cert = secure_cloud
    with CloudLink(
        cloud.target, token="alice-phone-token", tls_root=str(cert), device_id="alice-phone"
    ) as link:
        assert link.healthy()
        steps = list(
            link.run(
                "what time is it in Tokyo and in Paris",
                session_id=uuid.uuid4().hex,
                trace_id="t",
                run_device_tool=lambda a: a,
            )
        )
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER


def test_rate_limit_with_retry_hint(make_cloud: Any) -> None:
    cloud = make_cloud(CloudConfig(port=0, rate_per_s=0.01, rate_burst=2))
    codes = []
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        for i in range(3):
            request = pb.ReasonRequest(session_id=f"s{i}", query="weather in Rome")
            try:
                list(stub.Reason(request, timeout=5, metadata=[("x-device-id", "d1")]))
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                codes.append(error.code())
                trailers = dict(error.trailing_metadata() or ())
    assert codes == [grpc.StatusCode.OK, grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert int(trailers[RETRY_AFTER_KEY]) > 0
    with CloudLink(cloud.target, device_id="d1") as link, pytest.raises(CloudRequestError) as info:
        list(
            link.run("weather in Rome", session_id="s9", trace_id="t", run_device_tool=lambda a: a)
        )
    assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert info.value.retry_after_s and info.value.retry_after_s > 0
