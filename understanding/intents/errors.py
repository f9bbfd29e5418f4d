"""The trainers' names for the understanding layer's errors (``understanding.errors``).

``IntentError`` is :class:`understanding.errors.UnderstandingError`, ``IntentModelError`` is
:class:`understanding.errors.ModelFilesError` (one "model files unusable" error for the
encoder, the router and both trainers' models) and ``IntentDataError`` is the tree's own.
The trainers' modules keep importing these names from here.
"""

from __future__ import annotations

from understanding.errors import IntentDataError, ModelFilesError, UnderstandingError

__all__ = ["IntentDataError", "IntentError", "IntentModelError"]

IntentError = UnderstandingError
IntentModelError = ModelFilesError
