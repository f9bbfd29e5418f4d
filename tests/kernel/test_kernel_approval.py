"""Human approval: wait, approve exactly once (also across resumes), deny is seen."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kernel_helpers import Calls, FileIdempotencyStore, make_tools

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    AgentLoop,
    InMemoryIdempotencyStore,
    ReasoningContext,
    ScriptedReasoner,
    Session,
    SessionError,
    State,
    UnknownActError,
)

UNLOCK = 'Action: device_control\nAction Input: {"device": "door_lock", "action": "unlock"}'


def test_approval_request_pauses_and_approve_runs_once(make_loop: Any, calls: Calls) -> None:
    session = make_loop([UNLOCK, "Final Answer: unlocked"]).start("unlock the door")
    steps = list(session.run())
    assert [s.step_type for s in steps] == [pb.STEP_TYPE_ACTION, pb.STEP_TYPE_APPROVAL_REQUEST]
    action, request = steps
    assert action.requires_approval and request.act_id == action.act_id
    assert session.state is State.AWAITING_APPROVAL and session.pending_act_id == action.act_id
    assert calls.count("device_control") == 0
    with pytest.raises(SessionError):
        list(session.run())
    with pytest.raises(UnknownActError):
        session.approve("not-the-act")
    session.approve(action.act_id, "ok by owner")
    with pytest.raises(SessionError):
        session.approve(action.act_id)
    rest = list(session.run())
    assert (
        rest[0].step_type == pb.STEP_TYPE_OBSERVATION and rest[0].metadata["approval"] == "approved"
    )
    assert rest[-1].content == "unlocked"
    assert calls.count("device_control") == 1
    assert [a.approved for a in session.approvals] == [True]


def test_deny_is_recorded_and_shown_to_the_reasoner(make_loop: Any, calls: Calls) -> None:
    seen: list[pb.ReactStep] = []

    def after_deny(ctx: ReasoningContext) -> str:
        seen.append(ctx.history[-1])
        return "Final Answer: I did not unlock the door."

    session = make_loop([UNLOCK, after_deny]).start("unlock")
    act_id = session.run_to_end()[0].act_id
    session.deny(act_id, "not now")
    steps = list(session.run())
    assert steps[0].status == pb.OBSERVATION_STATUS_REJECTED
    assert seen[0].content == "denied by the user: not now"
    assert steps[-1].content == "I did not unlock the door." and calls.count("device_control") == 0
    assert session.approvals[0].approved is False and session.approvals[0].reason == "not now"


def test_asking_again_after_a_denial_stops_with_denied(make_loop: Any, calls: Calls) -> None:
    session = make_loop([UNLOCK, UNLOCK]).start("unlock")
    session.deny(session.run_to_end()[0].act_id)
    final = list(session.run())[-1]
    assert final.stop_reason == pb.STOP_REASON_DENIED and calls.count("device_control") == 0


def test_resume_after_approval_never_runs_twice(tools: Any, calls: Calls) -> None:
    store = InMemoryIdempotencyStore()

    def loop() -> AgentLoop:
        return AgentLoop(ScriptedReasoner([UNLOCK, "Final Answer: done"]), tools, idempotency=store)

    session = loop().start("unlock")
    act_id = session.run_to_end()[0].act_id
    session.approve(act_id)
    saved = session.to_json()  # state acting: approved, not yet run
    list(session.run())  # the first process runs it ...
    assert calls.count("device_control") == 1
    # ... and crashes before saving; another process resumes from the saved copy.
    other_loop = loop()
    assert isinstance(other_loop.reasoner, ScriptedReasoner)
    other_loop.reasoner.position = 1
    resumed = Session.from_json(saved, other_loop)
    assert resumed.state is State.ACTING
    steps = list(resumed.run())
    assert steps[0].metadata["idempotent_replay"] == "true"
    assert calls.count("device_control") == 1
    assert steps[-1].content == "done"


CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from kernel_helpers import Calls, FileIdempotencyStore, make_tools
from react_kernel import AgentLoop, ScriptedReasoner, Session
calls = Calls()
loop = AgentLoop(ScriptedReasoner(["Final Answer: unlocked"]), make_tools(calls),
                 idempotency=FileIdempotencyStore(sys.argv[2]))
session = Session.from_json(sys.stdin.read(), loop)
if session.state.value == "awaiting_approval":
    session.approve(session.pending_act_id)
steps = list(session.run())
print(json.dumps({"calls": len(calls.log), "state": session.state.value,
                  "final": steps[-1].content, "session": session.to_json()}))
"""


def test_approve_in_another_process(tmp_path: Path) -> None:
    calls = Calls()
    store_path = str(tmp_path / "idem.json")
    loop = AgentLoop(
        ScriptedReasoner([UNLOCK]), make_tools(calls), idempotency=FileIdempotencyStore(store_path)
    )
    session = loop.start("unlock the door")
    list(session.run())
    assert session.state is State.AWAITING_APPROVAL

    def child(text: str) -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(Path(__file__).parent), store_path],
            input=text,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        result: dict[str, Any] = json.loads(proc.stdout)
        return result

    first = child(session.to_json())
    assert first == first | {"calls": 1, "state": "finished", "final": "unlocked"}
    # The same approval replayed in a third process: the stored result, no second unlock.
    again = child(session.to_json())
    assert again["calls"] == 0 and again["state"] == "finished"
    resumed = json.loads(first["session"])
    assert resumed["state"] == "finished" and len(resumed["transitions"]) > 3
