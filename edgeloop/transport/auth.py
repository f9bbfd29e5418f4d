"""Who is calling: bearer tokens per device, one user per token, and their enforcement.

Plain-text localhost with no tokens is the zero-configuration default ("open mode"):
every caller is the ``local`` user. With a token file, every call but health checks and
reflection needs ``authorization: Bearer <token>``; the token names the device and the
user it belongs to. The cloud and the memory sync use the same tokens and the same
errors (:class:`~edgeloop.transport.errors.UnauthenticatedError`).

Token file (JSON)::

    {"tokens": {"s3cret-token": {"device_id": "phone-1", "user_id": "alice"}}}

Example:
    >>> auth = TokenAuth({"t0k": Principal("phone-1", "alice")})
    >>> auth.authenticate([("authorization", "Bearer t0k")])
    Principal(device_id='phone-1', user_id='alice')
"""

from __future__ import annotations

import hashlib
import json
import stat
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self

import grpc

from edgeloop.transport.errors import UnauthenticatedError
from edgeloop.transport.metadata import DEVICE_ID_KEY, Metadata, bearer_token, metadata_value

LOCAL_USER = "local"
# Health checks and reflection answer without a token: load balancers and grpcurl need them.
PUBLIC_METHOD_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


class PrincipalLike(Protocol):
    """Anything with a device id and a user id."""

    @property
    def device_id(self) -> str: ...

    @property
    def user_id(self) -> str: ...


@dataclass(frozen=True)
class Principal:
    """An authenticated device and the user who owns it."""

    device_id: str
    user_id: str


Authorize = Callable[[Any], PrincipalLike]
"""``authorize(grpc context) -> principal``; raises to refuse the call."""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def _loose_mode(path: str | Path) -> int:
    """The permission bits of ``path`` (0 when it cannot be read: reading reports that)."""
    try:
        return stat.S_IMODE(Path(path).stat().st_mode)
    except OSError:
        return 0


class TokenAuth:
    """Bearer tokens -> principals (only SHA-256 digests kept, looked up by digest);
    no tokens at all means open mode."""

    def __init__(self, tokens: Mapping[str, Principal] | None = None) -> None:
        self._by_digest = {_digest(t): who for t, who in (tokens or {}).items()}
        #: What :meth:`from_file` found wrong but not fatal (a file others may read).
        self.warnings: list[str] = []

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """Load ``{"tokens": {"<token>": {"device_id": ..., "user_id": ...}}}``.

        As ssh does with a private key, a file that others may write is refused (anyone on
        the host could add a token); one that others may read loads with a warning in
        :attr:`warnings` (the server logs it at start).

        Raises:
            ValueError: the file cannot be read, does not have that shape, or others may
                write it.
        """
        loose = _loose_mode(path)
        if loose & 0o022:
            raise ValueError(
                f"refusing token file {path}: others may write it (mode {loose:04o}); "
                f"chmod 600 {path}"
            )
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            tokens = {
                str(t): Principal(str(w["device_id"]), str(w["user_id"]))
                for t, w in data["tokens"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"cannot read token file {path}: {exc}") from exc
        auth = cls(tokens)
        if loose & 0o044:
            auth.warnings.append(
                f"token file {path} is readable by others (mode {loose:04o}): chmod 600 {path}"
            )
        return auth

    @property
    def open_mode(self) -> bool:
        """True when no tokens are configured."""
        return not self._by_digest

    def authenticate(self, metadata: Metadata | None) -> Principal:
        """The caller's principal from call metadata; UnauthenticatedError without a
        known bearer token."""
        if self.open_mode:
            return Principal(metadata_value(metadata, DEVICE_ID_KEY) or LOCAL_USER, LOCAL_USER)
        try:
            token = bearer_token(metadata)
        except ValueError as exc:
            raise UnauthenticatedError(str(exc)) from None
        if token is None:
            raise UnauthenticatedError("missing bearer token (authorization metadata)")
        found = self.principal_for(token)
        if found is None:
            raise UnauthenticatedError("unknown bearer token")
        return found

    def principal_for(self, token: str) -> Principal | None:
        """The principal a token belongs to, or None for an unknown token."""
        # A dict lookup keyed by the SHA-256 digest: what a timing difference could tell
        # is about the digest, which an attacker cannot steer towards a real token, so
        # the lookup stays O(1) with 100,000 tokens instead of comparing against each.
        return self._by_digest.get(_digest(token))

    def authorize(self, context: Any) -> Principal:
        """The ``authorize(context)`` callable servicers take."""
        return self.authenticate(context.invocation_metadata())

    __call__ = authorize


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
