"""A trained joint intent + slot model on the device: onnxruntime + numpy only.

A model folder (written by ``edge-agent train`` on annotated data) holds
``model_int8.onnx`` (the fine-tuned encoder with its three heads in the graph), its
weights in ``model_int8.onnx.data`` beside it (ONNX external data: onnxruntime maps the
file rather than copying 23 MB onto the heap, so a query's process holds only the pages
it reads, e.g. a few rows of the 11.7 MB word-embedding table; a graph file that holds
its weights inline loads too), ``tokenizer.json`` and ``manifest.json`` (intents, slot
tags, threshold, figures).

One ``session.run`` per query gives intent, slot and word-intent scores; numpy then

1. takes every intent whose sigmoid clears 0.5 (at least the best one), and calls the
   query out of scope when the best one's score is under the trained threshold;
2. decodes BIO slot tags with valid transitions only (:mod:`understanding.slu.decode`);
3. gives each word to one of the chosen intents (word-intent head), each intent one
   unbroken run of words, so a compound request splits into its parts, each with its
   own slots.

>>> model = SluModel.load(Path("my_model"))                      # doctest: +SKIP
>>> p = model.predict("set a 10 minute timer and turn off the kitchen lights")  # doctest: +SKIP
>>> [(part.intent, part.text) for part in p.parts]              # doctest: +SKIP
[('set_timer', 'set a 10 minute timer'), ('device_control', 'turn off the kitchen lights')]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from understanding.intents.errors import IntentModelError
from understanding.slu.data import spans, split_words
from understanding.slu.decode import (
    allowed_transitions,
    contiguous_owners,
    log_softmax,
    viterbi,
    with_learned,
)
from understanding.slu.pieces import WordPiecer

__all__ = [
    "FORMAT_KIND",
    "WEIGHTS_FILE",
    "Decoded",
    "Slot",
    "SluModel",
    "SluPart",
    "SluPrediction",
    "decode",
]

FORMAT_KIND = "joint-slu"
FORMAT_VERSION = 1
MODEL_FILE = "model_int8.onnx"
WEIGHTS_FILE = MODEL_FILE + ".data"  # the graph's external data (see the module docstring)
TOKENIZER_FILE = "tokenizer.json"
TRANSITIONS_FILE = "slot_transitions.npz"
MULTI_THRESHOLD = 0.5
_JOINERS = frozenset({"and", "then", ",", "also", "&"})


@dataclass(frozen=True)
class Slot:
    """A slot the tagger found: its type, its words, where (word indices, end exclusive)."""

    type: str
    value: str
    start: int
    end: int


@dataclass(frozen=True)
class SluPart:
    """One request of an utterance: its intent, its words and its slots."""

    intent: str
    text: str
    slots: tuple[Slot, ...]
    confidence: float


@dataclass(frozen=True)
class Decoded:
    """The raw decision for one utterance (intent indices, tag strings, word owners)."""

    intents: list[int]
    tags: list[str]
    owners: list[int]  # per word: index into ``intents``
    probs: np.ndarray


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))
    return out


def decode(
    intent_logits: np.ndarray,
    slot_logits: np.ndarray,
    word_intent_logits: np.ndarray,
    first: np.ndarray,
    tags: Sequence[str],
    transitions: tuple[np.ndarray, np.ndarray],
    *,
    multi_threshold: float = MULTI_THRESHOLD,
) -> Decoded:
    """One utterance's intents, slot tags and word owners from the network's outputs.

    ``slot_logits`` and ``word_intent_logits`` are per word piece; ``first`` gives each
    word's first piece (-1: cut off; such words are tagged O).
    """
    probs = _sigmoid(intent_logits)
    listed = probs.tolist()
    chosen = [i for i, p in enumerate(listed) if p >= multi_threshold]
    if not chosen:
        chosen = [int(probs.argmax())]
    chosen.sort(key=lambda i: -listed[i])
    pieces = first.tolist()
    tagged = [w for w, piece in enumerate(pieces) if piece >= 0]  # the words not cut off
    kept = [pieces[w] for w in tagged]
    # Raw scores, not log-probabilities: a word's normaliser adds the same to every tag
    # sequence, so the best one is the same (and the softmax is saved).
    path = viterbi(slot_logits[kept], transitions)
    word_tags = ["O"] * len(first)
    for w, t in zip(tagged, path, strict=True):
        word_tags[w] = tags[t]
    owners = [0] * len(first)
    if len(chosen) > 1 and len(kept):
        sub = log_softmax(word_intent_logits[kept][:, chosen])
        for w, o in zip(tagged, contiguous_owners(sub), strict=True):
            owners[w] = int(o)
        # Order the parts as they appear in the utterance.
        seen: list[int] = []
        for o in owners:
            if o not in seen:
                seen.append(o)
        seen += [o for o in range(len(chosen)) if o not in seen]
        remap = {old: new for new, old in enumerate(seen)}
        chosen = [chosen[o] for o in seen]
        owners = [remap[o] for o in owners]
    return Decoded(chosen, word_tags, owners, probs)


def learned_transitions(folder: Path, n_tags: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The slot CRF's (start, transition) scores saved beside the model, if any.

    Raises:
        IntentModelError: The file is there but unreadable or of the wrong shape.
    """
    path = Path(folder) / TRANSITIONS_FILE
    if not path.is_file():
        return None  # a model trained before the CRF: BIO's constraints alone
    try:
        with np.load(path, allow_pickle=False) as saved:
            start = np.asarray(saved["start"], dtype=np.float64)
            trans = np.asarray(saved["transitions"], dtype=np.float64)
    except (OSError, ValueError, KeyError) as exc:
        raise IntentModelError(f"{path}: unreadable ({exc})") from exc
    if start.shape != (n_tags,) or trans.shape != (n_tags, n_tags):
        raise IntentModelError(f"{path}: scores for {len(start)} tags, the model has {n_tags}")
    return start, trans


