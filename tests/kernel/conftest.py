"""Shared fixtures for the kernel tests: a small tool set and loop factories."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# The kernel tests share helpers in kernel_helpers.py next to this file.
sys.path.insert(0, str(Path(__file__).parent))

from kernel_helpers import Calls, make_tools

from react_kernel import (
    AgentLoop,
    GuardConfig,
    InMemoryIdempotencyStore,
    RetryPolicy,
    ScriptedReasoner,
    ToolRegistry,
)


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def tools(calls: Calls) -> ToolRegistry:
    return make_tools(calls)


LoopFactory = Callable[..., AgentLoop]


@pytest.fixture
def make_loop(tools: ToolRegistry) -> LoopFactory:
    """Build a loop over the shared tools; retries never really sleep."""

    def factory(replies: list[Any], **kwargs: Any) -> AgentLoop:
        kwargs.setdefault("idempotency", InMemoryIdempotencyStore())
        kwargs.setdefault("guards", GuardConfig())
        kwargs.setdefault("retry", RetryPolicy(initial_s=0.0, jitter_s=0.0))
        kwargs.setdefault("sleep", lambda _s: None)
        return AgentLoop(ScriptedReasoner(replies), kwargs.pop("tools", tools), **kwargs)

    return factory
