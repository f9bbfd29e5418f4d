"""Joint intent + slot understanding on the device: one model reads every request in an
utterance, which words belong to which, and the argument spans of each.

* :mod:`understanding.slu.data`: annotated utterances (snips, slurp, jsonl with inline
  slots, clinc) and the composition of multi-intent training utterances;
* :mod:`understanding.slu.train`: fine-tuning (needs the ``train`` extra: torch);
  its parts: :mod:`~understanding.slu.training_data` (split, checked, encoded, drawn per
  epoch), :mod:`~understanding.slu.batches`, :mod:`~understanding.slu.loss`,
  :mod:`~understanding.slu.validation` (best state, out-of-scope threshold) and
  :mod:`~understanding.slu.export` (ONNX, INT8, weights in a mapped file);
* :mod:`understanding.slu.model`: the trained model on the device (onnxruntime + numpy);
* :mod:`understanding.slu.metrics`: intent accuracy, conlleval slot F1, exact match.

Nothing here imports torch unless training is asked for.
"""

from __future__ import annotations

from understanding.slu.data import FORMATS, Utterance, read_utterances, split_words
from understanding.slu.metrics import SLU_METRIC_KEYS, slu_metrics
from understanding.slu.model import Slot, SluModel, SluPart, SluPrediction

__all__ = [
    "FORMATS",
    "SLU_METRIC_KEYS",
    "Slot",
    "SluModel",
    "SluPart",
    "SluPrediction",
    "Utterance",
    "read_utterances",
    "slu_metrics",
    "split_words",
]
