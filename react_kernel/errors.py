"""The kernel's exceptions, in one tree.

::

    KernelError                      base of everything the kernel raises
    ├── IllegalTransitionError       a state change the state machine does not allow
    ├── SessionError                 a call that does not fit the session's state
    │   └── UnknownActError          approve/deny/provide_observation for an act id not pending
    ├── ResumeError                  a serialised session that cannot be restored
    ├── ToolRegistryError            a duplicate tool name or an invalid tool schema
    ├── CircuitOpenError             a breaker refused a call (raised by ``CircuitBreaker.guard``)
    └── ToolError                    raised by a tool: permanent, never retried
        └── TransientToolError       raised by a tool: retryable (backoff + jitter, <= 2 retries)

Errors that the reasoner can recover from (unparseable output, invalid tool input, a tool
that failed, a denied approval) are never raised: they become ERROR steps or OBSERVATIONs
with an error status and the reasoner sees them on its next turn. Only misuse of the API
(an illegal transition, approving an act that is not pending) raises.
"""

from __future__ import annotations

__all__ = [
    "CircuitOpenError",
    "IllegalTransitionError",
    "KernelError",
    "ResumeError",
    "SessionError",
    "ToolError",
    "ToolRegistryError",
    "TransientToolError",
    "UnknownActError",
]


class KernelError(Exception):
    """Base class of the kernel's exceptions."""


class IllegalTransitionError(KernelError):
    """The state machine does not allow this transition."""

    def __init__(self, from_state: str, to_state: str) -> None:
        super().__init__(f"illegal transition {from_state} -> {to_state}")
        self.from_state = from_state
        self.to_state = to_state


class SessionError(KernelError):
    """The call does not fit the session's current state."""


class UnknownActError(SessionError):
    """No pending action has this act id."""


class ResumeError(KernelError):
    """A serialised session could not be restored."""


class ToolRegistryError(KernelError):
    """A tool could not be registered (duplicate name, invalid schema)."""


class CircuitOpenError(KernelError):
    """A circuit breaker is open and refused the call."""


class ToolError(KernelError):
    """A tool failed permanently; the call is not retried."""


class TransientToolError(ToolError):
    """A tool failed in a way worth retrying (a flaky network, a busy device)."""
