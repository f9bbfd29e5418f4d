"""Where a server may listen: loopback by default, beyond it only when callers must prove
who they are (or the operator says ``--insecure``), and never on a port another server
holds.

A server beyond loopback with no tokens serves anyone who can reach it (an anonymous
peer could read and write every user's memory); metrics have no tokens at all. So
:func:`check_exposure` refuses both unless told ``insecure``, and then returns the loud
warning to print. gRPC sets ``SO_REUSEPORT`` by default, which lets a second server bind a
port in use and take half its calls: the servers turn it off (``grpc.so_reuseport`` 0 in
``SERVER_OPTIONS``), and :func:`ensure_port_free` turns a busy port into one clear error
before gRPC logs its own.

Example:
    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    >>> check_exposure("127.0.0.1", authenticated=False, insecure=False, what="the cloud")
    []
"""

from __future__ import annotations

import errno
import ipaddress
import socket

from edgeloop.transport.errors import ExposureError as ExposureError  # re-exported


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (``0.0.0.0`` and names are not)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_exposure(
    host: str, *, authenticated: bool, insecure: bool, what: str, tls: bool = True
) -> list[str]:
    """Refuse (ExposureError) to serve ``what`` beyond loopback without tokens unless
    ``insecure``; return the warnings to print (insecure exposure, tokens in plaintext)."""
    if is_loopback(host):
        return []
    if not authenticated:
        if not insecure:
            raise ExposureError(
                f"refusing to serve {what} on {host} without tokens: anyone who can reach it "
                "could use it (give --tokens, bind 127.0.0.1, or pass --insecure)"
            )
        return [
            f"WARNING: {what} is served on {host} WITHOUT tokens (--insecure): anyone who can "
            "reach this address can use it"
        ]
    if not tls:
        return [
            f"WARNING: {what} is served on {host} with tokens but without TLS: tokens and "
            "memory cross the network in plaintext (give --tls-cert and --tls-key)"
        ]
    return []


MAX_PORT = 65535


def check_port(port: int, what: str = "port") -> int:
    """``port`` when it is 0..65535; ValueError (one line) otherwise. (A larger number
    was wrapped by getaddrinfo into another port, or overflowed in bind with a traceback.)"""
    if not 0 <= port <= MAX_PORT:
        raise ValueError(f"{what} {port} is out of range (0 to {MAX_PORT}; 0 picks a free one)")
    return port


def ensure_port_free(host: str, port: int) -> None:
    """Raise OSError (one line) when another process listens on ``host:port``, or the
    port is out of range."""
    try:
        check_port(port)
    except ValueError as exc:
        raise OSError(str(exc)) from None
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    address = host.strip("[]") or ("::" if family == socket.AF_INET6 else "0.0.0.0")
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
        try:
            probe.bind((address, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise OSError(f"port {port} on {host} is already in use") from None
            if exc.errno != errno.EADDRNOTAVAIL and exc.errno != errno.EAFNOSUPPORT:
                raise OSError(f"cannot bind {host}:{port}: {exc.strerror}") from None
