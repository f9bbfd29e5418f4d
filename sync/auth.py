"""Who may sync which memory: bearer tokens per device, one user per token.

The servicer takes any ``authorize(context) -> Principal`` callable (the cloud passes
``cloud_agent.security.TokenAuth.authorize``); :class:`TokenMapAuth` is the small
stand-alone one used by the stand-alone sync server and the tests. With no tokens
configured it runs in open localhost mode: every caller is the ``local`` user.

Example:
    >>> auth = TokenMapAuth({"t0k": Principal("phone-1", "alice")})
    >>> auth.authenticate([("authorization", "Bearer t0k")])
    Principal(device_id='phone-1', user_id='alice')
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self

from sync.errors import UnauthenticatedError

AUTHORIZATION_KEY = "authorization"
DEVICE_ID_KEY = "x-device-id"
LOCAL_USER = "local"


class PrincipalLike(Protocol):
    """Anything with a device id and a user id (ours or the cloud's Principal)."""

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


def _metadata_value(metadata: Iterable[tuple[str, str | bytes]] | None, key: str) -> str | None:
    for name, value in metadata or ():
        if name.lower() == key:
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class TokenMapAuth:
    """Bearer tokens -> principals (only digests kept, compared in constant time)."""

    def __init__(self, tokens: Mapping[str, Principal] | None = None) -> None:
        self._by_digest = {_digest(t): who for t, who in (tokens or {}).items()}

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """Load ``{"tokens": {"<token>": {"device_id": ..., "user_id": ...}}}``."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            tokens = {
                str(t): Principal(str(w["device_id"]), str(w["user_id"]))
                for t, w in data["tokens"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"cannot read token file {path}: {exc}") from exc
        return cls(tokens)

    @property
    def open_mode(self) -> bool:
        """True when no tokens are configured."""
        return not self._by_digest

    def authenticate(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Principal:
        """The caller's principal; UnauthenticatedError without a known bearer token."""
        if self.open_mode:
            return Principal(_metadata_value(metadata, DEVICE_ID_KEY) or LOCAL_USER, LOCAL_USER)
        header = _metadata_value(metadata, AUTHORIZATION_KEY)
        if not header:
            raise UnauthenticatedError("missing bearer token (authorization metadata)")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise UnauthenticatedError("authorization metadata must be 'Bearer <token>'")
        found = self.principal_for(token.strip())
        if found is None:
            raise UnauthenticatedError("unknown bearer token")
        return found

    def principal_for(self, token: str) -> Principal | None:
        """The principal a token belongs to, or None for an unknown token."""
        wanted = _digest(token)
        found = None
        for digest, who in self._by_digest.items():  # every digest: constant time
            if hmac.compare_digest(digest, wanted):
                found = who
        return found

    def authorize(self, context: Any) -> Principal:
        """The ``authorize(context)`` callable the servicer takes."""
        return self.authenticate(context.invocation_metadata())

    __call__ = authorize
