"""Human approval: which actions need it, and the record of each decision.

An ACTION whose tool needs approval (``ToolSpec.needs_approval``, or whatever the loop's
``approval_policy`` says) is not run: the loop emits an APPROVAL_REQUEST with the same
act id and waits in ``awaiting_approval``. ``Session.approve(act_id)`` runs the action
exactly once; ``Session.deny(act_id, reason)`` records a REJECTED observation that the
reasoner sees on its next turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from react_kernel.tools import ToolSpec

__all__ = ["ApprovalDecision", "ApprovalPolicy", "default_approval_policy"]

#: Decides whether one call needs a human: ``(spec, arguments) -> bool``.
ApprovalPolicy = Callable[[ToolSpec, dict[str, Any]], bool]


def default_approval_policy(spec: ToolSpec, arguments: dict[str, Any]) -> bool:
    """A call needs approval when its tool says so."""
    return spec.needs_approval


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """A human's decision on one APPROVAL_REQUEST."""

    act_id: str
    approved: bool
    reason: str
    at: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "act_id": self.act_id,
            "approved": self.approved,
            "reason": self.reason,
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ApprovalDecision:
        """Inverse of :meth:`to_dict`."""
        return cls(
            str(data["act_id"]), bool(data["approved"]), str(data["reason"]), str(data["at"])
        )