@dataclass(frozen=True)
class SluPrediction:
    """What the model read in one utterance.

    ``intent`` is the first request's intent (or the OOS label when out of scope), so a
    router written for intent models reads it unchanged; ``parts`` has every request.
    """

    intent: str
    confidence: float
    in_scope: bool
    oos_score: float
    words: tuple[str, ...]
    tags: tuple[str, ...]
    intents: tuple[str, ...]
    parts: tuple[SluPart, ...]
    scores: dict[str, float] = field(default_factory=dict)
    top_intent: str = ""
    # Sure enough for a tool of yours with side effects (the model's stricter floor).
    side_effect_ok: bool = True

    @property
    def slots(self) -> tuple[Slot, ...]:
        """Every slot of every part."""
        return tuple(s for part in self.parts for s in part.slots)


class SluModel:
    """The joint model: ``predict(text)`` -> :class:`SluPrediction`."""

    def __init__(self, folder: Path, manifest: dict[str, Any], session: Any) -> None:
        self.folder = folder
        self.manifest = manifest
        self.intents: list[str] = list(manifest["intents"])
        self.tags: list[str] = list(manifest["tags"])
        self.oos_label = str(manifest.get("oos_label", "oos"))
        threshold = manifest.get("threshold")
        self.threshold = None if threshold is None else float(threshold)
        floor = manifest.get("side_effect_threshold", threshold)
        self.side_effect_threshold = None if floor is None else float(floor)
        self.multi_threshold = float(manifest.get("multi_threshold", MULTI_THRESHOLD))
        self.transitions = with_learned(
            allowed_transitions(self.tags), learned_transitions(folder, len(self.tags))
        )
        self.piecer = WordPiecer(folder / TOKENIZER_FILE)
        self.session = session

    @classmethod
    def is_model_dir(cls, folder: Path) -> bool:
        """Whether ``folder`` holds a joint model (rather than intent heads)."""
        path = Path(folder) / "manifest.json"
        try:
            return bool(json.loads(path.read_text("utf-8")).get("kind") == FORMAT_KIND)
        except (OSError, ValueError):
            return False

    @classmethod
    def load(cls, folder: Path, *, model_file: str = MODEL_FILE, threads: int = 1) -> SluModel:
        """Load a folder written by the trainer.

        Raises:
            IntentModelError: A file is missing or unreadable.
        """
        import onnxruntime as ort

        folder = Path(folder)
        for name in ("manifest.json", model_file, TOKENIZER_FILE):
            if not (folder / name).is_file():
                raise IntentModelError(f"{folder / name}: not found (is {folder} a trained model?)")
        try:
            manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
            if manifest.get("kind") != FORMAT_KIND or manifest.get("format_version") != 1:
                raise IntentModelError(f"{folder}: not a joint intent + slot model")
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
            opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            opts.log_severity_level = 3
            # As the bare encoder (understanding.encoder): one utterance at a time needs no
            # memory arena, and without it `edge-agent ask` peaks ~8 MB lower.
            opts.enable_cpu_mem_arena = False
            session = ort.InferenceSession(
                str(folder / model_file), opts, providers=["CPUExecutionProvider"]
            )
            return cls(folder, manifest, session)
        except IntentModelError:
            raise
        except (KeyError, ValueError, TypeError, OSError, RuntimeError) as exc:
            raise IntentModelError(f"{folder}: unreadable model ({exc})") from exc

    def logits(self, words: Sequence[str]) -> tuple[Any, Any, Any, np.ndarray]:
        """The network alone: word pieces and one ``session.run`` (what a decision costs
        before decoding; ``bench/edge_bench.py`` times it beside the whole decision).

        Returns:
            ``(intent_logits, slot_logits, word_intent_logits, first)`` for one utterance.
        """
        pieces = self.piecer(words)
        ids = pieces.ids[None, :]
        intent_logits, slot_logits, word_intent_logits = self.session.run(
            None, {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        )
        return intent_logits, slot_logits, word_intent_logits, pieces.first

    def run(self, words: Sequence[str]) -> tuple[Decoded, float]:
        """The decoded network outputs for pre-split words, and the OOS score."""
        intent_logits, slot_logits, word_intent_logits, first = self.logits(words)
        decoded = decode(
            intent_logits[0],
            slot_logits[0],
            word_intent_logits[0],
            first,
            self.tags,
            self.transitions,
            multi_threshold=self.multi_threshold,
        )
        return decoded, float(1.0 - decoded.probs.max())

    def predict_words(self, words: Sequence[str]) -> SluPrediction:
        """The prediction for pre-split words (annotated data)."""
        words = list(words)
        if not words:
            return SluPrediction(
                self.oos_label, 0.0, False, 1.0, (), (), (), (), side_effect_ok=False
            )
        decoded, oos_score = self.run(words)
        probs: list[float] = decoded.probs.tolist()
        in_scope = self.threshold is None or oos_score <= self.threshold
        names = [self.intents[i] for i in decoded.intents]
        parts = []
        for k, name in enumerate(names):
            idx = [w for w, o in enumerate(decoded.owners) if o == k]
            slots = tuple(
                Slot(kind, " ".join(words[s:e]), s, e)
                for kind, s, e in spans(decoded.tags)
                if decoded.owners[s] == k
            )
            while len(idx) > 1 and words[idx[-1]].lower() in _JOINERS:
                idx.pop()
            while len(idx) > 1 and words[idx[0]].lower() in _JOINERS:
                idx.pop(0)
            text = " ".join(words[w] for w in idx)
            parts.append(SluPart(name, text, slots, probs[decoded.intents[k]]))
        confidence = max(probs)
        top = self.intents[probs.index(confidence)]
        return SluPrediction(
            intent=names[0] if in_scope else self.oos_label,
            confidence=confidence,
            in_scope=in_scope,
            oos_score=oos_score,
            words=tuple(words),
            tags=tuple(decoded.tags),
            intents=tuple(names),
            parts=tuple(parts),
            scores=dict(zip(self.intents, probs, strict=True)),
            top_intent=top,
            side_effect_ok=in_scope
            and (self.side_effect_threshold is None or oos_score <= self.side_effect_threshold),
        )

    def predict(self, text: str) -> SluPrediction:
        """Split ``text`` into words and predict."""
        return self.predict_words(split_words(text))
