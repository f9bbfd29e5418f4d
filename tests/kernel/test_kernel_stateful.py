"""A hypothesis state machine drives sessions with random events and checks invariants.

Events: run, approve, deny, provide an observation, cancel, serialise and resume, and
direct illegal transitions. Invariants: the state machine never accepts an illegal
transition, the log is complete (each entry starts where the previous one ended and the
last ends in the current state), and an approved action runs exactly once.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from kernel_helpers import Calls, make_tools

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    AgentLoop,
    GuardConfig,
    IllegalTransitionError,
    InMemoryIdempotencyStore,
    RetryPolicy,
    ScriptedReasoner,
    Session,
    SessionError,
    State,
)
from react_kernel.state import TRANSITIONS

REPLIES = [
    'Action: calculator\nAction Input: {"expression": "1+1"}',
    'Action: device_control\nAction Input: {"device": "door_lock", "action": "unlock"}',
    'Action: web_search\nAction Input: {"query": "news"}',
    'Action: add_note\nAction Input: {"text": "milk"}',
    "gibberish with no labels at all { broken",
    "Thought: only a thought",
    "Final Answer: done",
    'Action: device_control\nAction Input: {"device": "light", "action": "on"}',
]


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.calls = Calls()
        self.store = InMemoryIdempotencyStore()
        self.approved: set[str] = set()
        self.script: list[Any] = []
        self.session: Session | None = None

    def _loop(self) -> AgentLoop:
        return AgentLoop(
            ScriptedReasoner(self.script),
            make_tools(self.calls),
            idempotency=self.store,
            guards=GuardConfig(max_steps=6, max_repeats=3),
            retry=RetryPolicy(initial_s=0, jitter_s=0),
            sleep=lambda _s: None,
        )

    @rule(replies=st.lists(st.sampled_from(REPLIES), min_size=1, max_size=8))
    @precondition(lambda self: self.session is None)
    def start(self, replies: list[str]) -> None:
        self.script = list(replies)
        self.session = self._loop().start("do things")

    @rule()
    @precondition(lambda self: self.session is not None)
    def run(self) -> None:
        assert self.session is not None
        if self.session.state in (State.AWAITING_APPROVAL, State.AWAITING_OBSERVATION):
            try:
                list(self.session.run())
            except SessionError:
                return
            raise AssertionError("run() while paused must raise")
        list(self.session.run())

    @rule()
    @precondition(
        lambda self: self.session is not None and self.session.state is State.AWAITING_APPROVAL
    )
    def approve(self) -> None:
        assert self.session is not None
        act_id = self.session.pending_act_id
        assert act_id is not None
        self.session.approve(act_id)
        self.approved.add(act_id)
        try:
            self.session.approve(act_id)
        except SessionError:
            pass
        else:
            raise AssertionError("approving twice must raise")

    @rule(reason=st.text(max_size=10))
    @precondition(
        lambda self: self.session is not None and self.session.state is State.AWAITING_APPROVAL
    )
    def deny(self, reason: str) -> None:
        assert self.session is not None
        act_id = self.session.pending_act_id
        assert act_id is not None
        self.session.deny(act_id, reason)

    @rule(hits=st.integers(min_value=-3, max_value=3))
    @precondition(
        lambda self: self.session is not None and self.session.state is State.AWAITING_OBSERVATION
    )
    def provide(self, hits: int) -> None:
        assert self.session is not None
        step = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, act_id=self.session.pending_act_id)
        step.observation.update({"hits": hits})
        self.session.provide_observation(step)

    @rule()
    @precondition(lambda self: self.session is not None)
    def resume_elsewhere(self) -> None:
        assert self.session is not None
        text = self.session.to_json()
        # A new loop (a new "process") with the same durable idempotency store.
        loop = self._loop()
        assert isinstance(loop.reasoner, ScriptedReasoner)
        old = self.session.loop.reasoner
        assert isinstance(old, ScriptedReasoner)
        loop.reasoner.position = old.position
        self.session = Session.from_json(text, loop)
        assert self.session.to_json() == text or self.session.state is not None

    @rule()
    @precondition(lambda self: self.session is not None)
    def cancel(self) -> None:
        assert self.session is not None
        was_terminal = self.session.finished
        self.session.cancel("test")
        assert self.session.finished
        if not was_terminal:
            assert self.session.state is State.CANCELED

    @rule(to_state=st.sampled_from(list(State)))
    @precondition(lambda self: self.session is not None)
    def illegal_transition(self, to_state: State) -> None:
        assert self.session is not None
        sm = self.session._sm
        if to_state in TRANSITIONS[sm.state]:
            return
        before = (sm.state, len(sm.log))
        try:
            sm.transition(to_state)
        except IllegalTransitionError:
            assert (sm.state, len(sm.log)) == before
        else:
            raise AssertionError(f"{before[0]} -> {to_state} was accepted")

    @invariant()
    def log_is_complete(self) -> None:
        if self.session is None:
            return
        log = self.session.transitions
        state = State.IDLE
        for entry in log:
            assert entry.from_state is state
            assert entry.to_state in TRANSITIONS[entry.from_state]
            assert len(entry.input_sha256) == 64
            state = entry.to_state
        assert state is self.session.state

    @invariant()
    def approved_actions_run_exactly_once(self) -> None:
        if self.session is None:
            return
        for act_id in self.approved:
            observations = [
                s
                for s in self.session.steps
                if s.act_id == act_id and s.step_type == pb.STEP_TYPE_OBSERVATION
            ]
            assert len(observations) <= 1
        unlocks = [args for name, args in self.calls.log if name == "device_control"]
        assert len(unlocks) == len({tuple(sorted(a.items())) for a in unlocks})

    @invariant()
    def every_action_has_at_most_one_observation(self) -> None:
        if self.session is None:
            return
        seen: dict[str, int] = {}
        for step in self.session.steps:
            if step.step_type == pb.STEP_TYPE_OBSERVATION:
                seen[step.act_id] = seen.get(step.act_id, 0) + 1
        assert all(count == 1 for count in seen.values())


SessionMachine.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestSessionMachine = SessionMachine.TestCase
