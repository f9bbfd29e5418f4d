"""Channel and server options every side of the project uses (docs/operations.md).

Example:
    >>> dict(SERVER_OPTIONS)["grpc.max_receive_message_length"] == MAX_MESSAGE_BYTES
    True
"""

from __future__ import annotations

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
# Clients may ping every 20 s even without calls in flight; the server's default policy
# (5 min, no pings without calls) answers such clients with ENHANCE_YOUR_CALM.
SERVER_OPTIONS: list[tuple[str, int]] = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # A second server on a port in use must fail, not share it (gRPC's default is 1).
    ("grpc.so_reuseport", 0),
]
CLIENT_OPTIONS: list[tuple[str, int]] = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]
