"""The device's exception tree: every error ``edge_agent`` raises on purpose::

    EdgeError
    ├── EvalFileError          an ``edge-agent eval`` file is missing or a line is malformed
    ├── ReceiptNotFoundError   a session has no steps, or no final answer, in memory
    └── CloudLinkError         the link to the cloud failed
        ├── CloudUnavailableError       unreachable: go offline, keep the query pending
        │   └── CloudStreamBrokenError  it stopped answering in the middle of a stream
        └── CloudRequestError           it refused the request; retrying as is will not help

The understanding layer's errors (``understanding.errors``: model files, training data,
settings, user tools, tool input) and the page's ``UiAccessError`` (``webui.access``) are
re-exported here; :data:`CLI_ERRORS` is every tree the command line catches.
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

from understanding.errors import (
    CalculatorError,
    IntentDataError,
    ModelFilesError,
    SettingsError,
    ToolInputError,
    UnderstandingError,
    UnitError,
    UserToolError,
)
from webui.access import UiAccessError

if TYPE_CHECKING:
    import grpc

__all__ = [
    "CLI_ERRORS",
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
    "UnderstandingError",
    "UnitError",
    "UserToolError",
    "exit_code",
]


class EdgeError(Exception):
    """Base class of the device's errors."""


class EvalFileError(EdgeError, ValueError):
    """The eval file is missing or a line is malformed (the message names the line)."""


class QueryError(EdgeError, ValueError):
    """A query that cannot be asked: empty, too long, or holding a NUL character."""


class ReceiptNotFoundError(EdgeError, LookupError):
    """The session has no steps, or no final answer, in memory."""


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


# Errors about what the user typed (flags, settings) or gave as a file (training data, an
# eval file, a tools module): exit code 2, as for a usage error.
_USAGE_ERRORS = (
    IntentDataError,
    EvalFileError,
    SettingsError,
    UserToolError,
    UiAccessError,
)


# Every tree the command line turns into one line and an exit code.
CLI_ERRORS = (EdgeError, UnderstandingError, UiAccessError)


def exit_code(error: Exception) -> int:
    """The command line's exit code for ``error``: 2 for bad input, 1 for the rest."""
    return 2 if isinstance(error, _USAGE_ERRORS) else 1
