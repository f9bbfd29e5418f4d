"""Fixtures for the edge tests: a fresh memory store and a router with a stub intent model.

The stub model stands in for the trained heads only (keyword rules, deterministic), so
the router's other gates, the agent, the CLI and the service are tested without
depending on what the trained model happens to say about a phrasing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

import pytest

from sync.store import MemoryStore
from understanding.router import Router

FIXED_NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@dataclass
class StubPrediction:
    intent: str
    confidence: float
    in_scope: bool
    oos_score: float = 0.0
    scores: dict[str, float] = field(default_factory=dict)


class StubIntentModel:
    """Keyword rules in order; the first that matches names the intent."""

    RULES: ClassVar[list[tuple[str, str]]] = [
        ("poem", "oos"),
        ("capital", "oos"),
        ("find", "search_notes"),
        ("note", "add_note"),
        ("weather", "get_weather"),
        ("time in", "world_clock"),
        ("timer", "set_timer"),
        ("convert", "unit_convert"),
        ("door", "device_control"),
        ("light", "device_control"),
        ("lamp", "device_control"),
        ("hello", "smalltalk"),
        ("thanks", "smalltalk"),
        ("unsure", "calculator"),
    ]

    def __init__(self, confidence: float = 0.95) -> None:
        self.confidence = confidence
        self.calls = 0

    def predict(self, text: str) -> StubPrediction:
        self.calls += 1
        lowered = text.lower()
        for word, intent in self.RULES:
            if word in lowered:
                confidence = 0.3 if word == "unsure" else self.confidence
                return StubPrediction(intent, confidence, intent != "oos")
        if any(ch.isdigit() for ch in lowered):
            return StubPrediction("calculator", self.confidence, True)
        return StubPrediction("oos", 0.9, False, 0.9)


@pytest.fixture
def fixed_now() -> datetime:
    return FIXED_NOW


@pytest.fixture
def stub_router() -> Router:
    return Router(StubIntentModel(), threshold=0.5)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoryStore]:
    store = MemoryStore(tmp_path / "edge.db")
    yield store
    store.close()


@pytest.fixture(scope="session")
def shipped_router() -> Router:
    """The shipped router (its INT8 model), loaded once for the session."""
    return Router.load()
