"""A small MCP server written for the tests: a garden's plant book and its watering can.

Run over stdio by the tests (``python tests/mcp/garden_server.py [--log FILE]``), as a
user runs any MCP server. Its tools cover what the adapter must handle:

- ``plant_info`` (read-only, structured output): how much water a plant needs;
- ``water_plant`` (side effects: appends a line to ``--log``), structured output;
- ``shout`` (read-only, text content only);
- ``wilt`` (read-only) always fails: the result comes back with ``isError``;
- ``doze`` (read-only) sleeps, for timeouts; ``collapse`` (read-only) kills the server;
  ``whoami`` (read-only) names its process.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)
WATER_ML = {"fern": 200, "cactus": 20, "basil": 150}


class PlantInfo(TypedDict):
    plant: str
    ml_per_week: int


class Watered(TypedDict):
    plant: str
    ml: int
    total_ml: int


def build(log: Path | None) -> MCPServer:
    """The server, its watering log at ``log`` (None: kept in memory only)."""
    server = MCPServer("garden")
    poured: dict[str, int] = {}

    @server.tool(annotations=READ_ONLY)
    def plant_info(plant: str) -> PlantInfo:
        """How many millilitres of water a plant needs a week."""
        if plant not in WATER_ML:
            raise ToolError(f"no plant called {plant!r} in the book")
        return {"plant": plant, "ml_per_week": WATER_ML[plant]}

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    def water_plant(plant: str, ml: int) -> Watered:
        """Water a plant with some millilitres of water."""
        poured[plant] = poured.get(plant, 0) + ml
        if log is not None:
            with log.open("a", encoding="utf-8") as out:
                out.write(f"{plant} {ml}\n")
        return {"plant": plant, "ml": ml, "total_ml": poured[plant]}

    @server.tool(annotations=READ_ONLY, structured_output=False)
    def shout(text: str) -> str:
        """Say the text louder."""
        return text.upper() + "!"

    @server.tool(annotations=READ_ONLY)
    def wilt() -> str:
        """Always fails."""
        raise RuntimeError("the plant wilted")

    @server.tool(annotations=READ_ONLY)
    def doze(seconds: float) -> str:
        """Sleep for a while, then answer."""
        time.sleep(seconds)
        return "awake"

    @server.tool(annotations=READ_ONLY)
    def whoami() -> int:
        """The server's process id."""
        return os.getpid()

    @server.tool(annotations=READ_ONLY)
    def collapse() -> str:
        """End the server's process without a word."""
        os._exit(3)

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", type=Path)
    build(parser.parse_args().log).run()
