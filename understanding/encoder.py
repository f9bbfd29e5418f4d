"""The device's sentence encoder: all-MiniLM-L6-v2 in ONNX, INT8 by default.

The graph (built by ``scripts/build_encoder.py``) does mean pooling and L2 normalisation
itself, so one ``session.run`` gives a unit vector of 384 floats. Everything here runs on
onnxruntime + tokenizers + numpy: no torch on the device.

Queries are encoded one at a time, without padding. That is how the device routes a
query, and it matters: dynamic INT8 quantization picks its activation scale per run, so a
sentence embedded inside a padded batch is not bit-identical to the same sentence alone.
Training data is therefore embedded exactly like live queries (``embed_many`` loops).

Example::

    >>> enc = Encoder.load()
    >>> enc.embed("turn on the kitchen light").shape
    (384,)
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from understanding.errors import ModelFilesError

__all__ = ["DEFAULT_MODEL_DIR", "DIMENSION", "Encoder"]

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "models" / "encoder"
DIMENSION = 384
MAX_LENGTH = 128
_FILES = {"int8": "model_int8.onnx", "fp32": "model_fp32.onnx"}


class Encoder:
    """Sentence and token embeddings from the shipped ONNX encoder.

    Build it with :meth:`load`; the constructor takes a ready session and tokenizer.
    Safe to share between threads (onnxruntime sessions are; the cache has a lock).
    """

    def __init__(
        self,
        session: ort.InferenceSession,
        tokenizer: Tokenizer,
        *,
        model_path: Path,
        precision: str,
        cache_size: int = 1024,
    ) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self.model_path = model_path
        self.precision = precision
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    @classmethod
    def load(
        cls,
        model_dir: Path | None = None,
        *,
        precision: str = "int8",
        threads: int = 1,
        cache_size: int = 1024,
    ) -> Encoder:
        """Load the encoder from ``model_dir`` (default: the package's ``models/encoder``).

        Args:
            model_dir: Folder holding ``model_int8.onnx``/``model_fp32.onnx`` and
                ``tokenizer.json``.
            precision: ``"int8"`` (the device default, ~4x smaller and faster) or
                ``"fp32"`` (the benchmarks' reference; not shipped: it lives in
                ``build/encoder-fp32``, made by ``scripts/build_encoder.sh --fp32-only``).
            threads: onnxruntime intra-op threads. One thread by default: a single short
                query is too small to gain from more, and the device has other work.
            cache_size: Entries kept in the ``embed`` LRU cache (0 turns it off).

        Raises:
            ModelFilesError: A file is missing or onnxruntime cannot load it.
            ValueError: ``precision`` or ``threads`` is not one the encoder takes.
        """
        if precision not in _FILES:
            raise ValueError(f"precision must be one of {sorted(_FILES)}, not {precision!r}")
        if threads < 1:
            raise ValueError(f"threads must be >= 1, not {threads}")
        folder = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
        model_path = folder / _FILES[precision]
        tokenizer_path = folder / "tokenizer.json"
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise ModelFilesError(f"encoder file not found: {path}")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # One query at a time needs no memory arena: without it peak RSS is ~8 MB lower
        # at the same speed, which matters on a device.
        options.enable_cpu_mem_arena = False
        try:
            session = ort.InferenceSession(
                str(model_path), options, providers=["CPUExecutionProvider"]
            )
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            raise ModelFilesError(f"cannot load encoder from {folder}: {exc}") from exc
        # A single query must not be padded to a fixed length (the upstream tokenizer.json
        # pads to 128); truncation keeps long inputs inside the model's trained range.
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_LENGTH)
        return cls(
            session, tokenizer, model_path=model_path, precision=precision, cache_size=cache_size
        )

    def manifest(self) -> dict[str, Any]:
        """The build manifest next to the model (empty if there is none)."""
        path = self.model_path.parent / "manifest.json"
        if not path.is_file():
            return {}
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def _run(self, text: str, output: str) -> tuple[Any, np.ndarray]:
        enc = self._tokenizer.encode(text)
        feed = {
            "input_ids": np.asarray([enc.ids], dtype=np.int64),
            "attention_mask": np.asarray([enc.attention_mask], dtype=np.int64),
        }
        (result,) = self._session.run([output], feed)
        return enc, np.asarray(result[0], dtype=np.float32)

    def embed(self, text: str) -> np.ndarray:
        """The L2-normalised sentence embedding of ``text``, shape (384,), float32.

        Results are cached (LRU); the returned array is read-only so a caller cannot
        corrupt the cache.
        """
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
        _, vec = self._run(text, "sentence_embedding")
        vec.setflags(write=False)
        if self._cache_size > 0:
            with self._lock:
                self._cache[text] = vec
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return vec

    def embed_layers(self, text: str) -> np.ndarray:
        """Each transformer layer's mean-pooled, normalised output, shape (6, 384).

        The intent heads read these: lower layers keep lexical detail that the last layer
        smooths away, and a linear head over all six is more accurate than over one.
        """
        return self._run(text, "layer_embeddings")[1]

    def embed_layers_many(self, texts: Iterable[str], progress: bool = False) -> np.ndarray:
        """:meth:`embed_layers` for each text, one at a time, shape (n, 6, 384)."""
        items: Sequence[str] = texts if isinstance(texts, Sequence) else list(texts)
        rows = self._many(items, "layer_embeddings", progress)
        return np.stack(rows) if rows else np.empty((0, 6, DIMENSION), dtype=np.float32)

    def _many(self, items: Sequence[str], output: str, progress: bool) -> list[np.ndarray]:
        if isinstance(items, str):
            raise TypeError("expected a sequence of texts, not one string")
        if not progress:
            return [self._run(text, output)[1] for text in items]
        from rich.progress import Progress

        rows = []
        with Progress(transient=True) as bar:
            task = bar.add_task("embedding", total=len(items))
            for text in items:
                rows.append(self._run(text, output)[1])
                bar.advance(task)
        return rows

    def embed_many(self, texts: Iterable[str], progress: bool = False) -> np.ndarray:
        """Embed texts one at a time (exactly as live queries are), shape (n, 384).

        Args:
            texts: The texts.
            progress: Show a rich progress bar (for training on thousands of examples).
        """
        items: Sequence[str] = texts if isinstance(texts, Sequence) else list(texts)
        rows = self._many(items, "sentence_embedding", progress)
        return np.stack(rows) if rows else np.empty((0, DIMENSION), dtype=np.float32)

    def encode_tokens(self, text: str) -> tuple[list[str], list[tuple[int, int]], np.ndarray]:
        """Word pieces, their character offsets in ``text`` and their embeddings.

        For argument taggers. Includes ``[CLS]`` and ``[SEP]`` (offsets ``(0, 0)``).

        Returns:
            ``(tokens, offsets, token_embeddings)`` with embeddings of shape (len, 384).
        """
        enc, hidden = self._run(text, "token_embeddings")
        offsets = [(int(a), int(b)) for a, b in enc.offsets]
        return list(enc.tokens), offsets, hidden
