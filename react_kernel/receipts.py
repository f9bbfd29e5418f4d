"""Decision receipts: the evidence behind a final answer, verifiable against stored steps.

A receipt names the session, the query and the answer; lists the tool calls that support
the answer (act id, tool, input, sha256 of the observation's canonical JSON); keeps the
reasoning trace (the THOUGHTs in order), the model or backend and the token usage. Its id
is the hex sha256 of session id + query + timestamp, and its ``digest`` is the sha256 of
its other fields, so :func:`verify_receipt` can tell a receipt that was edited from one
whose steps were edited.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format
from google.protobuf.timestamp_pb2 import Timestamp

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.executor import canonical_json
from react_kernel.steps import from_struct

if TYPE_CHECKING:
    from react_kernel.session import Session

__all__ = [
    "build_receipt",
    "make_receipt",
    "observation_sha256",
    "receipt_digest",
    "receipt_id_for",
    "verify_receipt",
]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def observation_sha256(step: pb.ReactStep) -> str:
    """Hex sha256 of an OBSERVATION's structured output in canonical JSON."""
    return _sha(canonical_json(from_struct(step.observation)))


def receipt_id_for(session_id: str, query: str, created_at: Timestamp) -> str:
    """Hex sha256 of session id + query + the RFC 3339 timestamp."""
    return _sha(session_id + query + created_at.ToJsonString())


def receipt_digest(receipt: pb.DecisionReceipt, *, _created_at_json: str | None = None) -> str:
    """Hex sha256 over every field of the receipt except ``digest``, in canonical JSON.

    The JSON is protobuf's JSON mapping (``json_format.MessageToDict``), built directly
    from the receipt's fields (several times faster, the same dict; see ``_receipt_json``).
    """
    data = _receipt_json(receipt, _created_at_json) if _FAST_JSON else None
    if data is None:
        clone = pb.DecisionReceipt()
        clone.CopyFrom(receipt)
        clone.digest = ""
        data = json_format.MessageToDict(clone)
    return _sha(canonical_json(data))


def _field_names(message: Any) -> set[str]:
    return {f.name for f in message.DESCRIPTOR.fields}


# The direct conversion knows these fields; should the protocol ever add one, the digest
# goes back through MessageToDict rather than silently leave the new field out.
_FAST_JSON = (
    _field_names(pb.DecisionReceipt)
    == {
        "receipt_id",
        "session_id",
        "query",
        "answer",
        "evidence",
        "reasoning",
        "model",
        "token_usage",
        "created_at",
        "digest",
    }
    and _field_names(pb.Evidence) == {"act_id", "tool", "arguments", "output_sha256"}
    and _field_names(pb.TokenUsage) == {"prompt_tokens", "completion_tokens"}
)


class _NotFinite(Exception):
    """A Struct number MessageToDict refuses (it raises; so must the digest)."""


def _receipt_json(
    receipt: pb.DecisionReceipt, created_at_json: str | None = None
) -> dict[str, Any] | None:
    """``MessageToDict(receipt)`` without ``digest``, field by field (None: not sure)."""
    out: dict[str, Any] = {}
    if receipt.receipt_id:
        out["receiptId"] = receipt.receipt_id
    if receipt.session_id:
        out["sessionId"] = receipt.session_id
    if receipt.query:
        out["query"] = receipt.query
    if receipt.answer:
        out["answer"] = receipt.answer
    if receipt.evidence:
        items = []
        for evidence in receipt.evidence:
            item: dict[str, Any] = {}
            if evidence.act_id:
                item["actId"] = evidence.act_id
            if evidence.tool:
                item["tool"] = evidence.tool
            if evidence.HasField("arguments"):
                try:
                    item["arguments"] = _struct_json(evidence.arguments)
                except _NotFinite:
                    return None
            if evidence.output_sha256:
                item["outputSha256"] = evidence.output_sha256
            items.append(item)
        out["evidence"] = items
    if receipt.reasoning:
        out["reasoning"] = list(receipt.reasoning)
    if receipt.model:
        out["model"] = receipt.model
    if receipt.HasField("token_usage"):
        usage: dict[str, Any] = {}
        if receipt.token_usage.prompt_tokens:
            usage["promptTokens"] = receipt.token_usage.prompt_tokens
        if receipt.token_usage.completion_tokens:
            usage["completionTokens"] = receipt.token_usage.completion_tokens
        out["tokenUsage"] = usage
    if receipt.HasField("created_at"):
        out["createdAt"] = created_at_json or receipt.created_at.ToJsonString()
    return out


def _struct_json(struct: Any) -> dict[str, Any]:
    return {key: _value_json(value) for key, value in struct.fields.items()}


def _value_json(value: Any) -> Any:
    # As json_format's _ValueMessageToJsonObject: numbers stay floats (5.0, not 5).
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        if not math.isfinite(number):
            raise _NotFinite()
        return number
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return _struct_json(value.struct_value)
    if kind == "list_value":
        return [_value_json(v) for v in value.list_value.values]
    return None


def _turn_steps(steps: Sequence[pb.ReactStep], final: pb.ReactStep) -> list[pb.ReactStep]:
    return [
        s
        for s in steps
        if s.turn_id == final.turn_id
        and s.session_id == final.session_id
        and s.step_index <= final.step_index
    ]


