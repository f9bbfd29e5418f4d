"""The shipped router model on a small fixed set (skipped until the model is built)."""

from __future__ import annotations

import pytest

from understanding.router import DEFAULT_MODEL_DIR, Router

pytestmark = pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "router.json").is_file(),
    reason="shipped router not built (scripts/build_router.py)",
)

FIXED = [
    ("what's 12 times 7", "edge", "calculator"),
    ("convert 10 miles to km", "edge", "unit_convert"),
    ("what's the weather in Tokyo tomorrow", "edge", "get_weather"),
    ("turn off the kitchen lights", "edge", "device_control"),
    ("set a timer for ten minutes", "edge", "set_timer"),
    ("add a note: call the plumber", "edge", "add_note"),
    ("search my notes for plumber", "edge", "search_notes"),
    ("what time is it in London", "edge", "world_clock"),
    ("thank you!", "edge", None),
    ("write a haiku about autumn", "cloud", None),
    ("who discovered penicillin", "cloud", None),
    ("what's the weather in Paris and Berlin", "cloud", None),
    ("turn on the lights and set a timer for 5 minutes", "cloud", None),
    ("is it warmer in Rome than in Madrid today", "cloud", None),
]


@pytest.fixture(scope="module")
def router() -> Router:
    return Router.load()


@pytest.mark.parametrize(("text", "route", "tool"), FIXED)
def test_fixed_set(router: Router, text: str, route: str, tool: str | None) -> None:
    decision = router.decide(text)
    assert (decision.route, decision.tool) == (route, tool), decision.reason
    assert 0.0 <= decision.confidence <= 1.0
