"""Words to word pieces and back: the model tags the first piece of every word.

Shared by training and the device, so both cut words the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

__all__ = ["MAX_PIECES", "Pieces", "WordPiecer"]

MAX_PIECES = 128


@dataclass(frozen=True)
class Pieces:
    """One utterance's piece ids and, per word, the index of its first piece.

    ``first[i]`` is -1 for a word cut off by the length limit.
    """

    ids: np.ndarray  # int64 [pieces], with [CLS] and [SEP]
    first: np.ndarray  # int64 [words]


class WordPiecer:
    """Cuts pre-split words into the encoder's word pieces."""

    def __init__(self, tokenizer_path: Path, max_pieces: int = MAX_PIECES) -> None:
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_pieces)

    def __call__(self, words: Sequence[str]) -> Pieces:
        """The pieces of ``words`` (at least one word)."""
        enc = self.tokenizer.encode(list(words), is_pretokenized=True)
        first = np.full(len(words), -1, dtype=np.int64)
        for position, word in enumerate(enc.word_ids):
            if word is not None and first[word] < 0:
                first[word] = position
        return Pieces(np.asarray(enc.ids, dtype=np.int64), first)

    def many(self, batch: Sequence[Sequence[str]]) -> list[Pieces]:
        """Pieces of many utterances (the tokenizer runs them in parallel)."""
        encs = self.tokenizer.encode_batch([list(w) for w in batch], is_pretokenized=True)
        out = []
        for words, enc in zip(batch, encs, strict=True):
            first = np.full(len(words), -1, dtype=np.int64)
            for position, word in enumerate(enc.word_ids):
                if word is not None and first[word] < 0:
                    first[word] = position
            out.append(Pieces(np.asarray(enc.ids, dtype=np.int64), first))
        return out
