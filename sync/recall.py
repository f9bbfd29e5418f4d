"""Recall: search memory with FTS5 (BM25) re-ranked by embeddings and a decay score.

``score = 0.5 ** (age_days / 30) * confidence * relevance``, hits under 0.3 dropped.

- candidates: the best ``candidates`` FTS5 matches by BM25 for the query's terms (any
  term; stop words only when the query has nothing else); at device scale the notes
  with embeddings are also compared directly, so a paraphrase with no shared word is
  still found. Never a scan of every stored vector.
- relevance: the share of the query's terms the text contains; with an embedder, the
  mean of that and the cosine similarity of the stored embedding (clipped at 0).
- confidence: per tool (calculator 0.99, weather 0.95, search 0.72...) or per kind
  (notes 0.9, final answers 0.85), see ``sync.views``.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass

import numpy as np

from sync.views import Embedder

HALF_LIFE_DAYS = 30.0
MIN_SCORE = 0.3
SEMANTIC_NOTE_LIMIT = 5_000
"""Notes are compared by embedding directly only while there are at most this many."""

_TOKEN = re.compile(r"\w+", re.UNICODE)
_STOP_TEXT = (
    "a an and are as at be but by did do does for from had has have how i in is it its me "
    "my of on or our please so tell than that the their them then there these they this to "
    "us was we were what when where which who why will with you your"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One search result."""

    kind: str
    """note, step, answer or fact."""
    record_id: str
    text: str
    score: float
    created_at: str


def query_terms(query: str) -> list[str]:
    """The query's search terms: lower-case words, stop words dropped when others remain."""
    words = list(dict.fromkeys(w.lower() for w in _TOKEN.findall(query)))
    content = [w for w in words if w not in STOP_WORDS]
    return content or words


def fts_expression(terms: list[str]) -> str:
    """An FTS5 query matching any of the terms (each quoted, so no operator injection)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def decay(age_days: float) -> float:
    """The 30-day half-life factor (1.0 for now or the future)."""
    return float(0.5 ** (max(age_days, 0.0) / HALF_LIFE_DAYS))


def search(
    conn: sqlite3.Connection,
    query: str,
    *,
    limit: int = 5,
    embedder: Embedder | None = None,
    candidates: int = 50,
    now_s: float | None = None,
    min_score: float = MIN_SCORE,
    use_embeddings: bool = True,
) -> list[RecallHit]:
    """Search the recall index; best first, at most ``limit`` hits scoring >= min_score."""
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    now = time.time() if now_s is None else now_s
    rows = conn.execute(
        "SELECT r.rid, r.kind, r.record_id, r.text, r.confidence, r.created_at, r.created_s,"
        " r.embedding FROM recall_fts JOIN recall r ON r.rid = recall_fts.rowid"
        " WHERE recall_fts MATCH ? ORDER BY recall_fts.rank LIMIT ?",
        [fts_expression(terms), candidates],
    ).fetchall()
    query_vec = None
    if use_embeddings and embedder is not None:
        vec = np.asarray(embedder(query), dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(vec))
        query_vec = vec / norm if norm > 0 else vec
        seen = {row[0] for row in rows}
        rows.extend(r for r in _semantic_notes(conn, query_vec) if r[0] not in seen)
    term_set = set(terms)
    hits: list[RecallHit] = []
    for _rid, kind, record_id, text, confidence, created_at, created_s, blob in rows:
        words = {w.lower() for w in _TOKEN.findall(text)}
        coverage = len(term_set & words) / len(term_set)
        relevance = coverage
        if query_vec is not None and blob is not None:
            stored = np.frombuffer(blob, dtype=np.float32)
            if stored.shape == query_vec.shape:
                cosine = max(float(stored @ query_vec), 0.0)
                relevance = 0.5 * coverage + 0.5 * cosine
        score = decay((now - created_s) / 86_400.0) * float(confidence) * relevance
        if score >= min_score:
            hits.append(RecallHit(kind, record_id, text, round(score, 6), created_at))
    hits.sort(key=lambda h: (-h.score, h.created_at), reverse=False)
    return hits[:limit]


def _semantic_notes(conn: sqlite3.Connection, query_vec: np.ndarray) -> list[tuple[object, ...]]:
    count = conn.execute(
        "SELECT count(*) FROM recall WHERE source = 'notes' AND embedding IS NOT NULL"
    ).fetchone()[0]
    if not count or count > SEMANTIC_NOTE_LIMIT:
        return []
    rows = conn.execute(
        "SELECT rid, kind, record_id, text, confidence, created_at, created_s, embedding"
        " FROM recall WHERE source = 'notes' AND embedding IS NOT NULL"
    ).fetchall()
    dim = query_vec.shape[0]
    good = [r for r in rows if len(r[7]) == dim * 4]
    if not good:
        return []
    matrix = np.frombuffer(b"".join(r[7] for r in good), dtype=np.float32).reshape(-1, dim)
    sims = matrix @ query_vec
    best = np.argsort(-sims)[:20]
    return [tuple(good[i]) for i in best if sims[i] > 0]
