"""Errors of the intent trainer.

IntentError
 ├── IntentDataError    a training or evaluation file is unusable (names file and line)
 └── IntentModelError   a model folder is missing, incomplete or inconsistent
"""

from __future__ import annotations

__all__ = ["IntentDataError", "IntentError", "IntentModelError"]


class IntentError(Exception):
    """Base class of the intent trainer's errors."""


class IntentDataError(IntentError):
    """A data file or example list cannot be used for training or evaluation."""


class IntentModelError(IntentError):
    """A trained model cannot be loaded."""
