"""The record kinds a device keeps for itself: notes, timers, device state, facts and
pending cloud queries, each a small API over the engine's generic records."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sync.document import check_id
from sync.engine import StoreEngine
from sync.errors import InvalidRecordError, RecordNotFoundError
from sync.ids import check_text, json_safe, new_record_id, record_time
from sync.views import iso, now_iso


def _action_json(action: dict[str, Any]) -> str:
    """A scheduled command as the timer keeps it: canonical JSON of ``tool`` + ``arguments``."""
    tool, arguments = action.get("tool"), action.get("arguments", {})
    if not isinstance(tool, str) or not tool.strip() or not isinstance(arguments, dict):
        raise InvalidRecordError("a timer's action needs a tool name and an arguments object")
    safe = json_safe({"tool": tool, "arguments": arguments}, "action")
    return json.dumps(safe, sort_keys=True, separators=(",", ":"))


def _action_of(text: str | None) -> dict[str, Any] | None:
    """The scheduled command a timer row carries, or None for a plain timer."""
    if not text:
        return None
    data = json.loads(text)
    return data if isinstance(data, dict) else None


class RecordStore(StoreEngine):
    """:class:`~sync.engine.StoreEngine` with the methods of the device's own record kinds."""

    # ---- notes ---------------------------------------------------------------------

    def add_note(self, text: str, *, source_act_id: str | None = None) -> str:
        """Store a note; return its id."""
        note_id = new_record_id()
        data = {
            "text": check_text(text, "note text"),
            "source_act_id": source_act_id,
            "created_at": record_time(note_id),
        }
        return self.put_record("notes", note_id, data)

    def update_note(self, note_id: str, text: str) -> None:
        """Replace a note's text."""
        data = self.get_record("notes", note_id)
        if data is None:
            raise RecordNotFoundError(f"no note {note_id!r}")
        data["text"] = check_text(text, "note text")
        self.put_record("notes", note_id, data)

    def delete_note(self, note_id: str) -> None:
        """Forget a note (everywhere, once synced)."""
        self.forget("notes", note_id)

    def notes(self) -> list[dict[str, Any]]:
        """Every note, oldest first: ``note_id``, ``text``, ``source_act_id``, ``created_at``."""
        rows = self._query(
            "SELECT id, text, source_act_id, created_at FROM notes ORDER BY created_at, id"
        )
        return [
            {"note_id": r[0], "text": r[1], "source_act_id": r[2], "created_at": r[3]} for r in rows
        ]

    # ---- timers --------------------------------------------------------------------

    def add_timer(
        self, seconds: int, label: str = "", *, action: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Start a timer; return ``timer_id``, ``fires_at`` (ISO-8601 UTC), ``seconds``,
        ``label`` and ``action``.

        ``action`` (``{"tool": ..., "arguments": {...}}``) makes it a scheduled command:
        a device tool call that runs when the timer is due instead of a ring.
        """
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
            raise InvalidRecordError(f"seconds must be an integer > 0, not {seconds!r}")
        if seconds > 366 * 86_400:
            raise InvalidRecordError("a timer may last at most a year")
        now = datetime.now(UTC)
        timer = {
            "seconds": seconds,
            "label": check_text(label, "label", allow_empty=True),
            "fires_at": iso(now + timedelta(seconds=seconds)),
            "created_at": iso(now),
        }
        if action is not None:
            timer["action"] = _action_json(action)
        timer_id = self.put_record("timers", uuid.uuid4().hex, timer)
        return {"timer_id": timer_id, **timer, "action": action}

    def timers(self, *, active_only: bool = False) -> list[dict[str, Any]]:
        """Timers by firing time; with ``active_only`` those that have not fired yet."""
        sql = "SELECT id, seconds, label, fires_at, created_at, action FROM timers"
        params: list[Any] = []
        if active_only:
            sql += " WHERE fires_at > ?"
            params.append(now_iso())
        rows = self._query(sql + " ORDER BY fires_at, id", params)
        keys = ("timer_id", "seconds", "label", "fires_at", "created_at")
        return [{**dict(zip(keys, r[:5], strict=True)), "action": _action_of(r[5])} for r in rows]

    # ---- rings (local: which timers this replica rang) -------------------------------

    def due_timers(self, now: str) -> list[dict[str, Any]]:
        """Timers due at ``now`` (ISO-8601 UTC) that no process has rung here yet."""
        rows = self._query(
            "SELECT id, seconds, label, fires_at, created_at FROM timers WHERE fires_at <= ?"
            " AND id NOT IN (SELECT timer_id FROM timer_rings) ORDER BY fires_at, id",
            [now],
        )
        keys = ("timer_id", "seconds", "label", "fires_at", "created_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def claim_ring(self, timer: dict[str, Any], outcome: str) -> bool:
        """Claim a due timer for this process (``outcome``: fired, missed or expired); True
        if this call won the claim. One INSERT under SQLite's write lock: of every process
        sharing the file, exactly one wins, once."""
        with self._lock, self.db.atomic():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO timer_rings (timer_id, label, due_at, outcome, rang_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [
                    timer["timer_id"],
                    timer.get("label") or "",
                    timer["fires_at"],
                    outcome,
                    now_iso(),
                ],
            )
            return bool(cursor.rowcount == 1)

    def rings(self, *, unsettled_only: bool = False) -> list[dict[str, Any]]:
        """The timers rung here, latest first; with ``unsettled_only`` those neither
        dismissed nor snoozed (still ringing)."""
        sql = "SELECT timer_id, label, due_at, outcome, rang_at, settled, details FROM timer_rings"
        if unsettled_only:
            sql += " WHERE settled = '' AND outcome IN ('fired', 'missed')"
        rows = self._query(sql + " ORDER BY rang_at DESC, timer_id")
        keys = ("timer_id", "label", "due_at", "outcome", "rang_at", "settled", "details")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def settle_ring(
        self, timer_id: str, settled: str, details: dict[str, Any] | None = None
    ) -> bool:
        """Mark a rung timer dismissed or snoozed (``settled``), with ``details`` merged;
        False if it did not ring here or was settled already."""
        with self._lock, self.db.atomic():
            cursor = self.db.execute(
                "UPDATE timer_rings SET settled = ? WHERE timer_id = ? AND settled = ''",
                [check_text(settled, "settled"), timer_id],
            )
            if details:
                self.note_ring(timer_id, details)
            return bool(cursor.rowcount == 1)

    def note_ring(self, timer_id: str, details: dict[str, Any]) -> None:
        """Merge ``details`` (e.g. what a scheduled command did) into a ring's record."""
        with self._lock, self.db.atomic():
            row = self.db.execute(
                "SELECT details FROM timer_rings WHERE timer_id = ?", [timer_id]
            ).fetchone()
            if row is None:
                return
            merged = {**json.loads(row[0] or "{}"), **json_safe(details, "details")}
            self.db.execute(
                "UPDATE timer_rings SET details = ? WHERE timer_id = ?",
                [json.dumps(merged, sort_keys=True), timer_id],
            )

    # ---- the last sync (local) -------------------------------------------------------

    def note_synced(self, rounds: int, bytes_sent: int, bytes_received: int) -> None:
        """Remember that a sync with the cloud just completed (any process, any client)."""
        summary = {
            "at": now_iso(),
            "rounds": rounds,
            "bytes_sent": bytes_sent,
            "bytes_received": bytes_received,
        }
        with self._lock, self.db.atomic():
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES ('last_sync', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [json.dumps(summary)],
            )

    def last_sync(self) -> dict[str, Any] | None:
        """The last completed sync (``at``, ``rounds``, ``bytes_sent``, ``bytes_received``)."""
        rows = self._query("SELECT value FROM meta WHERE key = 'last_sync'")
        return dict(json.loads(rows[0][0])) if rows else None

    # ---- device state --------------------------------------------------------------

    @staticmethod
    def _device_id(device: str, room: str | None) -> str:
        check_text(device, "device")
        if room is not None:
            check_text(room, "room", allow_empty=True)
        return check_id(f"{device.strip().lower()}@{(room or '').strip().lower()}", "device")

    def set_device_state(
        self, device: str, room: str | None, state: dict[str, Any]
    ) -> dict[str, Any]:
        """Merge ``state`` into the device's state; return ``device``, ``room``, ``state``,
        ``updated_at``."""
        record_id = self._device_id(device, room)
        if not isinstance(state, dict):
            raise InvalidRecordError("state must be an object")
        with self._lock:
            previous = self.get_record("device_state", record_id)
            merged = {**(previous or {}).get("state", {}), **json_safe(state, "state")}
            data = {
                "device": device.strip().lower(),
                "room": room.strip().lower() if room else None,
                "state": merged,
                "updated_at": now_iso(),
            }
            self.put_record("device_state", record_id, data)
        return data

    def get_device_state(self, device: str, room: str | None = None) -> dict[str, Any] | None:
        """The device's state dict, or None if never set."""
        data = self.get_record("device_state", self._device_id(device, room))
        return None if data is None else dict(data["state"])

    def device_states(self) -> list[dict[str, Any]]:
        """Every device state kept, by device and room: ``device``, ``room`` (None for
        the house-wide one), ``state``, ``updated_at``."""
        rows = self._query(
            "SELECT device, room, state, updated_at FROM device_state ORDER BY device, room"
        )
        return [
            {"device": r[0], "room": r[1] or None, "state": json.loads(r[2]), "updated_at": r[3]}
            for r in rows
        ]

    # ---- facts ---------------------------------------------------------------------

    def add_fact(
        self,
        entity: str,
        attribute: str,
        value: Any,
        *,
        source_act_id: str | None = None,
        confidence: float = 1.0,
    ) -> str:
        """Set ``entity.attribute = value`` (one fact per pair); return the fact id."""
        check_text(entity, "entity")
        check_text(attribute, "attribute")
        if not 0.0 <= float(confidence) <= 1.0:
            raise InvalidRecordError("confidence must be within 0..1")
        fact_id = check_id(f"{entity.strip().lower()}/{attribute.strip().lower()}", "fact")
        data = {
            "entity": entity.strip(),
            "attribute": attribute.strip(),
            "value": json_safe(value, "value"),
            "source_act_id": source_act_id,
            "confidence": float(confidence),
            "created_at": now_iso(),
        }
        return self.put_record("facts", fact_id, data)

    def facts(self, entity: str | None = None) -> list[dict[str, Any]]:
        """Facts (of one entity, or all)."""
        out = []
        for fact_id, data in sorted(self.records("facts").items()):
            if entity is None or data["entity"].lower() == entity.strip().lower():
                out.append({"fact_id": fact_id, **data})
        return out

    # ---- pending cloud queries -----------------------------------------------------

    def add_pending(self, query: str, session_id: str) -> str:
        """Record a query the cloud must answer later; return its id."""
        data = {
            "query": check_text(query, "query"),
            "session_id": check_text(session_id, "session id", allow_empty=True),
            "status": "pending",
            "answer": None,
            "created_at": now_iso(),
            "resolved_at": None,
        }
        return self.put_record("pending", uuid.uuid4().hex, data)

    def pending(self) -> list[dict[str, Any]]:
        """Unresolved queries, oldest first: ``pending_id``, ``query``, ``session_id``,
        ``created_at``, ``node`` (the replica that kept it: only that device resolves it)."""
        rows = self._query(
            "SELECT id, query, session_id, created_at, node FROM pending"
            " WHERE status = 'pending' ORDER BY created_at, id"
        )
        keys = ("pending_id", "query", "session_id", "created_at", "node")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def resolve_pending(self, pending_id: str, answer: str) -> None:
        """Mark a pending query answered.

        Raises:
            RecordNotFoundError: no such pending query.
        """
        with self._lock:
            data = self.get_record("pending", pending_id)
            if data is None:
                raise RecordNotFoundError(f"no pending query {pending_id!r}")
            data.update(
                status="resolved", answer=check_text(answer, "answer"), resolved_at=now_iso()
            )
            self.put_record("pending", pending_id, data)

    def get_pending(self, pending_id: str) -> dict[str, Any] | None:
        """A pending query's record (resolved or not)."""
        return self.get_record("pending", pending_id)
