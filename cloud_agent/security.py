"""Who may call the cloud, how often, and over what: tokens, rate limits, TLS, input limits.

Plain-text localhost with no tokens is the zero-configuration default ("open mode"): every
caller is the local user. With a token file, every call but health checks and reflection
needs ``authorization: Bearer <token>`` in its metadata; the token names the device and the
user it belongs to.

Token file (JSON)::

    {"tokens": {"s3cret-token": {"device_id": "phone-1", "user_id": "alice"}}}

Example:
    >>> auth = TokenAuth({"t0k": Principal("phone-1", "alice")})
    >>> auth.principal_for("t0k")
    Principal(device_id='phone-1', user_id='alice')
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import grpc

from cloud_agent.errors import InvalidRequestError, RateLimitedError, UnauthenticatedError
from sync.auth import AUTHORIZATION_KEY, DEVICE_ID_KEY, TokenMapAuth
from sync.auth import Principal as Principal  # re-exported: the cloud uses it
from sync.errors import UnauthenticatedError as SyncUnauthenticatedError

DEFAULT_MAX_QUERY_CHARS = 4000
# Health checks and reflection answer without a token: load balancers and grpcurl need them.
PUBLIC_METHOD_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


class TokenAuth(TokenMapAuth):
    """Per-device bearer tokens: token -> Principal; no tokens at all means open mode.

    The token map is the memory sync's own (``sync.auth.TokenMapAuth``: one file format,
    digests compared in constant time); this class only translates its error into the
    cloud's, so that ``errors.status_for`` maps it like every other.
    """

    def authenticate(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Principal:
        """The caller's principal from call metadata; raises UnauthenticatedError."""
        try:
            return super().authenticate(metadata)
        except SyncUnauthenticatedError as exc:
            raise UnauthenticatedError(str(exc)) from None


class AuthInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Rejects calls without a valid token with UNAUTHENTICATED, before any servicer runs."""

    def __init__(self, auth: TokenAuth) -> None:
        self._auth = auth

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        method = handler_call_details.method or ""
        if self._auth.open_mode or method.startswith(PUBLIC_METHOD_PREFIXES):
            return await continuation(handler_call_details)
        try:
            self._auth.authenticate(handler_call_details.invocation_metadata)
        except UnauthenticatedError as exc:
            return _rejecting_handler(await continuation(handler_call_details), str(exc))
        return await continuation(handler_call_details)


def _rejecting_handler(handler: Any, message: str) -> Any:
    async def reject(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    async def reject_stream(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
        yield  # pragma: no cover - makes this an async generator

    deserializer = handler.request_deserializer if handler else None
    serializer = handler.response_serializer if handler else None
    if handler is not None and handler.response_streaming:
        if handler.request_streaming:
            return grpc.stream_stream_rpc_method_handler(reject_stream, deserializer, serializer)
        return grpc.unary_stream_rpc_method_handler(reject_stream, deserializer, serializer)
    if handler is not None and handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(reject, deserializer, serializer)
    return grpc.unary_unary_rpc_method_handler(reject, deserializer, serializer)


class RateLimiter:
    """A token bucket per device: ``rate_per_s`` sustained, ``burst`` at once.

    ``rate_per_s <= 0`` disables the limit. Thread-safe.
    """

    def __init__(
        self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate_per_s = rate_per_s
        self.burst = max(1, burst)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def acquire(self, device_id: str) -> None:
        """Take one token for ``device_id``; raise RateLimitedError with a retry hint if empty."""
        if self.rate_per_s <= 0:
            return
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(device_id, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate_per_s)
            if tokens < 1.0:
                self._buckets[device_id] = (tokens, now)
                wait = (1.0 - tokens) / self.rate_per_s
                raise RateLimitedError(
                    f"device {device_id!r} is over its rate of {self.rate_per_s:g} requests/s",
                    retry_after_s=wait,
                )
            self._buckets[device_id] = (tokens - 1.0, now)


def check_query(query: str, max_chars: int = DEFAULT_MAX_QUERY_CHARS) -> str:
    """The query, stripped; raises InvalidRequestError when empty or longer than ``max_chars``."""
    text = query.strip()
    if not text:
        raise InvalidRequestError("query must not be empty")
    if len(query) > max_chars:
        raise InvalidRequestError(f"query is {len(query)} characters; the limit is {max_chars}")
    return text


def server_credentials(cert_file: str | Path, key_file: str | Path) -> grpc.ServerCredentials:
    """TLS credentials for a server from a PEM certificate chain and private key."""
    return grpc.ssl_server_credentials(
        [(Path(key_file).read_bytes(), Path(cert_file).read_bytes())]
    )


def channel_credentials(root_cert_file: str | Path | None = None) -> grpc.ChannelCredentials:
    """TLS credentials for a client; ``root_cert_file`` trusts a private CA or self-signed cert."""
    roots = Path(root_cert_file).read_bytes() if root_cert_file else None
    return grpc.ssl_channel_credentials(root_certificates=roots)


def bearer_metadata(token: str | None, device_id: str | None = None) -> list[tuple[str, str]]:
    """The call metadata a client sends: its bearer token and device id."""
    metadata: list[tuple[str, str]] = []
    if token:
        metadata.append((AUTHORIZATION_KEY, f"Bearer {token}"))
    if device_id:
        metadata.append((DEVICE_ID_KEY, device_id))
    return metadata
