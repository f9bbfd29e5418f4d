"""Decision receipts: built for every final answer, verified, tampering detected."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import Session, canonical_json, make_receipt, verify_receipt
from react_kernel.receipts import receipt_digest


@pytest.fixture
def session(make_loop: Any) -> Session:
    loop = make_loop(
        [
            'Thought: check paris\nAction: get_weather\nAction Input: {"city": "paris"}',
            'Thought: and oslo\nAction: get_weather\nAction Input: {"city": "oslo"}',
            "Thought: compare\nFinal Answer: Paris is warmer (21 vs 4).",
        ]
    )
    s: Session = loop.start("is paris warmer than oslo?", session_id="sess-1")
    list(s.run())
    return s


def test_receipt_contents(session: Session) -> None:
    receipt = session.receipt
    assert receipt is not None
    expected_id = hashlib.sha256(
        ("sess-1" + "is paris warmer than oslo?" + receipt.created_at.ToJsonString()).encode()
    ).hexdigest()
    assert receipt.receipt_id == expected_id
    assert receipt.answer == "Paris is warmer (21 vs 4)."
    assert [e.tool for e in receipt.evidence] == ["get_weather", "get_weather"]
    assert [dict(e.arguments) for e in receipt.evidence] == [{"city": "paris"}, {"city": "oslo"}]
    assert all(len(e.output_sha256) == 64 and len(e.act_id) == 32 for e in receipt.evidence)
    assert list(receipt.reasoning) == ["check paris", "and oslo", "compare"]
    assert receipt.model == "scripted"
    assert verify_receipt(receipt, session.steps) == []
    assert make_receipt(session) == receipt


def test_tampered_steps_are_detected(session: Session) -> None:
    receipt = session.receipt
    assert receipt is not None
    steps = [pb.ReactStep() for _ in session.steps]
    for copy, step in zip(steps, session.steps, strict=True):
        copy.CopyFrom(step)
    obs = next(s for s in steps if s.step_type == pb.STEP_TYPE_OBSERVATION)
    obs.observation["temperature"] = 35
    action = next(s for s in steps if s.step_type == pb.STEP_TYPE_ACTION)
    action.arguments["city"] = "rome"
    steps[-1].content = "Oslo is warmer."
    thought = next(s for s in steps if s.step_type == pb.STEP_TYPE_THOUGHT)
    thought.content = "I made it up"
    problems = verify_receipt(receipt, steps)
    joined = "\n".join(problems)
    assert "output hash differs" in joined
    assert "arguments differ" in joined
    assert "answer: differs" in joined
    assert "reasoning: differs" in joined


def test_tampered_receipt_is_detected(session: Session) -> None:
    original = session.receipt
    assert original is not None
    edited = pb.DecisionReceipt()
    edited.CopyFrom(original)
    edited.answer = "something else"
    assert any(p.startswith("digest") for p in verify_receipt(edited, session.steps))
    dropped = pb.DecisionReceipt()
    dropped.CopyFrom(original)
    del dropped.evidence[1]
    problems = verify_receipt(dropped, session.steps)
    assert any("not cited" in p for p in problems) and any("digest" in p for p in problems)
    moved = pb.DecisionReceipt()
    moved.CopyFrom(original)
    moved.created_at.seconds += 60
    assert any(p.startswith("receipt_id") for p in verify_receipt(moved, session.steps))
    assert verify_receipt(original, []) == ["answer: no FINAL_ANSWER step carries this receipt id"]


def test_best_effort_answers_have_receipts_too(make_loop: Any) -> None:
    loop = make_loop(["Thought: hmm"] * 4)
    session = loop.start("x")
    list(session.run())
    assert session.receipt is not None and verify_receipt(session.receipt, session.steps) == []


_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
_json = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def receipts(draw: st.DrawFn) -> pb.DecisionReceipt:
    text = st.text(max_size=12)
    receipt = pb.DecisionReceipt(
        receipt_id=draw(text), session_id=draw(text), query=draw(text), answer=draw(text),
        model=draw(text), digest=draw(text), reasoning=draw(st.lists(text, max_size=3)),
    )  # fmt: skip
    for _ in range(draw(st.integers(0, 3))):
        evidence = receipt.evidence.add(
            act_id=draw(text), tool=draw(text), output_sha256=draw(text)
        )
        arguments = draw(st.none() | st.dictionaries(st.text(max_size=5), _json, max_size=4))
        if arguments is not None:
            evidence.arguments.update(arguments)  # {} still sets the field
    if draw(st.booleans()):
        receipt.token_usage.prompt_tokens = draw(st.integers(0, 2**31 - 1))
        receipt.token_usage.completion_tokens = draw(st.integers(0, 2**31 - 1))
    if draw(st.booleans()):
        receipt.created_at.seconds = draw(st.integers(0, 2**34))
        receipt.created_at.nanos = draw(st.sampled_from([0, 5_000_000, 123_000, 123_456_789]))
    return receipt


@settings(max_examples=300, deadline=None)
@given(receipts())
def test_receipt_digest_is_sha256_of_the_json_mapping(receipt: pb.DecisionReceipt) -> None:
    clone = pb.DecisionReceipt()
    clone.CopyFrom(receipt)
    clone.digest = ""
    expected = hashlib.sha256(
        canonical_json(json_format.MessageToDict(clone)).encode("utf-8")
    ).hexdigest()
    assert receipt_digest(receipt) == expected


def test_receipt_digest_refuses_non_finite_numbers_like_message_to_dict() -> None:
    receipt = pb.DecisionReceipt(session_id="s")
    receipt.evidence.add(act_id="a").arguments.update({"x": float("inf")})
    with pytest.raises(json_format.SerializeToJsonError):
        json_format.MessageToDict(receipt)
    with pytest.raises(json_format.SerializeToJsonError):
        receipt_digest(receipt)
