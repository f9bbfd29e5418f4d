"""What the device tools need from the memory store, as a Protocol.

The tools depend on these few methods of ``sync.store.MemoryStore`` rather than on the
class, so they stay testable and the edge package does not import the sync service.
"""

from __future__ import annotations

from typing import Any, Protocol


class ToolMemory(Protocol):
    """The memory store methods that notes, timers and device control use."""

    def add_note(self, text: str, *, source_act_id: str | None = None) -> str: ...

    def search(self, query: str, limit: int = 5) -> list[Any]: ...

    def add_timer(
        self, seconds: int, label: str = "", *, action: dict[str, Any] | None = None
    ) -> dict[str, Any]: ...

    def timers(self, *, active_only: bool = False) -> list[dict[str, Any]]: ...

    def forget(self, kind: str, record_id: str) -> None: ...

    def set_device_state(
        self, device: str, room: str | None, state: dict[str, Any]
    ) -> dict[str, Any]: ...

    def get_device_state(self, device: str, room: str | None) -> dict[str, Any] | None: ...

    def device_states(self) -> list[dict[str, Any]]: ...

    def add_fact(self, entity: str, attribute: str, value: Any) -> str: ...

    def get_record(self, kind: str, record_id: str) -> dict[str, Any] | None: ...

    def notes(self) -> list[dict[str, Any]]: ...

    def delete_note(self, note_id: str) -> None: ...
