"""What not to do set against what to do ("don't lock the door, just close the blinds"):
the part said runs, exactly, on the device and in the cloud's plan; the negated part
never does, and a negation that rules the call itself still runs nothing (issue 24)."""

from __future__ import annotations

from typing import Any

import pytest

from cloud_agent.planner.plan import make_plan
from examples.demo import load_router
from understanding.arguments.qualifiers import contrasted
from understanding.policy import check_call, negated_elsewhere


@pytest.fixture(scope="module")
def router() -> Any:
    return load_router()[0]


def test_the_parts_are_read_both_ways_round() -> None:
    assert contrasted("don't lock the door, just close the blinds") == (
        "don't lock the door",
        "close the blinds",
    )
    assert contrasted("close the blinds but do not lock the door") == (
        "do not lock the door",
        "close the blinds",
    )
    for words in ("don't close the blinds", "just don't lock it", "close the blinds"):
        assert contrasted(words) is None


def test_the_policy_lets_the_other_part_run_and_never_the_negated_one() -> None:
    words = "don't lock the door, just close the blinds"
    blinds = {"device": "blinds", "action": "close"}
    door = {"device": "door_lock", "action": "lock"}
    assert negated_elsewhere("device_control", blinds, words)
    assert check_call("device_control", blinds, words, 0.99, 0.5).action == "allow"
    assert not negated_elsewhere("device_control", door, words)
    assert check_call("device_control", door, words, 0.99, 0.5).action == "cloud"


@pytest.mark.parametrize(
    ("words", "arguments"),
    [
        ("don't lock the door, just close the blinds", {"device": "blinds", "action": "close"}),
        ("don't turn off the lights, just lock the door",
         {"device": "door_lock", "action": "lock"}),
        ("close the blinds but don't lock the door", {"device": "blinds", "action": "close"}),
    ],
)  # fmt: skip
def test_the_part_said_runs_on_the_device_and_in_the_plan(
    router: Any, words: str, arguments: dict[str, Any]
) -> None:
    decision = router.decide(words)
    assert (decision.route, decision.tool, decision.arguments) == (
        "edge",
        "device_control",
        arguments,
    )
    plan = make_plan(words, router=router)
    assert [(c.tool, c.args) for c in plan.calls] == [("device_control", arguments)]


@pytest.mark.parametrize(
    "words",
    [
        "don't close the blinds",
        "don't lock the door, just close it",  # the part said names no device
        "close the blinds but don't lock the door and set a timer for 5 minutes",
    ],
)
def test_a_negation_that_may_rule_the_call_runs_nothing(router: Any, words: str) -> None:
    assert router.decide(words).route == "cloud"
    plan = make_plan(words, router=router)
    assert not any(c.tool == "device_control" for c in plan.calls)
