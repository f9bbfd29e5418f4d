"""The device's exception tree: every error ``edge_agent`` raises on purpose::

    EdgeError
    ├── ModelFilesError        the encoder's or a router's model files are missing, incomplete
    │                          or unreadable (one error for the encoder, the router, the intent
    │                          and the joint intent + slot models; also a RuntimeError)
    ├── IntentDataError        a training or evaluation data file of ``edge-agent train`` is
    │                          unusable (the message names the file and line)
    ├── EvalFileError          an ``edge-agent eval`` file is missing or a line is malformed
    ├── SettingsError          a setting's key or value is not one the device accepts
    ├── UserToolError          a user tool cannot be loaded or registered
    ├── UiAccessError          the page may not be served as asked (beyond loopback, no token)
    ├── ReceiptNotFoundError   a session has no steps, or no final answer, in memory
    ├── ToolInputError         a built-in tool's input is impossible (the kernel reports it as
    │   ├── CalculatorError    the tool's observation, never as a crash)
    │   └── UnitError
    └── CloudLinkError         the link to the cloud failed
        ├── CloudUnavailableError       unreachable: go offline, keep the query pending
        │   └── CloudStreamBrokenError  it stopped answering in the middle of a stream
        └── CloudRequestError           it refused the request; retrying as is will not help

The errors a user's input causes are also ``ValueError`` (``LookupError`` for a missing
receipt), as they were before this tree, so ``except ValueError`` callers keep working.
The command line maps the tree to one-line messages and exit codes in one place
(:func:`exit_code`, used by ``edge_agent.cli``): 2 for what the user typed or gave as a
file, 1 for everything else. The device's gRPC service maps errors with the transport's
status table (``edgeloop.transport.status``).

This module imports nothing heavy, so the command line can catch the tree for free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import grpc

__all__ = [
    "CalculatorError",
    "CloudLinkError",
    "CloudRequestError",
    "CloudStreamBrokenError",
    "CloudUnavailableError",
    "EdgeError",
    "EvalFileError",
    "IntentDataError",
    "ModelFilesError",
    "QueryError",
    "ReceiptNotFoundError",
    "SettingsError",
    "ToolInputError",
    "UiAccessError",
    "UnitError",
    "UserToolError",
    "exit_code",
]


class EdgeError(Exception):
    """Base class of the device's errors."""


class ModelFilesError(EdgeError, RuntimeError):
    """A model folder or file (encoder, router, intent or slot model) cannot be used."""


class IntentDataError(EdgeError, ValueError):
    """A data file or example list cannot be used for training or evaluation."""


class EvalFileError(EdgeError, ValueError):
    """The eval file is missing or a line is malformed (the message names the line)."""


class SettingsError(EdgeError, ValueError):
    """A setting's key or value is not one the device accepts."""


class UserToolError(EdgeError, ValueError):
    """A user tool that cannot be registered or loaded (the message says why)."""


class UiAccessError(EdgeError, ValueError):
    """The page may not be served as asked (beyond loopback without a token)."""


class QueryError(EdgeError, ValueError):
    """A query that cannot be asked: empty, too long, or holding a NUL character."""


class ReceiptNotFoundError(EdgeError, LookupError):
    """The session has no steps, or no final answer, in memory."""


class ToolInputError(EdgeError, ValueError):
    """A built-in tool cannot compute an answer from its arguments."""


class CalculatorError(ToolInputError):
    """The expression is not valid arithmetic, or its value is out of range."""


class UnitError(ToolInputError):
    """The units measure different things, or a value is impossible (below absolute zero)."""


class CloudLinkError(EdgeError):
    """Base class of the cloud link's errors."""


class CloudUnavailableError(CloudLinkError):
    """The cloud cannot be reached: the edge should go offline and keep the query pending."""


class CloudStreamBrokenError(CloudUnavailableError):
    """The cloud stopped answering in the middle of a stream; the session did not finish."""


class CloudRequestError(CloudLinkError):
    """The cloud refused the request (bad token, limits, rate); retrying as is will not help."""

    def __init__(self, code: grpc.StatusCode, message: str, retry_after_s: float | None = None):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.retry_after_s = retry_after_s


# Errors about what the user typed or pointed at: a usage error's exit code.
_USAGE_ERRORS = (
    IntentDataError,
    EvalFileError,
    SettingsError,
    UserToolError,
    UiAccessError,
)


def exit_code(error: EdgeError) -> int:
    """The command line's exit code for ``error``: 2 for bad input, 1 for the rest."""
    return 2 if isinstance(error, _USAGE_ERRORS) else 1
