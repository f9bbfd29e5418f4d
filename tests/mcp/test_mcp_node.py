"""An MCP server written in Node.js with the official TypeScript SDK
(tests/node/mcp_garden_server.mjs) offers its tools through the same adapter: the
cross-language check of names, annotations, structured and text results, and errors."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from react_kernel import ToolExecutor, ToolRegistry
from tests.mcp.conftest import NEEDS_SDK
from understanding.tools.mcp_servers import McpToolError, McpTools

pytest.importorskip("mcp", reason=NEEDS_SDK)


NODE_DIR = Path(__file__).resolve().parents[1] / "node"


@pytest.mark.node
def test_a_node_mcp_server_offers_its_tools(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the Node MCP server test needs Node.js")
    # Missing Node packages are a set-up error, not a reason to skip.
    assert (NODE_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").exists(), (
        "tests/node/node_modules missing: run `python3.11 dev.py setup`"
    )
    log = tmp_path / "watered.log"
    command = shlex.join(["node", str(NODE_DIR / "mcp_garden_server.mjs"), str(log)])
    with McpTools.start([command]) as tools:
        specs = {spec.name: spec for spec in tools.specs}
        # Named after the script (mcp_garden_server.mjs -> garden).
        assert set(specs) == {"mcp_garden_plant_info", "mcp_garden_water_plant"}
        info, water = specs["mcp_garden_plant_info"], specs["mcp_garden_water_plant"]
        assert (info.side_effects, info.needs_approval) == (False, False)
        assert (water.side_effects, water.needs_approval) == (True, True)
        assert water.input_schema["properties"]["ml"]["type"] == "integer"

        registry = ToolRegistry(tools.specs)
        executor = ToolExecutor(registry)
        found = executor.call(info, {"plant": "fern"}, session_id="s1")
        assert found.output == {"plant": "fern", "ml_per_week": 200}, found.error
        poured = executor.call(water, {"plant": "basil", "ml": 150}, session_id="s1")
        assert poured.output == {"text": "watered the basil with 150 ml"}, poured.error
        assert log.read_text() == "basil 150\n"
        assert info.func is not None
        with pytest.raises(McpToolError, match="no plant called rose"):
            info.func({"plant": "rose"})
