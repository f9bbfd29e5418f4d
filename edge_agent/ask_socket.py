"""The runtime's quick door: `edge-agent ask` over a Unix socket only its user can open.

A gRPC client costs a new process about 0.3 s (importing grpc and protobuf, and closing
the channel waits for its poller thread): more than the device takes to answer. So a
runtime also listens on a Unix socket beside its memory (``edge.db.sock``; under a fresh
0700 temporary folder when that path is too long for a socket address) and passes each
ask on to its own gRPC service over one channel it keeps open: the same lock, page
tracking, approvals and error statuses as any gRPC client, and no second way into the
agent. :mod:`edge_agent.quick_ask` is its client.

Who may ask: the socket is made 0600 before it listens, and a peer whose uid (the
kernel's SO_PEERCRED, where the platform has it) is not the runtime's is turned away;
nothing beyond this machine's user reaches it, like the loopback gRPC port it fronts.

Protocol, one JSON object a line (UTF-8):

- client: ``{"query": "..."}``;
- runtime, per step: ``{"kind": "answer", "step": "<the step, protobuf's JSON mapping>"}``
  (``kind`` as ``react_kernel.steps.STEP_KINDS`` names it; ``step`` is the line ``--json``
  prints); after a step of kind ``approval`` the client answers ``{"approved": BOOL}``;
- runtime, last: ``{"done": true}``, or ``{"error": MESSAGE, "code": "INVALID_ARGUMENT"}``
  (the gRPC status the service refused the query with).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import socketserver
import tempfile
import threading
from pathlib import Path
from typing import Any

import grpc

from edge_agent.quick_ask import peer_uid
from edge_agent.through_runtime import ask_on
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import STEP_KINDS, step_to_json

log = logging.getLogger(__name__)

SOCKET_SUFFIX = ".sock"
#: The longest socket path used beside the memory (``sun_path`` holds 104 bytes on
#: macOS, 108 on Linux, with its NUL); a longer one goes under a temporary folder.
MAX_SOCKET_PATH = 100
#: The longest request line read (a query is at most 4,000 characters).
MAX_LINE = 64 * 1024


class ClientGone(Exception):
    """The client went away while it was asked to approve."""


def socket_path(memory: Path) -> Path:
    """Where a runtime on ``memory`` opens its quick door, when the path fits."""
    return memory.with_name(memory.name + SOCKET_SUFFIX)


class _AskHandler(socketserver.StreamRequestHandler):
    """One ask over one connection, passed on to the runtime's gRPC service."""

    server: _AskServer

    def handle(self) -> None:
        try:
            query = json.loads(self.rfile.readline(MAX_LINE))["query"]
            if not isinstance(query, str):
                raise TypeError(query)
        except (ValueError, KeyError, TypeError):
            self._send({"error": 'one JSON object, {"query": ...}', "code": "INVALID_ARGUMENT"})
            return
        try:
            ask_on(self.server.channel, query, self._show, self._confirm)
        except grpc.RpcError as exc:
            code = exc.code()  # type: ignore[attr-defined]
            self._send({"error": exc.details() or code.name, "code": code.name})  # type: ignore[attr-defined]
            return
        except (ClientGone, OSError):  # it left: its call is cancelled with the stream
            return
        self._send({"done": True})

    def _send(self, message: dict[str, Any]) -> None:
        self.wfile.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
        self.wfile.flush()

    def _show(self, step: pb.ReactStep) -> None:
        self._send({"kind": STEP_KINDS.get(step.step_type, "step"), "step": step_to_json(step)})

    def _confirm(self, step: pb.ReactStep) -> bool:
        line = self.rfile.readline(MAX_LINE)
        if not line:
            raise ClientGone(step.act_id)
        try:
            return json.loads(line).get("approved") is True
        except (ValueError, AttributeError):
            return False


class _AskServer(socketserver.ThreadingUnixStreamServer):
    """Serves each connection in a thread; turns away another user's."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, path: str, channel: grpc.Channel) -> None:
        self.channel = channel
        super().__init__(path, _AskHandler, bind_and_activate=False)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        uid = peer_uid(request)
        return uid is None or uid == os.getuid()


class AskSocket:
    """A runtime's open quick door: its socket path, and :meth:`close`."""

    def __init__(self, server: _AskServer, path: Path, folder: Path | None) -> None:
        self._server = server
        self.path = path
        self._folder = folder
        self._inode = path.stat().st_ino
        self._thread = threading.Thread(target=server.serve_forever, name="ask-socket", daemon=True)
        self._thread.start()

    @classmethod
    def open(cls, memory: Path, grpc_address: str) -> AskSocket:
        """Listen beside ``memory`` and pass asks on to the service at ``grpc_address``.

        Raises:
            OSError: the socket cannot be made (the caller goes without a quick door).
        """
        path, folder = socket_path(memory), None
        if len(os.fsencode(path)) > MAX_SOCKET_PATH:
            folder = Path(tempfile.mkdtemp(prefix="edgeloop-"))  # 0700
            path = folder / "ask.sock"
        if path.is_socket():  # a runtime's that is gone (or that this one replaces)
            path.unlink()
        channel = grpc.insecure_channel(grpc_address)
        server = _AskServer(str(path), channel)
        try:
            server.server_bind()
            path.chmod(0o600)  # before it listens: no one else connects meanwhile
            server.server_activate()
        except OSError:
            server.server_close()
            channel.close()
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            raise
        return cls(server, path, folder)

    def close(self) -> None:
        """Stop listening; remove the socket (unless another runtime's replaced it)."""
        self._server.shutdown()
        self._server.server_close()
        self._server.channel.close()
        with contextlib.suppress(OSError):
            if self.path.stat().st_ino == self._inode:
                self.path.unlink()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
