"""What a server refuses before any servicer runs: requests it cannot decode, more calls
than a peer may hold at once, and clients that go silent.

:class:`CallGuard` is a server interceptor for the project's own services (health and
reflection pass untouched):

- a request that does not decode (invalid UTF-8 in a string, Structs nested past the
  parser's limit, a truncated message) ends its call with INVALID_ARGUMENT and one log
  line, instead of gRPC's UNKNOWN and a traceback per message;
- a peer (its address, not anything the client says about itself) holds at most
  ``max_calls_per_peer`` calls at once; one more is RESOURCE_EXHAUSTED with a retry hint;
- a streaming call whose server waits for the client's next message longer than
  ``idle_timeout_s`` ends with DEADLINE_EXCEEDED (the servicer sees
  :class:`~edgeloop.transport.errors.DeadlineExceededError` and maps it like any other).

Example:
    >>> peer_host("ipv4:10.1.2.3:53210"), peer_host("ipv6:[::1]:4000"), peer_host("unix:/s")
    ('10.1.2.3', '::1', 'unix:/s')
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from edgeloop.transport.errors import DeadlineExceededError, InvalidArgumentError
from edgeloop.transport.metadata import retry_after_trailer

log = logging.getLogger(__name__)

GUARDED_PREFIX = "/edgeloop."
DEFAULT_MAX_CALLS_PER_PEER = 128
DEFAULT_IDLE_TIMEOUT_S = 30.0


def peer_host(peer: str) -> str:
    """The address part of a gRPC peer string (``ipv4:1.2.3.4:5678`` -> ``1.2.3.4``)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return peer


class Undecodable:
    """Stands in for a request message that did not decode (the servicer never sees it)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _safe(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None

    def run(data: bytes) -> Any:
        try:
            return deserialize(data)
        except Exception as exc:  # DecodeError, RecursionError: the bytes are the caller's
            return Undecodable(str(exc) or type(exc).__name__)

    return run


class PeerCalls:
    """Counts the calls in flight per peer address. Thread-safe."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._calls: dict[str, int] = {}
        self._lock = threading.Lock()

    def enter(self, host: str) -> bool:
        """Count one more call for ``host``; False (and nothing counted) over the limit."""
        with self._lock:
            current = self._calls.get(host, 0)
            if self.limit > 0 and current >= self.limit:
                return False
            self._calls[host] = current + 1
            return True

    def leave(self, host: str) -> None:
        with self._lock:
            current = self._calls.get(host, 0) - 1
            if current > 0:
                self._calls[host] = current
            else:
                self._calls.pop(host, None)

    def in_flight(self) -> int:
        """Calls in flight, all peers together."""
        with self._lock:
            return sum(self._calls.values())


class CallGuard(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Decoding, per-peer call limits and idle timeouts for the project's services."""

    def __init__(
        self,
        *,
        max_calls_per_peer: int = DEFAULT_MAX_CALLS_PER_PEER,
        idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    ) -> None:
        self.calls = PeerCalls(max_calls_per_peer)
        self.idle_timeout_s = idle_timeout_s

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method or ""
        if handler is None or not method.startswith(GUARDED_PREFIX):
            return handler
        return self._wrap(handler, method)

    def _wrap(self, handler: Any, method: str) -> Any:
        deserialize = _safe(handler.request_deserializer)
        serialize = handler.response_serializer
        if handler.request_streaming and handler.response_streaming:
            inner_ss = handler.stream_stream

            async def stream_stream(requests: Any, context: Any) -> AsyncIterator[Any]:
                host = await self._enter(context, method)
                try:
                    async for response in inner_ss(self._requests(requests, method), context):
                        yield response
                finally:
                    self.calls.leave(host)

            return grpc.stream_stream_rpc_method_handler(stream_stream, deserialize, serialize)
        if handler.request_streaming:
            inner_su = handler.stream_unary

            async def stream_unary(requests: Any, context: Any) -> Any:
                host = await self._enter(context, method)
                try:
                    return await inner_su(self._requests(requests, method), context)
                finally:
                    self.calls.leave(host)

            return grpc.stream_unary_rpc_method_handler(stream_unary, deserialize, serialize)
        if handler.response_streaming:
            inner_us = handler.unary_stream

            async def unary_stream(request: Any, context: Any) -> AsyncIterator[Any]:
                await self._check(request, context, method)
                host = await self._enter(context, method)
                try:
                    async for response in inner_us(request, context):
                        yield response
                finally:
                    self.calls.leave(host)

            return grpc.unary_stream_rpc_method_handler(unary_stream, deserialize, serialize)
        inner_uu = handler.unary_unary

        async def unary_unary(request: Any, context: Any) -> Any:
            await self._check(request, context, method)
            host = await self._enter(context, method)
            try:
                return await inner_uu(request, context)
            finally:
                self.calls.leave(host)

        return grpc.unary_unary_rpc_method_handler(unary_unary, deserialize, serialize)

    async def _enter(self, context: Any, method: str) -> str:
        host = peer_host(context.peer() or "")
        if not self.calls.enter(host):
            log.warning("refused %s from %s: %d calls in flight", method, host, self.calls.limit)
            context.set_trailing_metadata((retry_after_trailer(1.0),))
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"at most {self.calls.limit} calls at once from one address",
            )
        return host

    @staticmethod
    async def _check(request: Any, context: Any, method: str) -> None:
        if isinstance(request, Undecodable):
            log.warning("refused an undecodable %s request: %s", method, request.reason)
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, f"the request does not decode: {request.reason}"
            )

    async def _requests(self, requests: Any, method: str) -> AsyncIterator[Any]:
        """The client's messages, each within ``idle_timeout_s`` of the server asking."""
        incoming = aiter(requests)
        while True:
            try:
                message = await asyncio.wait_for(anext(incoming), self.idle_timeout_s)
            except StopAsyncIteration:
                return
            except TimeoutError:
                log.warning(
                    "ended %s: the client sent nothing for %gs", method, self.idle_timeout_s
                )
                raise DeadlineExceededError(
                    f"the client sent no message for {self.idle_timeout_s:g} s"
                ) from None
            if isinstance(message, Undecodable):
                log.warning("refused an undecodable %s message: %s", method, message.reason)
                raise InvalidArgumentError(f"a message does not decode: {message.reason}")
            yield message
