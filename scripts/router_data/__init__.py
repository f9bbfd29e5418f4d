"""The router's training lines, by kind: the variation every line gets (``variation``), the
tools' phrasings (``lookups``, ``commands``, ``notes``, gathered in ``makers`` with the
short plain forms), the cloud's lines (``cloud_lines``), the reads of the kept state and
the qualified commands (``state_reads``), and the build that draws them (``build``).
Run through ``scripts/build_router_data.py``.
"""

from __future__ import annotations