def build_receipt(
    session_id: str,
    query: str,
    steps: Sequence[pb.ReactStep],
    final: pb.ReactStep,
    *,
    model: str = "",
) -> pb.DecisionReceipt:
    """The receipt of ``final`` given the steps of its turn (those before it count)."""
    receipt = pb.DecisionReceipt(session_id=session_id, query=query, answer=final.content)
    if final.HasField("created_at"):
        receipt.created_at.CopyFrom(final.created_at)
    else:
        receipt.created_at.GetCurrentTime()
    stamp = receipt.created_at.ToJsonString()  # once, for the id and the digest
    receipt.receipt_id = _sha(session_id + query + stamp)
    actions: dict[str, pb.ReactStep] = {}
    prompt = completion = 0
    models: list[str] = []
    for step in steps:
        if step is final:
            continue
        kind = step.step_type
        if kind == pb.STEP_TYPE_THOUGHT:
            receipt.reasoning.append(step.content)
        elif kind == pb.STEP_TYPE_ACTION:
            actions[step.act_id] = step
        elif kind == pb.STEP_TYPE_OBSERVATION and step.status == pb.OBSERVATION_STATUS_OK:
            action = actions.get(step.act_id)
            evidence = receipt.evidence.add(
                act_id=step.act_id, tool=step.tool, output_sha256=observation_sha256(step)
            )
            if action is not None:
                evidence.arguments.CopyFrom(action.arguments)
        if step.HasField("token_usage"):
            prompt += step.token_usage.prompt_tokens
            completion += step.token_usage.completion_tokens
        if step.model and step.model not in models:
            models.append(step.model)
    if final.HasField("token_usage"):
        prompt += final.token_usage.prompt_tokens
        completion += final.token_usage.completion_tokens
    if final.model and final.model not in models:
        models.append(final.model)
    receipt.model = model or ",".join(models)
    if prompt or completion:
        receipt.token_usage.prompt_tokens = prompt
        receipt.token_usage.completion_tokens = completion
    receipt.digest = receipt_digest(receipt, _created_at_json=stamp)
    return receipt


def make_receipt(session: Session) -> pb.DecisionReceipt:
    """The receipt of the session's last FINAL_ANSWER (built from its turn's steps)."""
    for step in reversed(session.steps):
        if step.step_type == pb.STEP_TYPE_FINAL_ANSWER:
            return build_receipt(
                session.session_id,
                session.query_for_turn(step.turn_id),
                _turn_steps(session.steps, step),
                step,
            )
    raise ValueError("the session has no final answer yet")


def verify_receipt(receipt: pb.DecisionReceipt, steps: Sequence[pb.ReactStep]) -> list[str]:
    """Check a receipt against the stored steps; returns what does not match (empty: valid).

    Example:
        >>> verify_receipt(session.receipt, session.steps)  # doctest: +SKIP
        []
    """
    problems: list[str] = []
    if receipt_digest(receipt) != receipt.digest:
        problems.append("digest: the receipt's fields were changed after it was issued")
    expected_id = receipt_id_for(receipt.session_id, receipt.query, receipt.created_at)
    if expected_id != receipt.receipt_id:
        problems.append("receipt_id: does not match session id, query and timestamp")
    final = next(
        (
            s
            for s in steps
            if s.step_type == pb.STEP_TYPE_FINAL_ANSWER and s.receipt_id == receipt.receipt_id
        ),
        None,
    )
    if final is None:
        problems.append("answer: no FINAL_ANSWER step carries this receipt id")
        return problems
    if final.session_id != receipt.session_id:
        problems.append("session_id: differs from the final answer's session")
    if final.content != receipt.answer:
        problems.append("answer: differs from the stored FINAL_ANSWER")
    turn = _turn_steps(steps, final)
    by_act: dict[str, dict[int, pb.ReactStep]] = {}
    for step in turn:
        if step.act_id:
            by_act.setdefault(step.act_id, {})[step.step_type] = step
    thoughts = [s.content for s in turn if s.step_type == pb.STEP_TYPE_THOUGHT]
    if list(receipt.reasoning) != thoughts:
        problems.append("reasoning: differs from the stored THOUGHT steps")
    cited: set[str] = set()
    for i, evidence in enumerate(receipt.evidence):
        cited.add(evidence.act_id)
        found = by_act.get(evidence.act_id, {})
        action = found.get(pb.STEP_TYPE_ACTION)
        observation = found.get(pb.STEP_TYPE_OBSERVATION)
        where = f"evidence[{i}] ({evidence.act_id[:8]})"
        if observation is None:
            problems.append(f"{where}: no stored OBSERVATION with this act id")
            continue
        if observation.status != pb.OBSERVATION_STATUS_OK:
            problems.append(f"{where}: the stored OBSERVATION is not OK")
        if evidence.tool != observation.tool:
            problems.append(f"{where}: tool differs from the stored step")
        if action is not None and from_struct(action.arguments) != from_struct(evidence.arguments):
            problems.append(f"{where}: arguments differ from the stored ACTION")
        if observation_sha256(observation) != evidence.output_sha256:
            problems.append(f"{where}: output hash differs from the stored OBSERVATION")
    for act_id, found in by_act.items():
        observation = found.get(pb.STEP_TYPE_OBSERVATION)
        if (
            observation is not None
            and observation.status == pb.OBSERVATION_STATUS_OK
            and act_id not in cited
        ):
            problems.append(f"evidence: the OK observation of act {act_id[:8]} is not cited")
    return problems
