"""Who may open the page: the same rules as the gRPC servers.

- On loopback (the default) with no token, the page is open to the local user. Even then
  it answers only requests whose ``Host`` is a loopback name, so a web site that rebinds
  its DNS name to 127.0.0.1 cannot drive the agent, and a POST from another origin is
  refused, so a page elsewhere cannot press "approve".
- Beyond loopback a bearer token is required: :meth:`UiAccess.checked` refuses to serve
  without one, and every request must carry it, as ``Authorization: Bearer <token>`` or as
  the cookie a browser gets by opening ``/?token=<token>`` once.

Example:
    >>> UiAccess.checked("127.0.0.1", None).open_mode
    True
    >>> UiAccess.checked("0.0.0.0", None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    webui.access.UiAccessError: the page on 0.0.0.0 is beyond loopback: give it a token...
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from edgeloop.transport.binding import is_loopback as is_loopback  # re-exported


class UiAccessError(ValueError):
    """The page may not be served as asked (beyond loopback without a token)."""


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "edgeloop_ui"
#: On every response: no framing (a framed page could be clicked into "approve"), no
#: sniffing, no referrer (a login link's token never leaves in one).
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
TOKEN_HELP = "--ui-token or $EDGELOOP_UI_TOKEN"
MAX_BODY_BYTES = 64 * 1024
"""The largest request body either page reads (a form is a few hundred bytes): a larger
``Content-Length`` is refused with 413 before anything is read, and a body streamed
without one is cut off at this many bytes."""
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


COOKIE_MAX_AGE_S = 12 * 3600
"""How long a login cookie is good for."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def same_origin_path(path: str, query: str = "") -> str:
    """Where a login link may send the browser: a path on this site, never another.

    ``//evil.example/`` and ``/\\evil.example`` are read by browsers as another host, so
    leading slashes and backslashes collapse into one ``/``; the path is percent-encoded,
    so no header can be split by it.

    >>> same_origin_path("//evil.example/x"), same_origin_path("/\\host", "a=1")
    ('/evil.example/x', '/host?a=1')
    """
    rest = path.lstrip("/\\")
    location = "/" + quote(rest, safe="/-._~!$&'()*+,;=:@")
    return f"{location}?{query}" if query else location


def _host_name(host_header: str) -> str:
    """The name part of a ``Host`` header (``[::1]:8080`` -> ``::1``)."""
    return urlsplit(f"//{host_header}").hostname or ""


@dataclass(frozen=True)
class UiAccess:
    """The bound address and the token the page requires (None: loopback only, open).

    The login cookie is ``<expiry>.<HMAC-SHA256(secret, expiry and the token's digest)>``
    under a secret made at start and never sent: a cookie cannot be made from the token's
    digest alone, it ends after :data:`COOKIE_MAX_AGE_S`, and a restart ends them all.
    """

    host: str
    token: str | None = None
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    @classmethod
    def checked(cls, host: str, token: str | None) -> UiAccess:
        """The access rules for ``host``; raises UiAccessError beyond loopback without a token."""
        token = token or None
        if token is None and not is_loopback(host):
            raise UiAccessError(
                f"the page on {host} is beyond loopback: give it a token ({TOKEN_HELP})"
            )
        return cls(host, token)

    @property
    def open_mode(self) -> bool:
        """True when no token is configured (only possible on loopback)."""
        return self.token is None

    def token_matches(self, presented: str | None) -> bool:
        """Constant-time check of a presented token."""
        if self.token is None or not presented:
            return False
        return hmac.compare_digest(_digest(presented), _digest(self.token))

    def _signature(self, expires: int) -> str:
        assert self.token is not None
        message = f"{expires}:{_digest(self.token)}".encode()
        return hmac.new(self.secret, message, hashlib.sha256).hexdigest()

    def cookie_matches(self, value: str | None, now: float | None = None) -> bool:
        """The browser's cookie: signed with the server's secret, and not expired."""
        if self.token is None or not value:
            return False
        expires, _, signature = value.partition(".")
        if not expires.isdigit() or len(expires) > 12:
            return False
        if int(expires) < (time.time() if now is None else now):
            return False
        return hmac.compare_digest(signature, self._signature(int(expires)))

    def cookie_value(self, now: float | None = None) -> str:
        """What the login cookie holds: its expiry and its signature."""
        expires = int(time.time() if now is None else now) + COOKIE_MAX_AGE_S
        return f"{expires}.{self._signature(expires)}"


class AccessGuard:
    """ASGI middleware enforcing :class:`UiAccess` on every HTTP request."""

    def __init__(self, app: ASGIApp, access: UiAccess) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_security_headers(send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        refusal = self._refusal(scope, headers, host) or _oversized(headers)
        if refusal is not None:
            status, text = refusal
            await _plain(send, status, text)
            return
        if not self.access.open_mode and scope["method"] == "GET":
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if "token" in query:  # the login link: keep the token in a cookie, drop it from the URL
                rest = urlencode({k: v for k, v in query.items() if k != "token"})
                secure = scope.get("scheme") == "https"
                await _login_redirect(send, same_origin_path(scope["path"], rest), self, secure)
                return
        await self.app(scope, _bounded(receive), send)

    def _refusal(self, scope: Scope, headers: dict[str, str], host: str) -> tuple[int, str] | None:
        if self.access.open_mode and not is_loopback(_host_name(host)):
            return 403, "this page answers on loopback names only (127.0.0.1, localhost)\n"
        if scope["method"] not in _SAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and urlsplit(origin).netloc != host:
                return 403, "cross-origin request refused\n"
        if self.access.open_mode:
            return None
        scheme, _, presented = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self.access.token_matches(presented.strip()):
            return None
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except CookieError:  # a malformed cookie header is no token
            return 401, "a bearer token is required\n"
        morsel = cookie.get(COOKIE)
        if morsel is not None and self.access.cookie_matches(morsel.value):
            return None
        if scope["method"] == "GET":
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if self.access.token_matches(query.get("token")):
                return None
        return 401, "a bearer token is required: open /?token=<token> once, or send Authorization\n"


def _oversized(headers: dict[str, str]) -> tuple[int, str] | None:
    """413 for a declared body past :data:`MAX_BODY_BYTES` (nothing of it is read)."""
    length = headers.get("content-length", "0").strip() or "0"
    if not length.isdigit() or len(length) > 12 or int(length) > MAX_BODY_BYTES:
        return 413, f"the request body is over {MAX_BODY_BYTES} bytes\n"
    return None


def _bounded(receive: Receive) -> Receive:
    """``receive`` that ends a body streamed past :data:`MAX_BODY_BYTES` as a disconnect
    (the app stops reading; nothing more is buffered)."""
    seen = 0

    async def receiving() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES:
                return {"type": "http.disconnect"}
        return message

    return receiving


def _with_security_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return sending


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode("utf-8")
    extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _login_redirect(send: Send, location: str, guard: AccessGuard, secure: bool) -> None:
    cookie = (
        f"{COOKIE}={guard.access.cookie_value()}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; "
        "HttpOnly; SameSite=Strict" + ("; Secure" if secure else "")
    )
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", location.encode("latin-1")),
                (b"set-cookie", cookie.encode("latin-1")),
                (b"content-length", b"0"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
