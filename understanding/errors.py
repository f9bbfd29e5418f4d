"""The errors the understanding layer raises on purpose (both agents catch this tree)::

    UnderstandingError
    ├── ModelFilesError        the encoder's or a router's model files are missing, incomplete
    │                          or unreadable (also a RuntimeError)
    ├── IntentDataError        a training or evaluation data file is unusable (the message
    │                          names the file and line)
    ├── SettingsError          a setting's key or value is not one the device accepts
    ├── UserToolError          a user tool cannot be loaded or registered
    └── ToolInputError         a built-in tool's input is impossible (the kernel reports it as
        ├── CalculatorError    the tool's observation, never as a crash)
        └── UnitError

The errors a user's input causes are also ``ValueError``, so ``except ValueError``
callers keep working. This module imports nothing, so a command line can catch the tree
for free.
"""

from __future__ import annotations

__all__ = [
    "CalculatorError",
    "IntentDataError",
    "ModelFilesError",
    "SettingsError",
    "ToolInputError",
    "UnderstandingError",
    "UnitError",
    "UserToolError",
]


class UnderstandingError(Exception):
    """Base class of the understanding layer's errors."""


class ModelFilesError(UnderstandingError, RuntimeError):
    """A model folder or file (encoder, router, intent or slot model) cannot be used."""


class IntentDataError(UnderstandingError, ValueError):
    """A data file or example list cannot be used for training or evaluation."""


class SettingsError(UnderstandingError, ValueError):
    """A setting's key or value is not one the device accepts."""


class UserToolError(UnderstandingError, ValueError):
    """A user tool that cannot be registered or loaded (the message says why)."""


class ToolInputError(UnderstandingError, ValueError):
    """A built-in tool cannot compute an answer from its arguments."""


class CalculatorError(ToolInputError):
    """The expression is not valid arithmetic, or its value is out of range."""


class UnitError(ToolInputError):
    """The units measure different things, or a value is impossible (below absolute zero)."""
