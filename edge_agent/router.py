"""The router: answer on the device with one tool, or hand the query to the cloud.

A decision has four gates, each of which can only send a query to the cloud:

1. the intent model (encoder + heads, trained by ``edge_agent.intents``) names a tool or
   small talk and is in scope;
2. its confidence clears the calibrated threshold stored with the model
   (``router.json``, written by ``scripts/build_router.py`` from the validation set);
3. the structure of the query is one request (``edge_agent.structure``): no second
   request after "and"/"then", no comparison or advice around a weather or time lookup;
4. the tool's arguments fill validly from the words (``edge_agent.arguments``).

So the device keeps a query only when all four agree, and guessing is never the
fallback. ``decide`` is pure (no I/O after loading) and fast, so the cloud's planner can
reuse it on each clause of a compound query.

>>> router = Router.load()                                # doctest: +SKIP
>>> router.decide("what's 15% of 80").arguments           # doctest: +SKIP
{'expression': '15 % of 80'}
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from edge_agent.answers import smalltalk_kind
from edge_agent.arguments import extract_arguments
from edge_agent.cities import other_place, strip_qualifiers
from edge_agent.structure import compound_reason
from edge_agent.tools import TOOL_NAMES

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "models" / "router"
ROUTER_CONFIG = "router.json"
SMALLTALK = "smalltalk"
OOS = "oos"
DEFAULT_THRESHOLD = 0.5
PLACE_TOOLS = frozenset({"get_weather", "world_clock"})

Route = Literal["edge", "cloud"]


class IntentPredictor(Protocol):
    """What the router needs from an intent model (``edge_agent.intents.IntentModel``)."""

    def predict(self, text: str) -> Any: ...


@dataclass(frozen=True)
class RouteDecision:
    """Where a query goes and, for the edge, with which tool and arguments."""

    route: Route
    tool: str | None
    arguments: dict[str, Any] | None
    confidence: float
    reason: str
    intent: str = ""
    scores: dict[str, float] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (for ``--json`` output and step metadata)."""
        data = asdict(self)
        data.pop("scores")
        return data


class RouterError(RuntimeError):
    """The router's model files are missing or unusable."""


class Router:
    """Routes queries with an intent model, a threshold, structure checks and arguments."""

    def __init__(self, model: IntentPredictor, *, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.model = model
        self.threshold = threshold

    @classmethod
    def load(cls, model_dir: Path | str | None = None, *, precision: str | None = None) -> Router:
        """Load the shipped router (or the one in ``model_dir``).

        Args:
            model_dir: A folder written by ``edge-agent train`` / ``scripts/build_router.py``.
            precision: Encoder precision override (``"int8"`` or ``"fp32"``), for benchmarks.

        Raises:
            RouterError: The folder or its model cannot be loaded.
        """
        folder = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
        if not folder.is_dir():
            raise RouterError(f"router model not found: {folder} (run scripts/build_router.py)")
        from edge_agent.intents import IntentModel

        try:
            model = (
                IntentModel.load(folder, precision=precision)
                if precision is not None
                else IntentModel.load(folder)
            )
        except Exception as exc:  # the trainer's own error types; translated here
            raise RouterError(f"cannot load router model from {folder}: {exc}") from exc
        threshold = DEFAULT_THRESHOLD
        config = folder / ROUTER_CONFIG
        if config.is_file():
            threshold = float(json.loads(config.read_text("utf-8")).get("threshold", threshold))
        return cls(model, threshold=threshold)

    def decide(self, text: str) -> RouteDecision:
        """Route one query; see the module docstring for the gates."""
        query = " ".join(text.split())
        if not query:
            return RouteDecision("cloud", None, None, 0.0, "empty query")
        # "weather in Cairo, Egypt" is "weather in Cairo" to the model and the structure
        # checks (the country is no second place); arguments read the words as written.
        plain = strip_qualifiers(query)
        prediction = self.model.predict(plain)
        intent = str(prediction.intent)
        confidence = float(prediction.confidence)
        scores = {str(k): float(v) for k, v in dict(getattr(prediction, "scores", {})).items()}

        def cloud(reason: str) -> RouteDecision:
            return RouteDecision("cloud", None, None, confidence, reason, intent, scores)

        if intent == OOS or not bool(getattr(prediction, "in_scope", True)):
            return cloud("out of the device's scope")
        if confidence < self.threshold:
            return cloud(f"low confidence {confidence:.2f} < {self.threshold:.2f}")
        if intent == SMALLTALK:
            if smalltalk_kind(query) is None:
                return cloud("small talk the device has no answer for")
            return RouteDecision("edge", None, None, confidence, "small talk", intent, scores)
        if intent not in TOOL_NAMES:
            return cloud(f"intent {intent!r} has no device tool")
        if intent in PLACE_TOOLS and (place := other_place(query)) is not None:
            return cloud(f"{place} is not a city the device knows")
        structural = compound_reason(plain, intent)
        if structural is not None:
            return cloud(structural)
        arguments = extract_arguments(intent, query)
        if arguments is None:
            return cloud(f"cannot fill {intent} arguments")
        return RouteDecision(
            "edge", intent, arguments, confidence, f"one {intent} call", intent, scores
        )
