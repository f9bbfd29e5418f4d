"""A session with a side-effecting tool that fails half the time (seeded).

It shows the whole failure story at once: transient failures retried with growing
backoff, the tool's circuit breaker opening and then failing fast, the loop ending with a
best-effort FINAL_ANSWER that quotes what it did learn, and no side effect done twice
(a repeated request is answered from the idempotency store).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    AgentLoop,
    GuardConfig,
    InMemoryIdempotencyStore,
    RetryPolicy,
    ScriptedReasoner,
    Session,
    ToolRegistry,
    ToolSpec,
    TransientToolError,
)

SEED = 8
SENSORS = [1, 2, 1, 3, 4, 5, 6, 7, 8]


@dataclass
class Run:
    session: Session
    steps: list[pb.ReactStep]
    attempts: list[int] = field(default_factory=list)
    effects: list[int] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)


def run_flaky(seed: int) -> Run:
    rng = random.Random(seed)
    attempts: list[int] = []
    effects: list[int] = []

    def send_reading(args: dict[str, Any]) -> dict[str, Any]:
        attempts.append(args["sensor"])
        if rng.random() < 0.5:
            raise TransientToolError("radio link dropped")
        effects.append(args["sensor"])  # the side effect happens only on success
        return {"sensor": args["sensor"], "reading": 20 + 3 * args["sensor"]}

    tools = ToolRegistry(
        [
            ToolSpec(
                "send_reading",
                "Send a sensor reading upstream.",
                {
                    "type": "object",
                    "properties": {"sensor": {"type": "integer"}},
                    "required": ["sensor"],
                },
                func=send_reading,
                side_effects=True,
            )
        ]
    )
    waits: list[float] = []
    replies = [f'Action: send_reading\nAction Input: {{"sensor": {n}}}' for n in SENSORS] + [
        "Final Answer: all sent"
    ]
    loop = AgentLoop(
        ScriptedReasoner(replies),
        tools,
        idempotency=InMemoryIdempotencyStore(),
        guards=GuardConfig(max_steps=8, max_repeats=2),
        retry=RetryPolicy(initial_s=0.05, jitter_s=0.01, breaker_threshold=4, breaker_reset_s=3600),
        sleep=waits.append,
    )
    session = loop.start("send sensor readings 1 to 8 (sensor 1 twice)")
    steps = list(session.run())
    return Run(session, steps, attempts, effects, waits)


def observations(run: Run) -> list[pb.ReactStep]:
    return [s for s in run.steps if s.step_type == pb.STEP_TYPE_OBSERVATION]


def test_retries_breaker_best_effort_and_no_double_effects() -> None:
    run = run_flaky(SEED)
    obs = observations(run)
    # Retries: some calls succeeded only after a retry, with growing backoff plus jitter.
    retried_ok = [
        o
        for o in obs
        if o.status == pb.OBSERVATION_STATUS_OK and int(o.metadata.get("attempts", "0")) > 1
    ]
    assert retried_ok and all(int(o.metadata["attempts"]) <= 3 for o in retried_ok)
    assert all(0.05 <= w <= 0.06 or 0.1 <= w <= 0.11 for w in run.waits)
    # The idempotency store answered the repeated request for sensor 1.
    replays = [o for o in obs if o.metadata.get("idempotent_replay") == "true"]
    assert [r.observation["sensor"] for r in replays] == [1]
    # The breaker opened after consecutive failures and then failed fast.
    rejected = [o for o in obs if o.status == pb.OBSERVATION_STATUS_REJECTED]
    assert rejected and "circuit open" in rejected[-1].content
    assert "attempts" not in rejected[-1].metadata  # failed fast: the tool was not called
    assert sum(int(o.metadata.get("attempts", "0")) for o in obs) == len(run.attempts)
    # Best effort: the loop stopped on a guard and quoted what it learnt.
    final = run.steps[-1]
    assert final.step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert final.metadata["best_effort"] == "true"
    assert final.stop_reason == pb.STOP_REASON_MAX_STEPS
    assert "reading" in final.content
    # No side effect ran twice.
    assert len(run.effects) == len(set(run.effects))
    assert run.session.receipt is not None


def test_the_story_is_deterministic() -> None:
    first, second = run_flaky(SEED), run_flaky(SEED)
    assert [o.content for o in observations(first)] == [o.content for o in observations(second)]
    assert first.attempts == second.attempts


def test_no_double_effects_for_any_seed() -> None:
    for seed in range(30):
        run = run_flaky(seed)
        assert len(run.effects) == len(set(run.effects)), seed
        assert run.steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER, seed
