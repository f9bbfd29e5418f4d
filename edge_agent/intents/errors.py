"""The trainers' names for the device's errors (``edge_agent.errors`` holds the one tree).

``IntentError`` is :class:`edge_agent.errors.EdgeError`, ``IntentModelError`` is
:class:`edge_agent.errors.ModelFilesError` (one "model files unusable" error for the
encoder, the router and both trainers' models) and ``IntentDataError`` is the tree's own.
The trainers' modules keep importing these names from here.
"""

from __future__ import annotations

from edge_agent.errors import EdgeError, IntentDataError, ModelFilesError

__all__ = ["IntentDataError", "IntentError", "IntentModelError"]

IntentError = EdgeError
IntentModelError = ModelFilesError
