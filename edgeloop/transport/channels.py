"""TLS credentials and client channels: plaintext on localhost, TLS when given a root.

Example:
    >>> channel = client_channel("127.0.0.1:50051")
    >>> channel.close()
"""

from __future__ import annotations

from pathlib import Path

import grpc

from edgeloop.transport.options import CLIENT_OPTIONS


def server_credentials(cert_file: str | Path, key_file: str | Path) -> grpc.ServerCredentials:
    """TLS credentials for a server from a PEM certificate chain and private key."""
    return grpc.ssl_server_credentials(
        [(Path(key_file).read_bytes(), Path(cert_file).read_bytes())]
    )


def channel_credentials(root_cert_file: str | Path | None = None) -> grpc.ChannelCredentials:
    """TLS credentials for a client; ``root_cert_file`` trusts a private CA or self-signed cert."""
    roots = Path(root_cert_file).read_bytes() if root_cert_file else None
    return grpc.ssl_channel_credentials(root_certificates=roots)


def client_channel(
    target: str,
    *,
    tls_root: str | Path | None = None,
    use_tls: bool = False,
    options: list[tuple[str, int]] = CLIENT_OPTIONS,
) -> grpc.Channel:
    """A blocking channel to ``target``: TLS when given the PEM of a CA or self-signed
    certificate to trust (or ``use_tls``: the system's roots), plaintext otherwise.

    Raises:
        OSError: ``tls_root`` cannot be read.
    """
    if tls_root or use_tls:
        return grpc.secure_channel(target, channel_credentials(tls_root), options=options)
    return grpc.insecure_channel(target, options=options)
