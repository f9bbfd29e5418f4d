"""Recall: search memory with FTS5 (BM25) re-ranked by embeddings and a decay score.

``score = 0.5 ** (age_days / 30) * confidence * relevance``, hits under 0.3 dropped.

- candidates: the ``candidates`` (30) most recent FTS5 matches with every query term,
  topped up with matches of any term when fewer than ``limit`` texts have them all
  (stop words count only when the query has nothing else);
  while there are at most 5,000 notes, the notes are also compared by embedding (one
  cached matrix), so a paraphrase with no shared word is still found. Never a scan of
  every stored vector: steps are only ever re-ranked.
- relevance: lexical = mean of the share of the query's terms the text contains and its
  BM25 (k1 1.2, b 0.75, IDF from cached document frequencies) relative to the best
  candidate's; with an embedder, the mean of lexical and the cosine similarity of the
  stored embedding (clipped at 0).
- confidence: per tool (calculator 0.99, weather 0.95, search 0.72...) or per kind
  (notes 0.9, final answers 0.85), see ``sync.views``.
"""

from __future__ import annotations

import math
import re
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sync.searchable import Embedder

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


def decay(age_days: float) -> float:
    """The 30-day half-life factor (1.0 for now or the future)."""
    return float(0.5 ** (max(age_days, 0.0) / HALF_LIFE_DAYS))


class NoteVectors:
    """The embeddings of the notes, as one matrix, cached until the store changes."""

    def __init__(self) -> None:
        self._version = -1
        self._rows: list[tuple[Any, ...]] = []
        self._matrix: np.ndarray | None = None

    def nearest(
        self, conn: sqlite3.Connection, version: int, query_vec: np.ndarray, k: int = 20
    ) -> list[tuple[Any, ...]]:
        """Rows of the ``k`` notes closest to the query (positive cosine only)."""
        if version != self._version:
            self._load(conn, query_vec.shape[0])
            self._version = version
        if self._matrix is None:
            return []
        sims = self._matrix @ query_vec
        best = np.argsort(-sims)[:k]
        return [self._rows[i] for i in best if sims[i] > 0]

    def _load(self, conn: sqlite3.Connection, dim: int) -> None:
        self._rows, self._matrix = [], None
        count = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM recall WHERE source = 'notes' LIMIT ?)",
            [SEMANTIC_NOTE_LIMIT + 1],
        ).fetchone()[0]
        if not count or count > SEMANTIC_NOTE_LIMIT:
            return
        rows = conn.execute(
            "SELECT rid, kind, record_id, text, confidence, created_at, created_s, embedding"
            " FROM recall WHERE source = 'notes' AND embedding IS NOT NULL"
        ).fetchall()
        good = [r for r in rows if len(r[7]) == dim * 4]
        if good:
            self._rows = good
            blob = b"".join(r[7] for r in good)
            self._matrix = np.frombuffer(blob, dtype=np.float32).reshape(-1, dim)


# Candidates are the most recent matches: FTS5 streams them in rowid order and stops at
# the limit, so the cost does not grow with the number of matches. FTS5's own rank does
# not scale here: ``ORDER BY rank`` scores every match, and bm25() first counts every
# document of each term for its IDF (~1 ms per 25k documents, per query). BM25 is
# computed below over the candidates, with document frequencies cached in TermStats.
# The text is the recall row's own (the FTS5 index keeps no copy: external content).
_CANDIDATES_SQL = (
    "SELECT r.rid, r.kind, r.record_id, r.text, r.confidence, r.created_at, r.created_s,"
    " r.embedding FROM (SELECT rowid FROM recall_fts WHERE recall_fts MATCH ?"
    " ORDER BY rowid DESC LIMIT ?) f JOIN recall r ON r.rid = f.rowid"
)
BM25_K1 = 1.2
BM25_B = 0.75


class TermStats:
    """Document frequencies per term and the number of texts, cached between queries.

    A term's count is re-read after ``refresh_every`` store versions (writes), so BM25's
    IDF follows the store without walking a common term's document list on each query.
    """

    def __init__(self, refresh_every: int = 1_000, max_terms: int = 50_000) -> None:
        self._refresh = refresh_every
        self._max = max_terms
        self._df: dict[str, tuple[int, int]] = {}
        self._total: tuple[int, int] = (-(10**9), 0)

    def total(self, conn: sqlite3.Connection, version: int) -> int:
        """About how many texts are indexed (the greatest rowid)."""
        if version - self._total[0] >= self._refresh or version < self._total[0]:
            row = conn.execute("SELECT coalesce(max(rid), 0) FROM recall").fetchone()
            self._total = (version, int(row[0]))
        return self._total[1]

    def doc_freq(self, conn: sqlite3.Connection, term: str, version: int) -> int:
        """How many texts contain ``term``."""
        cached = self._df.get(term)
        if cached is not None and 0 <= version - cached[0] < self._refresh:
            return cached[1]
        row = conn.execute("SELECT doc FROM recall_vocab WHERE term = ?", [term]).fetchone()
        count = 0 if row is None else int(row[0])
        if len(self._df) >= self._max:
            self._df.clear()
        self._df[term] = (version, count)
        return count


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _candidates(
    conn: sqlite3.Connection, terms: list[str], limit: int, candidates: int
) -> list[tuple[Any, ...]]:
    quoted = [_quote(t) for t in terms]
    rows = conn.execute(_CANDIDATES_SQL, [" ".join(quoted), candidates]).fetchall()
    if len(rows) < limit and len(terms) > 1:
        seen = {row[0] for row in rows}
        more = conn.execute(_CANDIDATES_SQL, [" OR ".join(quoted), candidates]).fetchall()
        rows.extend(r for r in more if r[0] not in seen)
    return rows


