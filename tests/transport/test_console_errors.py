"""Both console scripts report a command-line mistake on one line of stderr, exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    ("edge_agent.cli", ["eval", "x.jsonl", "--no-such-option"], "No such option"),
    ("edge_agent.cli", ["ask"], "Missing argument"),
    ("cloud_agent.cli", ["serve", "--port", "notanumber"], "not a valid int"),
]


@pytest.mark.parametrize(("module", "args", "says"), CASES)
def test_a_usage_error_is_one_line(module: str, args: list[str], says: str) -> None:
    prog = "edge-agent" if module.startswith("edge") else "cloud-agent"
    code = f"import sys; from {module} import main; sys.argv = [{prog!r}, *sys.argv[1:]]; main()"
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"{prog}: ") and says in lines[0]
    assert result.stdout == ""


def test_help_still_exits_zero() -> None:
    code = "import sys; from cloud_agent.cli import main; sys.argv[0] = 'cloud-agent'; main()"
    result = subprocess.run(
        [sys.executable, "-c", code, "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "serve" in result.stdout
