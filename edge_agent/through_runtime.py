"""`edge-agent ask` through a running device runtime (``edge-agent run``/``serve``).

The runtime has the model loaded and the memory open, so a query costs one gRPC call
instead of a process's imports and a model load. The output is the same as a cold ask's
(the answer; every step with ``--verbose``; one JSON step a line with ``--json``); an
approval request is asked at the terminal and answered with the Approve RPC.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import grpc

from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

#: How long to wait for the runtime's first answer to the connection.
CONNECT_S = 2.0


class RuntimeGone(Exception):
    """The runtime did not answer: ask cold instead."""


def ask_through(
    address: str,
    query: str,
    show: Callable[[pb.ReactStep], None],
    confirm: Callable[[pb.ReactStep], bool],
) -> list[pb.ReactStep]:
    """Ask ``query`` through the runtime at ``address``; ``show`` each step, ``confirm``
    each approval request. Returns every step.

    Raises:
        RuntimeGone: nothing answers at ``address`` (before any step was shown).
        grpc.RpcError: the runtime refused the query.
    """
    with grpc.insecure_channel(address) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=CONNECT_S)
        except grpc.FutureTimeoutError:
            raise RuntimeGone(address) from None
        return ask_on(channel, query, show, confirm)


def ask_on(
    channel: grpc.Channel,
    query: str,
    show: Callable[[pb.ReactStep], None],
    confirm: Callable[[pb.ReactStep], bool],
) -> list[pb.ReactStep]:
    """:func:`ask_through` on an open channel (the runtime's quick door keeps one open).

    Raises:
        grpc.RpcError: the runtime refused the query.
    """
    stub = pb_grpc.EdgeAgentServiceStub(channel)
    seen: list[pb.ReactStep] = []
    steps: Iterable[pb.ReactStep] = (
        r.step for r in stub.Ask(pb.AskRequest(query=query), wait_for_ready=False)
    )
    while True:
        waiting: pb.ApproveRequest | None = None
        for step in steps:
            seen.append(step)
            show(step)
            if step.step_type != pb.STEP_TYPE_APPROVAL_REQUEST:
                continue
            answer = pb.ApproveRequest(
                session_id=step.session_id, act_id=step.act_id, approved=confirm(step)
            )
            answer.reason = "approved at the terminal" if answer.approved else "not approved"
            if step.metadata.get("via") == "cloud":  # the Ask stream waits for it
                stub.Approve(answer)
            else:
                waiting = answer
        if waiting is None:
            return seen
        steps = list(stub.Approve(waiting).steps)