def search(
    conn: sqlite3.Connection,
    query: str,
    *,
    limit: int = 5,
    embedder: Embedder | None = None,
    candidates: int = 30,
    now_s: float | None = None,
    min_score: float = MIN_SCORE,
    note_vectors: NoteVectors | None = None,
    term_stats: TermStats | None = None,
    version: int = 0,
) -> list[RecallHit]:
    """Search the recall index; best first, at most ``limit`` hits scoring >= min_score.

    Candidates: the most recent ``candidates`` texts with every term (FTS5), topped up
    with texts with any term when fewer than ``limit`` have them all; with an embedder and
    ``note_vectors``, also the notes nearest by embedding.
    """
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    now = time.time() if now_s is None else now_s
    rows = _candidates(conn, terms, limit, candidates)
    query_vec = None
    if embedder is not None:
        vec = np.asarray(embedder(query), dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(vec))
        query_vec = vec / norm if norm > 0 else vec
        if note_vectors is not None:
            seen = {row[0] for row in rows}
            near = note_vectors.nearest(conn, version, query_vec)
            rows.extend(r for r in near if r[0] not in seen)
    if not rows:
        return []
    term_set = set(terms)
    cosines: list[float | None] = [None] * len(rows)
    if query_vec is not None:
        dim_bytes = query_vec.shape[0] * 4
        with_vec = [i for i, r in enumerate(rows) if r[7] is not None and len(r[7]) == dim_bytes]
        if with_vec:
            blob = b"".join(rows[i][7] for i in with_vec)
            sims = np.frombuffer(blob, dtype=np.float32).reshape(len(with_vec), -1) @ query_vec
            for i, sim in zip(with_vec, sims.tolist(), strict=True):
                cosines[i] = max(sim, 0.0)
    stats = term_stats or TermStats()
    total = max(stats.total(conn, version), 1)
    idf = {}
    for term in terms:
        df = stats.doc_freq(conn, term, version)
        idf[term] = math.log(1.0 + (total - df + 0.5) / (df + 0.5))
    lengths: list[int] = []
    matched: list[dict[str, int]] = []
    findall = _TOKEN.findall
    for row in rows:
        words = findall(row[3].lower())
        counts: dict[str, int] = {}
        for term in terms:  # list.count runs in C: a few calls instead of a loop per word
            n = words.count(term)
            if n:
                counts[term] = n
        lengths.append(len(words))
        matched.append(counts)
    avg_len = max(sum(lengths) / len(lengths), 1.0)
    bm25 = []
    k1_plus_1 = BM25_K1 + 1
    for length, counts in zip(lengths, matched, strict=True):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / avg_len)
        bm25.append(sum(idf[t] * n * k1_plus_1 / (n + norm) for t, n in counts.items()))
    best_bm25 = max(bm25) or 1.0
    n_terms = len(term_set)
    hits: list[RecallHit] = []
    for row, cosine, counts, score_bm25 in zip(rows, cosines, matched, bm25, strict=True):
        # Lexical relevance: share of the query's terms, and BM25 relative to the best.
        relevance = 0.5 * (len(counts) / n_terms) + 0.5 * score_bm25 / best_bm25
        if cosine is not None:
            relevance = 0.5 * relevance + 0.5 * cosine
        age_days = (now - row[6]) / 86_400.0
        score = 0.5 ** (max(age_days, 0.0) / HALF_LIFE_DAYS) * float(row[4]) * relevance
        if score >= min_score:
            hits.append(RecallHit(row[1], row[2], row[3], round(score, 6), row[5]))
    hits.sort(key=lambda h: (-h.score, h.created_at))
    return hits[:limit]


def search_index_matches(conn: sqlite3.Connection) -> bool:
    """True if the full-text index holds exactly the texts of the recall rows.

    Compares FTS5's term counts with those of an index rebuilt from the rows, inside
    a savepoint that is rolled back (SQLite 3.40's ``integrity-check`` does not compare
    an external-content index with its content). Costs a rebuild: a check for tests
    and repairs, not for every query.
    """
    vocab = "SELECT term, doc, cnt FROM recall_vocab ORDER BY term"
    current = conn.execute(vocab).fetchall()
    conn.execute("SAVEPOINT search_index_check")
    try:
        conn.execute("INSERT INTO recall_fts (recall_fts) VALUES ('rebuild')")
        rebuilt = conn.execute(vocab).fetchall()
    finally:
        conn.execute("ROLLBACK TO search_index_check")
        conn.execute("RELEASE search_index_check")
    return bool(current == rebuilt)
