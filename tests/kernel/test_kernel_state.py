"""The state machine: allowed transitions, illegal ones raise, the log is complete."""

from __future__ import annotations

import pytest

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import IllegalTransitionError, State
from react_kernel.state import TERMINAL_STATES, TRANSITIONS, StateMachine, input_sha256


def test_happy_path_is_logged_with_hashes() -> None:
    sm = StateMachine()
    path = [State.REASONING, State.ACTING, State.OBSERVING, State.REASONING, State.FINISHED]
    for i, state in enumerate(path):
        sm.transition(state, f"input-{i}")
    assert sm.state is State.FINISHED
    assert [(t.from_state, t.to_state) for t in sm.log] == list(
        zip([State.IDLE, *path[:-1]], path, strict=True)
    )
    assert [t.input_sha256 for t in sm.log] == [input_sha256(f"input-{i}") for i in range(5)]
    assert all(t.duration_ms >= 0 and t.at for t in sm.log)


@pytest.mark.parametrize(
    ("start", "target"),
    [
        (State.IDLE, State.ACTING),
        (State.IDLE, State.OBSERVING),
        (State.ACTING, State.REASONING),
        (State.ACTING, State.FINISHED),
        (State.OBSERVING, State.ACTING),
        (State.AWAITING_APPROVAL, State.REASONING),
        (State.AWAITING_OBSERVATION, State.ACTING),
        (State.FINISHED, State.REASONING),
        (State.FAILED, State.IDLE),
        (State.CANCELED, State.REASONING),
    ],
)
def test_illegal_transitions_raise_and_leave_state_alone(start: State, target: State) -> None:
    sm = StateMachine(start)
    with pytest.raises(IllegalTransitionError) as info:
        sm.transition(target)
    assert sm.state is start and sm.log == []
    assert info.value.from_state == start.value and info.value.to_state == target.value


def test_terminal_states_only_lead_to_a_follow_up() -> None:
    assert TRANSITIONS[State.FAILED] == frozenset()
    assert TRANSITIONS[State.CANCELED] == frozenset()
    assert TRANSITIONS[State.FINISHED] == frozenset({State.IDLE})
    for state in State:
        if state not in TERMINAL_STATES:
            assert State.CANCELED in TRANSITIONS[state]
            assert State.FAILED in TRANSITIONS[state]


def test_every_state_maps_to_a_protocol_state() -> None:
    assert State.AWAITING_APPROVAL.to_proto() == pb.SESSION_STATE_INPUT_REQUIRED
    assert State.FINISHED.to_proto() == pb.SESSION_STATE_COMPLETED
    assert {s.to_proto() for s in State} >= {pb.SESSION_STATE_WORKING, pb.SESSION_STATE_FAILED}


def test_transition_round_trips_through_dict() -> None:
    sm = StateMachine()
    sm.transition(State.REASONING, b"x")
    entry = sm.log[0]
    assert type(entry).from_dict(entry.to_dict()) == entry


def test_the_log_hashes_each_input_as_it_was_at_the_transition() -> None:
    sm = StateMachine()
    buffer = bytearray(b"before")
    sm.transition(State.REASONING, buffer)
    buffer[:] = b"after!"
    log = sm.log
    sm.transition(State.ACTING, "text")
    assert sm.log is log and len(log) == 2  # one list, extended as the machine moves
    assert [t.input_sha256 for t in log] == [input_sha256(b"before"), input_sha256("text")]
    assert [(t.from_state, t.to_state) for t in log] == [
        (State.IDLE, State.REASONING),
        (State.REASONING, State.ACTING),
    ]
