"""`edge-agent` errors: one line on stderr and a non-zero exit code, before any model loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from edge_agent.cli import app
from edge_agent.paths import memory_path
from understanding.router import DEFAULT_MODEL_DIR

runner = CliRunner()


def test_empty_query() -> None:
    result = runner.invoke(app, ["ask", "   "])
    assert result.exit_code == 2
    assert "error: the query is empty" in result.output


def test_missing_eval_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 2
    assert "error: no such file" in result.output


def test_malformed_eval_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = {"query": "hi", "route": "edge", "tool": None, "args": None, "expected_value": None}
    path.write_text(json.dumps(good) + "\n{oops\n", encoding="utf-8")
    result = runner.invoke(app, ["eval", str(path), "--json"])
    assert result.exit_code == 2
    assert f"error: {path}:2: not valid JSON" in result.output


def test_bad_cloud_target(tmp_path: Path) -> None:
    if not (DEFAULT_MODEL_DIR / "router.json").is_file():
        pytest.skip("shipped router not built")
    result = runner.invoke(
        app, ["ask", "hello", "--cloud", "nowhere", "--memory", str(tmp_path / "m.db")]
    )
    assert result.exit_code == 2
    assert "HOST:PORT" in result.output


def test_memory_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EDGELOOP_HOME", str(tmp_path))
    assert memory_path() == tmp_path / "edge.db"
    assert memory_path(str(tmp_path / "x.db")) == tmp_path / "x.db"
    monkeypatch.delenv("EDGELOOP_HOME")
    assert memory_path() == Path.home() / ".edgeloop" / "edge.db"


@pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "router.json").is_file(), reason="shipped router not built"
)
def test_ask_json_ends_with_the_final_answer(tmp_path: Path) -> None:
    env = {**os.environ, "EDGELOOP_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "edge_agent", "ask", "what's 15% of 80", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["stepType"] for line in lines] == [
        "STEP_TYPE_THOUGHT",
        "STEP_TYPE_ACTION",
        "STEP_TYPE_OBSERVATION",
        "STEP_TYPE_FINAL_ANSWER",
    ]
    assert lines[-1]["content"] == "15% of 80 = 12."
    assert (tmp_path / "edge.db").is_file()


def test_a_query_too_long_or_with_nul_is_one_line(tmp_path: Path) -> None:
    for query in ["x" * 100_000, "Paris\0\0 and Berlin"]:
        result = runner.invoke(app, ["ask", query, "--memory", str(tmp_path / "m.db")])
        assert result.exit_code == 2
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: the query"), result.output


def test_a_missing_tls_root_is_one_line(tmp_path: Path) -> None:
    if not (DEFAULT_MODEL_DIR / "router.json").is_file():
        pytest.skip("shipped router not built")
    missing = str(tmp_path / "ca.pem")
    result = runner.invoke(
        app,
        [
            "ask",
            "is Tokyo warmer than Seoul",
            "--cloud",
            "127.0.0.1:1",
            "--tls-root",
            missing,
            "--memory",
            str(tmp_path / "m.db"),
        ],
    )
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--tls-root" in lines[0] and missing in lines[0], result.output


def test_pending_says_when_nothing_waits(tmp_path: Path) -> None:
    result = runner.invoke(app, ["pending", "--memory", str(tmp_path / "edge.db")])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "no queries pending"


def test_a_query_of_marks_alone_is_refused_not_kept_pending(tmp_path: Path) -> None:
    memory = tmp_path / "edge.db"
    result = runner.invoke(app, ["ask", "?!", "--memory", str(memory)])
    assert result.exit_code == 2
    assert "error: the query has no words" in result.output
    assert not memory.exists()  # nothing opened, nothing kept


def test_the_device_takes_queries_up_to_the_clouds_limit_and_no_longer() -> None:
    from cloud_agent.config import CloudConfig
    from cloud_agent.security import DEFAULT_MAX_QUERY_CHARS
    from edge_agent.agent import MAX_QUERY_CHARS

    assert MAX_QUERY_CHARS == DEFAULT_MAX_QUERY_CHARS == CloudConfig().max_query_chars
    result = runner.invoke(app, ["ask", "x" * (MAX_QUERY_CHARS + 1)])
    assert result.exit_code == 2
    assert f"the limit is {MAX_QUERY_CHARS}" in result.output


def test_memory_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "edge.db"
    result = runner.invoke(app, ["timers", "--memory", str(missing)])
    assert result.exit_code == 2
    assert f"the folder {missing.parent} does not exist" in result.output
    assert not (tmp_path / "no").exists()


def test_a_negative_history_days_names_the_setting(tmp_path: Path) -> None:
    memory = str(tmp_path / "edge.db")
    result = runner.invoke(app, ["config", "set", "history_days", "-5", "--memory", memory])
    assert result.exit_code == 2
    assert "No such option" not in result.output
    assert "history_days is a whole number of days" in result.output
