"""Fixtures for the MCP tests: the garden server written for them, run over stdio."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: The server is a program the tests run, not a test module (importing it needs the SDK).
collect_ignore = ["garden_server.py"]
#: What each test module that runs a server says when the mcp extra is missing.
NEEDS_SDK = "the mcp extra runs MCP servers (pip install 'edgeloop[mcp]')"

SERVER = Path(__file__).resolve().parent / "garden_server.py"


def garden_command(log: Path | None = None, name: str | None = "garden") -> str:
    """``--mcp``'s text for the garden server (this interpreter, its watering log)."""
    argv = [sys.executable, str(SERVER)] + (["--log", str(log)] if log else [])
    command = shlex.join(argv)
    return f"{name}={command}" if name else command


@pytest.fixture(scope="module")
def garden_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("garden") / "watered.log"


@pytest.fixture(scope="module")
def garden(garden_log: Path) -> Iterator[Any]:
    """One garden server for the module's well-behaved calls (started once: an MCP
    server's start costs its interpreter and the SDK's import)."""
    from understanding.tools.mcp_servers import McpTools

    with McpTools.start([garden_command(garden_log)], timeout_s=20.0) as tools:
        yield tools
