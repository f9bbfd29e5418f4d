"""Evaluate the edge decision over an eval file (the contract in docs/edge.md).

Each line is ``{"query", "route", "tool", "args", "expected_value"}``. The router decides
each query; nothing with a side effect runs (only the calculator, whose result is what
``expected_value`` checks). Arguments match by the contract's rules: numbers within
1e-6, enum and name strings case-insensitively after trimming, free text (``text``,
``query``) by token F1 >= 0.6.

A compound request the device runs call by call (a joint model's decision lists them in
``calls``) is written with ``"calls": [{"tool", "args"}, ...]`` in place of ``tool`` and
``args``: its tool is right when the multiset of the decision's tools is the expected
one, its arguments when every call matches one expected call (one to one; a call whose
expected ``args`` is null matches on its tool alone). Every call is scored, not only the
first.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_agent.errors import EvalFileError
from understanding.decision import RouteDecision
from understanding.policy import ACTION_TOOLS
from understanding.router import Router
from understanding.settings import Settings
from understanding.tools.calculator import CalculatorError, evaluate
from understanding.tools.devices import same_rooms

FREE_TEXT_KEYS = frozenset({"text", "query"})
ROOM_KEYS = frozenset({"room", "except"})
F1_THRESHOLD = 0.6
TOLERANCE = 1e-6


@dataclass(frozen=True)
class EvalCase:
    """One line of an eval file."""

    line: int
    query: str
    route: str
    tool: str | None
    args: dict[str, Any] | None
    expected_value: float | None
    calls: tuple[tuple[str, dict[str, Any] | None], ...] = ()


@dataclass
class EvalReport:
    """Metrics over a file, plus the confusion counts and the misses for the human form."""

    metrics: dict[str, float | int]
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    misses: list[dict[str, Any]] = field(default_factory=list)


def load_cases(path: str | Path) -> list[EvalCase]:
    """Read and check an eval file; raises EvalFileError naming the bad line."""
    file = Path(path)
    if not file.is_file():
        raise EvalFileError(f"no such file: {file}")
    cases: list[EvalCase] = []
    with file.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            cases.append(_parse_line(file, number, raw))
    if not cases:
        raise EvalFileError(f"{file}: no eval lines")
    return cases


def _parse_line(file: Path, number: int, raw: str) -> EvalCase:
    where = f"{file}:{number}"
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise EvalFileError(f"{where}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise EvalFileError(f"{where}: expected a JSON object")
    query, route = data.get("query"), data.get("route")
    if not isinstance(query, str) or not query.strip():
        raise EvalFileError(f"{where}: 'query' must be a non-empty string")
    if route not in ("edge", "cloud", "ask"):
        raise EvalFileError(f'{where}: \'route\' must be "edge", "cloud" or "ask"')
    tool, args, value = data.get("tool"), data.get("args"), data.get("expected_value")
    if tool is not None and not isinstance(tool, str):
        raise EvalFileError(f"{where}: 'tool' must be a string or null")
    if route == "ask" and not tool:
        raise EvalFileError(f"{where}: an \"ask\" line names the 'tool' whose argument is missing")
    if args is not None and not isinstance(args, dict):
        raise EvalFileError(f"{where}: 'args' must be an object or null")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise EvalFileError(f"{where}: 'expected_value' must be a number or null")
    calls = _parse_calls(where, data.get("calls"))
    if calls and route != "edge":
        raise EvalFileError(f"{where}: 'calls' is for lines the device runs (route \"edge\")")
    if calls and tool is None:
        tool, args = calls[0]
    return EvalCase(
        number, query, route, tool, args, None if value is None else float(value), calls
    )


def _parse_calls(where: str, raw: Any) -> tuple[tuple[str, dict[str, Any] | None], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise EvalFileError(f"{where}: 'calls' must be a non-empty list of {{tool, args}}")
    calls: list[tuple[str, dict[str, Any] | None]] = []
    for call in raw:
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            raise EvalFileError(f"{where}: each call must be an object with a 'tool' string")
        args = call.get("args")
        if args is not None and not isinstance(args, dict):
            raise EvalFileError(f"{where}: a call's 'args' must be an object or null")
        calls.append((call["tool"], args))
    return tuple(calls)


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def token_f1(expected: str, predicted: str) -> float:
    """Token-level F1 between two texts (SQuAD style)."""
    gold, pred = _tokens(expected), _tokens(predicted)
    if not gold or not pred:
        return float(gold == pred)
    common = sum((Counter(gold) & Counter(pred)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def value_matches(key: str, expected: Any, predicted: Any) -> bool:
    """One argument by the contract's rules; a room (and each room left out) by the name
    the device keeps it under (``room_key``: "hall" is the hallway), as the same command
    runs for either."""
    if key in ROOM_KEYS:
        return same_rooms(expected, predicted)
    if isinstance(expected, bool) or isinstance(predicted, bool):
        return bool(expected == predicted)
    if isinstance(expected, int | float):
        return isinstance(predicted, int | float) and math.isclose(
            float(expected), float(predicted), abs_tol=TOLERANCE
        )
    if isinstance(expected, str):
        if not isinstance(predicted, str):
            return False
        if key in FREE_TEXT_KEYS:
            return token_f1(expected, predicted) >= F1_THRESHOLD
        return expected.strip().lower() == predicted.strip().lower()
    return bool(expected == predicted)


def args_match(expected: dict[str, Any], predicted: dict[str, Any] | None) -> bool:
    """Every expected argument matches, and nothing else was filled in."""
    if predicted is None:
        return False
    want = {k: v for k, v in expected.items() if v is not None}
    got = {k: v for k, v in predicted.items() if v is not None}
    if set(want) != set(got):
        return False
    return all(value_matches(key, want[key], got[key]) for key in want)


def _label(route: str, tool: str | None) -> str:
    if route == "cloud":
        return "cloud"
    if route == "ask":
        return f"ask:{tool}"
    return tool or "smalltalk"


def is_wrong_action(case: EvalCase, decision: RouteDecision) -> bool:
    """True when the decision would run a side-effect call the line does not expect: on a
    cloud or ask line, as another tool, or with other arguments (a null ``args`` expects
    the tool alone)."""
    made = [(t, a) for t, a in _calls_of(decision) if t in ACTION_TOOLS]
    if not made:
        return False
    if case.route != "edge":
        return True
    expected = list(case.calls) or [(case.tool or "", case.args)]
    for tool, args in made:
        for k, (want_tool, want_args) in enumerate(expected):
            if want_tool == tool and (want_args is None or args_match(want_args, args)):
                del expected[k]
                break
        else:
            return True
    return False


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = q * (len(ordered) - 1)
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def run_eval(router: Router, cases: list[EvalCase], home: Settings | None = None) -> EvalReport:
    """Decide every case and compute the contract's metrics, as a device whose settings
    are ``home`` (``--home CITY``; None: a device with no settings)."""
    router.decide("warm up", home)  # first call pays for lazy imports and session set-up
    latencies: list[float] = []
    route_ok = edge_total = tool_ok = args_total = args_ok = 0
    cloud_total = cloud_ok = kept = kept_ok = wrong = asked = 0
    report = EvalReport(metrics={})
    for case in cases:
        start = time.perf_counter()
        decision = router.decide(case.query, home)
        latencies.append((time.perf_counter() - start) * 1000)
        right_route = decision.route == case.route
        route_ok += right_route
        if decision.route == "edge":
            kept += 1
            kept_ok += case.route == "edge"
        asked += decision.route == "ask"
        wrong_action = is_wrong_action(case, decision)
        wrong += wrong_action
        made = _calls_of(decision)
        if case.calls:
            right_tool = right_route and sorted(t for t, _ in made) == sorted(
                t for t, _ in case.calls
            )
        else:
            right_tool = right_route and decision.tool == case.tool and len(made) <= 1
        right_args = True
        if case.route == "cloud":
            cloud_total += 1
            # Asking back ran nothing: the person is no worse off than with the cloud.
            cloud_ok += decision.route in ("cloud", "ask")
        elif case.route == "ask":
            pass
        else:
            edge_total += 1
            tool_ok += right_tool
            if case.calls and any(args is not None for _, args in case.calls):
                args_total += 1
                right_args = right_tool and calls_match(case.calls, made)
                args_ok += right_args
            elif not case.calls and (case.args is not None or case.expected_value is not None):
                args_total += 1
                right_args = right_tool and _args_right(case, decision.arguments)
                args_ok += right_args
        report.confusion[
            (_label(case.route, case.tool), _label(decision.route, decision.tool))
        ] += 1
        if wrong_action or not (
            right_route and (case.route == "cloud" or (right_tool and right_args))
        ):
            report.misses.append(
                {
                    "line": case.line,
                    "query": case.query,
                    "expected": _label(case.route, case.tool),
                    "got": _label(decision.route, decision.tool),
                    "args": decision.arguments,
                    "expected_args": case.args,
                    "reason": decision.reason,
                    "wrong_action": wrong_action,
                    **(
                        {
                            "calls": [{"tool": t, "args": a} for t, a in made],
                            "expected_calls": [{"tool": t, "args": a} for t, a in case.calls],
                        }
                        if case.calls or len(made) > 1
                        else {}
                    ),
                }
            )

    def share(part: int, whole: int) -> float:
        return round(part / whole, 4) if whole else 1.0

    report.metrics = {
        "n": len(cases),
        "route_accuracy": share(route_ok, len(cases)),
        "tool_accuracy": share(tool_ok, edge_total),
        "args_accuracy": share(args_ok, args_total),
        "cloud_recall": share(cloud_ok, cloud_total),
        "edge_precision": share(kept_ok, kept),
        "wrong_actions": wrong,
        "asked_back": asked,
        "p50_ms": round(_percentile(latencies, 0.5), 3),
        "p95_ms": round(_percentile(latencies, 0.95), 3),
    }
    return report


def _calls_of(decision: RouteDecision) -> list[tuple[str, dict[str, Any] | None]]:
    """Every call of a decision: its ``calls`` for a compound one, else its one tool."""
    if decision.route != "edge":
        return []
    if decision.calls:
        return [(c.tool, c.arguments) for c in decision.calls]
    return [(decision.tool, decision.arguments)] if decision.tool else []


def calls_match(
    expected: tuple[tuple[str, dict[str, Any] | None], ...] | list[Any],
    made: list[tuple[str, dict[str, Any] | None]],
) -> bool:
    """Every call made matches one expected call, one to one (a null ``args`` expects the
    tool alone)."""
    if len(expected) != len(made):
        return False
    left = list(made)
    for tool, args in expected:
        for k, (got_tool, got_args) in enumerate(left):
            if got_tool == tool and (args is None or args_match(args, got_args)):
                del left[k]
                break
        else:
            return False
    return True


def _args_right(case: EvalCase, arguments: dict[str, Any] | None) -> bool:
    if case.expected_value is not None:
        if case.tool != "calculator" or not arguments:
            return False
        try:
            value = evaluate(str(arguments.get("expression", "")))
        except CalculatorError:
            return False
        return math.isclose(value, case.expected_value, abs_tol=TOLERANCE, rel_tol=1e-9)
    return args_match(case.args or {}, arguments)
