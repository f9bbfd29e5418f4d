"""The shared transport: metadata keys, bearer tokens, the one status table, and a real
server that enforces tokens with the interceptor."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import given
from hypothesis import strategies as st

from edgeloop.transport import errors
from edgeloop.transport.auth import AuthInterceptor, Principal, TokenAuth
from edgeloop.transport.channels import client_channel
from edgeloop.transport.loop import EventLoopThread
from edgeloop.transport.metadata import (
    AUTHORIZATION_KEY,
    RETRY_AFTER_KEY,
    bearer_token,
    call_metadata,
    metadata_value,
    retry_after_s,
    retry_after_trailer,
)
from edgeloop.transport.options import SERVER_OPTIONS
from edgeloop.transport.services import add_common_services, service_full_name
from edgeloop.transport.status import STATUS_TABLE, status_for
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

TOKEN_TEXT = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=40)


@given(TOKEN_TEXT, TOKEN_TEXT)
def test_a_bearer_token_round_trips_through_the_metadata(token: str, device: str) -> None:
    metadata = call_metadata(token=token, device_id=device)
    assert bearer_token(metadata) == token
    assert metadata_value(metadata, "x-device-id") == device


@pytest.mark.parametrize("header", ["Basic abc", "Bearer", "Bearer   ", "token"])
def test_a_malformed_authorization_is_refused(header: str) -> None:
    with pytest.raises(ValueError, match="Bearer <token>"):
        bearer_token([(AUTHORIZATION_KEY, header)])


def test_no_authorization_is_no_token() -> None:
    assert bearer_token([("x-device-id", "d")]) is None


@given(st.floats(min_value=0.0, max_value=3600.0))
def test_the_retry_hint_round_trips_in_milliseconds(seconds: float) -> None:
    hint = retry_after_s([retry_after_trailer(seconds)])
    assert hint is not None
    assert hint == pytest.approx(max(0.001, seconds), abs=0.001)


def test_a_garbled_retry_hint_is_ignored() -> None:
    assert retry_after_s([(RETRY_AFTER_KEY, "soon")]) is None
    assert retry_after_s(None) is None


@pytest.mark.parametrize(("kind", "code"), STATUS_TABLE)
def test_every_kind_has_its_status(kind: type[BaseException], code: grpc.StatusCode) -> None:
    error = kind("x", retry_after_s=1.0) if kind is errors.ResourceExhaustedError else kind("x")
    mapping = status_for(error)
    assert (mapping.code, mapping.message) == (code, "x")


def test_extra_rows_come_first_and_bugs_stay_private() -> None:
    extra = ((KeyError, grpc.StatusCode.NOT_FOUND),)
    assert status_for(KeyError("k"), extra=extra).code == grpc.StatusCode.NOT_FOUND
    internal = status_for(KeyError("secret"))
    assert internal.code == grpc.StatusCode.INTERNAL
    assert "secret" not in internal.message
    assert status_for(TimeoutError()).code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_an_empty_message_says_what_the_error_is() -> None:
    assert status_for(errors.UnauthenticatedError()).message.startswith("No bearer token")


def test_token_file_and_open_mode(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": {"t0k": {"device_id": "d1", "user_id": "alice"}}}))
    auth = TokenAuth.from_file(path)
    assert not auth.open_mode
    assert auth.authenticate(call_metadata(token="t0k")) == Principal("d1", "alice")
    for metadata in ([], call_metadata(token="nope"), [(AUTHORIZATION_KEY, "Basic x")]):
        with pytest.raises(errors.UnauthenticatedError):
            auth.authenticate(metadata)
    assert TokenAuth().authenticate(call_metadata(device_id="d2")) == Principal("d2", "local")
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(ValueError, match="cannot read token file"):
        TokenAuth.from_file(tmp_path / "bad.json")


class _Echo(pb_grpc.EdgeAgentServiceServicer):
    async def GetSession(
        self, request: pb.GetSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetSessionResponse:
        return pb.GetSessionResponse(session_id=request.session_id)


def test_the_interceptor_lets_only_health_through_without_a_token() -> None:
    loop = EventLoopThread()
    auth = TokenAuth({"t0k": Principal("d1", "alice")})

    async def start() -> tuple[grpc.aio.Server, int]:
        server = grpc.aio.server(options=SERVER_OPTIONS, interceptors=[AuthInterceptor(auth)])
        pb_grpc.add_EdgeAgentServiceServicer_to_server(_Echo(), server)
        add_common_services(server, [service_full_name("EdgeAgentService")])
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port

    server, port = loop.run(start())
    try:
        with client_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            stub = pb_grpc.EdgeAgentServiceStub(channel)
            request = pb.GetSessionRequest(session_id="s1")
            with pytest.raises(grpc.RpcError) as info:
                stub.GetSession(request, timeout=5)
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
            answer = stub.GetSession(request, timeout=5, metadata=call_metadata(token="t0k"))
            assert answer.session_id == "s1"
    finally:
        loop.run(server.stop(None))
        loop.close()
