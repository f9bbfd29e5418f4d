"""Train your own router: labelled examples in, an INT8-encoder intent model out.

The device keeps what the model knows (an in-scope intent) and sends the rest to the
cloud (out of scope). Public API:

* :func:`train_model` -> :class:`TrainReport`
* :class:`IntentModel` (``load``, ``predict``, ``predict_embedding``) -> :class:`IntentPrediction`
* :func:`load_examples`, :func:`load_jsonl`, :func:`load_clinc`, :class:`Example`
* :func:`routing_metrics`; errors :class:`IntentError` and its subclasses.
"""

from __future__ import annotations

from understanding.intents.data import OOS, Example, load_clinc, load_examples, load_jsonl
from understanding.intents.errors import IntentDataError, IntentError, IntentModelError
from understanding.intents.evaluate import METRIC_KEYS, routing_metrics
from understanding.intents.model import IntentModel, IntentPrediction
from understanding.intents.train import TrainReport, train_model

__all__ = [
    "METRIC_KEYS",
    "OOS",
    "Example",
    "IntentDataError",
    "IntentError",
    "IntentModel",
    "IntentModelError",
    "IntentPrediction",
    "TrainReport",
    "load_clinc",
    "load_examples",
    "load_jsonl",
    "routing_metrics",
    "train_model",
]
