"""``cloud-agent eval``: run the planner over a compound-query file and score its plans.

File format (JSON lines)::

    {"query": str, "answerable": bool, "calls": [{"tool": str, "args": object|null}, ...]}

Every tool runs in-process against a scratch memory in a temporary folder (nothing of the
user's is touched); approvals are granted. Metrics:

- ``plan_accuracy``: answerable lines whose multiset of tool calls equals the expected one
  (numbers within 1e-6; names and enums case-insensitive, trimmed; free text ``text`` and
  ``query`` by token F1 >= 0.6; a calculator call matches on its tool alone);
- ``honest_refusal``: unanswerable lines the planner declined with no tool call;
- ``wrong_actions``: side-effect calls (device commands, timers, notes) a plan made that
  match no expected call of its line (every one, on an unanswerable line): the costliest
  error, as it changes the person's home or memory;
- ``p50_ms`` / ``p95_ms``: time per query, plan and tool calls included.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloud_agent.errors import EvalFileError
from cloud_agent.planner.reasoner import REFUSAL_KEY, PlannerReasoner, load_edge_router
from cloud_agent.tools import local_registry
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct, to_struct
from sync.store import MemoryStore
from understanding.tools.devices import same_rooms

FREE_TEXT_ARGS = frozenset({"text", "query"})
F1_THRESHOLD = 0.6
MAX_STEPS = 24


@dataclass(frozen=True)
class Case:
    """One line of a compound-query file."""

    query: str
    answerable: bool
    calls: list[dict[str, Any]]


def load_cases(path: str | Path) -> list[Case]:
    """Read and check a compound-query file."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalFileError(f"cannot read {path}: {exc}") from exc
    cases = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            cases.append(Case(str(row["query"]), bool(row["answerable"]), list(row["calls"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise EvalFileError(f"{path}:{number}: not a compound-query line ({exc})") from exc
    if not cases:
        raise EvalFileError(f"{path}: no lines to evaluate")
    return cases


def _tokens(text: Any) -> list[str]:
    return re.findall(r"\w+", str(text).lower())


def token_f1(predicted: Any, expected: Any) -> float:
    """Token-level F1 between two texts."""
    p, e = _tokens(predicted), _tokens(expected)
    if not p or not e:
        return float(p == e)
    common = sum(min(p.count(t), e.count(t)) for t in set(p))
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(e)
    return 2 * precision * recall / (precision + recall)


def args_match(tool: str, expected: dict[str, Any] | None, got: dict[str, Any]) -> bool:
    """Whether ``got`` matches every expected argument under the eval's rules."""
    if tool == "calculator" or expected is None:
        return True
    for key, want in expected.items():
        have = got.get(key)
        if have is None and key == "day":
            have = "today"
        if key in ("room", "except"):
            if not same_rooms(want, have):  # "hall" is the hallway, to the device
                return False
        elif isinstance(want, bool) or want is None:
            if have != want:
                return False
        elif isinstance(want, int | float):
            try:
                if abs(float(have) - float(want)) > 1e-6:  # type: ignore[arg-type]
                    return False
            except (TypeError, ValueError):
                return False
        elif key in FREE_TEXT_ARGS:
            if token_f1(have or "", want) < F1_THRESHOLD:
                return False
        elif str(have).strip().lower() != str(want).strip().lower():
            return False
    return True


def calls_match(expected: list[dict[str, Any]], got: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether the multiset of calls equals the expected one (greedy one-to-one matching)."""
    if len(expected) != len(got):
        return False
    used: set[int] = set()
    for want in expected:
        for i, (tool, args) in enumerate(got):
            if i not in used and tool == want["tool"] and args_match(tool, want.get("args"), args):
                used.add(i)
                break
        else:
            return False
    return True


def wrong_actions(expected: list[dict[str, Any]], got: list[tuple[str, dict[str, Any]]]) -> int:
    """How many side-effect calls of ``got`` match no expected call (one-to-one)."""
    from understanding.tools import SIDE_EFFECT_TOOLS

    used: set[int] = set()
    wrong = 0
    for tool, args in got:
        if tool not in SIDE_EFFECT_TOOLS:
            continue
        for i, want in enumerate(expected):
            if i not in used and want["tool"] == tool and args_match(tool, want.get("args"), args):
                used.add(i)
                break
        else:
            wrong += 1
    return wrong


@dataclass
class Outcome:
    """What the planner did with one query."""

    calls: list[tuple[str, dict[str, Any]]]
    answer: str
    refused: bool
    ms: float


@contextmanager
def scratch_memory() -> Iterator[Any]:
    """A fresh memory store in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="edgeloop-eval-") as folder:
        store = MemoryStore(Path(folder) / "memory.db", synchronous="OFF")
        try:
            yield store
        finally:
            store.close()


def run_query(reasoner: PlannerReasoner, tools: Any, query: str, session_id: str) -> Outcome:
    """Run one query to its final answer with every tool in-process."""
    from react_kernel.reasoner import ReasoningContext

    started = time.perf_counter()
    history: list[pb.ReactStep] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    answer, refused = "", False
    for index in range(MAX_STEPS):
        ctx = ReasoningContext(query=query, history=history, tools=tools, session_id=session_id)
        steps = reasoner.next_steps(ctx)
        for step in steps:
            if step.step_type == pb.STEP_TYPE_ACTION:
                step.act_id = f"a{index}"
                args = from_struct(step.arguments)
                calls.append((step.tool, args))
                history.append(step)
                history.append(_execute(tools, step, args))
            elif step.step_type == pb.STEP_TYPE_FINAL_ANSWER:
                answer, refused = step.content, REFUSAL_KEY in step.metadata
                return Outcome(calls, answer, refused, (time.perf_counter() - started) * 1000)
            else:
                history.append(step)
    return Outcome(calls, answer, refused, (time.perf_counter() - started) * 1000)


def _execute(tools: Any, action: pb.ReactStep, args: dict[str, Any]) -> pb.ReactStep:
    observation = pb.ReactStep(
        step_type=pb.STEP_TYPE_OBSERVATION, act_id=action.act_id, tool=action.tool
    )
    spec = tools.get(action.tool)
    try:
        if spec is None or spec.func is None:
            raise LookupError(f"no tool {action.tool}")
        result = spec.func(args)
        observation.observation.CopyFrom(to_struct(result))
        observation.status = pb.OBSERVATION_STATUS_OK
        observation.content = json.dumps(result, default=str)
    except Exception as exc:  # a failing tool is an observation, as in the kernel
        observation.status = pb.OBSERVATION_STATUS_ERROR
        observation.content = str(exc)
    return observation


def evaluate(
    path: str | Path,
    reasoner: PlannerReasoner | None = None,
    failures_out: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run the planner over the file and return the metrics dict (``failures_out``, when
    given, receives each line the planner got wrong with the calls it made)."""
    cases = load_cases(path)
    planner = reasoner or PlannerReasoner(router=load_edge_router())
    answerable = [c for c in cases if c.answerable]
    unanswerable = [c for c in cases if not c.answerable]
    right = declined = wrong = 0
    timings: list[float] = []
    failures: list[dict[str, Any]] = []
    with scratch_memory() as memory:
        tools = local_registry(memory)
        for number, case in enumerate(cases):
            outcome = run_query(planner, tools, case.query, f"eval-{number}")
            timings.append(outcome.ms)
            wrong += wrong_actions(case.calls if case.answerable else [], outcome.calls)
            if case.answerable:
                ok = calls_match(case.calls, outcome.calls) and not outcome.refused
                right += ok
            else:
                ok = outcome.refused and not outcome.calls
                declined += ok
            if not ok:
                failures.append(
                    {"query": case.query, "expected": case.calls, "calls": outcome.calls}
                )
    if failures_out is not None:
        failures_out.extend(failures)
    ordered = sorted(timings)
    return {
        "n": len(cases),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "plan_accuracy": round(right / len(answerable), 4) if answerable else None,
        "honest_refusal": round(declined / len(unanswerable), 4) if unanswerable else None,
        "wrong_actions": wrong,
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "failures": len(failures),
    }
