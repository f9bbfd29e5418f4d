"""The call metadata of the protocol: one constant per key, and what a client sends.

Example:
    >>> call_metadata(token="t0k", device_id="phone-1", trace_id="t-1")
    [('x-device-id', 'phone-1'), ('x-trace-id', 't-1'), ('authorization', 'Bearer t0k')]
    >>> metadata_value([("X-Trace-Id", "t-1")], TRACE_ID_KEY)
    't-1'
"""

from __future__ import annotations

from collections.abc import Iterable

AUTHORIZATION_KEY = "authorization"
"""``Bearer <token>``: the device's token (absent in open localhost mode)."""
DEVICE_ID_KEY = "x-device-id"
"""The calling device's id."""
TRACE_ID_KEY = "x-trace-id"
"""One id per query, carried through the device's and the cloud's logs."""
RETRY_AFTER_KEY = "retry-after-ms"
"""Trailer of a RESOURCE_EXHAUSTED status: how long to wait before retrying."""
BEARER_SCHEME = "bearer"

Metadata = Iterable[tuple[str, str | bytes]]


def metadata_value(metadata: Metadata | None, key: str) -> str | None:
    """The first value of ``key`` (case-insensitive) in call metadata, as text."""
    for name, value in metadata or ():
        if name.lower() == key:
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return None


def call_metadata(
    *, token: str | None = None, device_id: str | None = None, trace_id: str | None = None
) -> list[tuple[str, str]]:
    """The metadata a client sends: its device id, the query's trace id, its bearer token."""
    metadata: list[tuple[str, str]] = []
    if device_id:
        metadata.append((DEVICE_ID_KEY, device_id))
    if trace_id:
        metadata.append((TRACE_ID_KEY, trace_id))
    if token:
        metadata.append((AUTHORIZATION_KEY, f"Bearer {token}"))
    return metadata


def bearer_token(metadata: Metadata | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` entry; None when absent.

    Raises:
        ValueError: the entry is there but is not ``Bearer <token>``.
    """
    header = metadata_value(metadata, AUTHORIZATION_KEY)
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != BEARER_SCHEME or not token.strip():
        raise ValueError("authorization metadata must be 'Bearer <token>'")
    return token.strip()


def retry_after_s(trailers: Metadata | None) -> float | None:
    """The server's ``retry-after-ms`` hint in seconds, or None."""
    value = metadata_value(trailers, RETRY_AFTER_KEY)
    try:
        return None if value is None else float(value) / 1000.0
    except ValueError:
        return None


def retry_after_trailer(seconds: float) -> tuple[str, str]:
    """The ``retry-after-ms`` trailer for a wait of ``seconds`` (at least 1 ms)."""
    return (RETRY_AFTER_KEY, str(max(1, round(seconds * 1000))))
