"""The kernel's stores on memory: sessions, steps, receipts and transitions (synced), and
idempotency keys (local to the replica)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC
from typing import Any

from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb
from sync.document import check_id
from sync.errors import InvalidRecordError
from sync.ids import check_text, json_safe, new_record_id
from sync.records import RecordStore
from sync.retention import DEVICE_HISTORY_DAYS, TOMBSTONE_DAYS
from sync.views import epoch_s, iso, now_iso, receipt_from_data, step_from_data


class MemoryStore(RecordStore):
    """A replica's memory: notes, timers, device state, facts, sessions, steps, receipts,
    pending cloud queries, transitions, idempotency keys; recall; CRDT sync.

    Implements the kernel's ``IdempotencyStore`` (``get``/``put``) and ``SessionStore``
    (``save_session``/``load_session``/``append_steps``).

    Opened with the arguments of :class:`~sync.core.StoreCore` (path, embedder, node id,
    clock, compaction, durability, memory map, retention horizons).
    """

    @classmethod
    def device(cls, path: str | os.PathLike[str], **options: Any) -> MemoryStore:
        """A device's store: its synced document keeps history for
        :data:`~sync.retention.DEVICE_HISTORY_DAYS` and tombstones for
        :data:`~sync.retention.TOMBSTONE_DAYS` (its tables keep everything)."""
        options.setdefault("history_days", DEVICE_HISTORY_DAYS)
        options.setdefault("tombstone_days", TOMBSTONE_DAYS)
        return cls(path, **options)

    # ---- sessions, steps, receipts, transitions ------------------------------------

    def record_session(
        self,
        session_id: str,
        *,
        query: str | None = None,
        final_answer: str | None = None,
        success: bool | None = None,
        state: str | None = None,
        device_id: str | None = None,
        created_at: str | None = None,
    ) -> None:
        """Create or update a session's summary; fields left None keep their value."""
        check_id(session_id, "session id")
        with self._lock:
            data = self.get_record("sessions", session_id) or {
                "device_id": "",
                "created_at": now_iso(),
                "query": "",
                "final_answer": None,
                "success": None,
                "state": "",
                "data": None,
            }
            updates = {
                "query": query,
                "final_answer": final_answer,
                "success": success,
                "state": state,
                "device_id": device_id,
                "created_at": created_at,
            }
            for key, value in updates.items():
                if value is not None:
                    data[key] = value
            if created_at is not None:
                epoch_s(created_at)
            self.put_record("sessions", session_id, data)

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        """A session's summary record."""
        return self.get_record("sessions", session_id)

    def save_session(self, session_id: str, data: str) -> None:
        """SessionStore: keep the kernel's serialised session."""
        check_text(data, "session data", allow_empty=True)
        check_id(session_id, "session id")
        with self._lock:
            record = self.get_record("sessions", session_id)
            if record is None:
                self.record_session(session_id)
                record = self.get_record("sessions", session_id) or {}
            record["data"] = data
            self.put_record("sessions", session_id, record)

    def load_session(self, session_id: str) -> str | None:
        """SessionStore: the serialised session, or None."""
        record = self.get_record("sessions", session_id)
        return None if record is None else record.get("data")

    def save_steps(self, session_id: str, steps: Iterable[pb.ReactStep]) -> list[str]:
        """Store steps of a session (re-saving a step replaces it); return their ids."""
        check_id(session_id, "session id")
        prepared = []
        for step in steps:
            if not isinstance(step, pb.ReactStep):
                raise InvalidRecordError(f"not a ReactStep: {type(step).__name__}")
            if step.session_id and step.session_id != session_id:
                raise InvalidRecordError("step belongs to another session")
            created = (
                iso(step.created_at.ToDatetime(UTC)) if step.HasField("created_at") else now_iso()
            )
            step_id = (
                f"{session_id}:{step.turn_id:04d}:{step.step_index:05d}:"
                f"{int(step.step_type)}:{step.act_id}"
            )
            data = {"step": json_format.MessageToDict(step), "created_at": created}
            prepared.append((step_id, data))
        self.put_records("steps", dict(prepared))
        return [step_id for step_id, _ in prepared]

    def append_steps(self, session_id: str, steps: Iterable[pb.ReactStep]) -> None:
        """SessionStore: same as :meth:`save_steps`."""
        self.save_steps(session_id, steps)

    def steps(self, session_id: str) -> list[pb.ReactStep]:
        """A session's steps in order."""
        rows = self._query(
            "SELECT pb FROM steps WHERE session_id = ? ORDER BY turn_id, step_index, id",
            [session_id],
        )
        return [pb.ReactStep.FromString(r[0]) for r in rows]

    def save_receipt(self, receipt: pb.DecisionReceipt) -> str:
        """Store a decision receipt; return its id."""
        if not isinstance(receipt, pb.DecisionReceipt) or not receipt.receipt_id:
            raise InvalidRecordError("a DecisionReceipt with a receipt_id is required")
        created = (
            iso(receipt.created_at.ToDatetime(UTC)) if receipt.HasField("created_at") else now_iso()
        )
        data = {"receipt": json_format.MessageToDict(receipt), "created_at": created}
        return self.put_record("receipts", receipt.receipt_id, data)

    def get_receipt(self, receipt_id: str) -> pb.DecisionReceipt | None:
        """A stored receipt."""
        data = self.get_record("receipts", receipt_id)
        return None if data is None else receipt_from_data(data)

    def record_transition(
        self,
        session_id: str,
        from_state: str,
        to_state: str,
        *,
        duration_ms: float = 0.0,
        input_sha256: str = "",
        at: str | None = None,
    ) -> str:
        """Append one state transition of a session; return its id."""
        data = {
            "session_id": check_id(session_id, "session id"),
            "from_state": str(from_state),
            "to_state": str(to_state),
            "duration_ms": float(duration_ms),
            "input_sha256": str(input_sha256),
            "at": at or now_iso(),
        }
        return self.put_record("transitions", new_record_id(), data)

    def transitions(self, session_id: str) -> list[dict[str, Any]]:
        """A session's transitions in time order."""
        with self._lock:
            return [
                dict(r)
                for r in self.db.table("transitions").rows_where(
                    "session_id = ?", [session_id], order_by="at, id"
                )
            ]

    def step_record(self, step_id: str) -> pb.ReactStep | None:
        """One stored step by its id."""
        data = self.get_record("steps", step_id)
        return None if data is None else step_from_data(data)

    # ---- idempotency (kernel's IdempotencyStore; local to this replica) -------------

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result of an idempotent call, or None."""
        rows = self._query("SELECT result FROM idempotency WHERE key = ?", [key])
        return None if not rows else dict(json.loads(rows[0][0]))

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Remember the result of an idempotent call."""
        check_text(key, "idempotency key")
        if not isinstance(result, dict):
            raise InvalidRecordError("result must be a dict")
        payload = json.dumps(json_safe(result, "result"), sort_keys=True)
        with self._lock, self.db.atomic():
            self.db.execute(
                "INSERT INTO idempotency (key, result, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET result = excluded.result",
                [key, payload, now_iso()],
            )
