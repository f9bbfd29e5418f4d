"""Shared fixtures for the sync tests: fresh stores on disk."""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sync import MemoryStore


@pytest.fixture
def embedder() -> Callable[[str], np.ndarray]:
    """A deterministic bag-of-words embedder: each word hashes to one of 64 buckets."""
    return hashing_embedder


def hashing_embedder(text: str) -> np.ndarray:
    vec = np.zeros(64, dtype=np.float32)
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vec[int.from_bytes(digest, "little") % 64] += 1.0
    return vec


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    s = MemoryStore(tmp_path / "memory.db", node_id="edge")
    yield s
    s.close()


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[Callable[..., MemoryStore]]:
    opened: list[MemoryStore] = []

    def make(name: str, **kwargs: Any) -> MemoryStore:
        kwargs.setdefault("node_id", name)
        s = MemoryStore(tmp_path / f"{name}.db", **kwargs)
        opened.append(s)
        return s

    yield make
    for s in opened:
        with contextlib.suppress(Exception):
            s.close()
