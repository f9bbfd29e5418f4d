"""`edge-agent ui` and `cloud-agent serve --ui-port` as a person runs them: real processes
that print the page's address, serve it, and stop cleanly on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


def _serve_and_fetch(args: list[str], banner: str, env: dict[str, str]) -> tuple[str, str]:
    """Start the command, wait for its page's address on stderr, fetch the page, Ctrl-C."""
    code = f"import sys; from {args[0]}.cli import main; sys.argv = sys.argv[1:]; main()"
    with subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as process:
        try:
            assert process.stderr is not None
            deadline = time.monotonic() + 120
            url = ""
            while not url:
                assert time.monotonic() < deadline, "no address printed"
                line = process.stderr.readline()
                assert line or process.poll() is None, "the command died"
                found = re.search(rf"{banner} (http://127\.0\.0\.1:\d+/)", line)
                url = found.group(1) if found else ""
            page = httpx.get(url, timeout=30)
            assert page.status_code == 200
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            finally:
                if process.poll() is None:
                    process.kill()
        assert process.returncode == 0
        return url, page.text


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "EDGELOOP_HOME": str(tmp_path), "EDGELOOP_UI_TOKEN": ""}


def test_edge_agent_ui_serves_the_device_page(env: dict[str, str]) -> None:
    _, html = _serve_and_fetch(["edge_agent", "ui", "--port", "0"], "edge agent page on", env)
    assert 'sse-connect="/events"' in html and 'id="approvals"' in html
    assert "/static/vendor/htmx.min.js" in html


def test_cloud_agent_serve_ui_port_serves_the_cloud_page(
    env: dict[str, str], tmp_path: Path
) -> None:
    args = ["cloud_agent", "serve", "--port", "0", "--ui-port", "0"]
    args += ["--memory-dir", str(tmp_path / "cloud")]
    _, html = _serve_and_fetch(args, "cloud page on", env)
    assert 'id="backends"' in html and "planner" in html and 'id="charts"' in html


def test_cloud_agent_serve_on_a_busy_ui_port_fails_without_saying_serving(
    env: dict[str, str],
) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = "import sys; from cloud_agent.cli import main; sys.argv = sys.argv[1:]; main()"
        done = subprocess.run(
            [sys.executable, "-c", code, "cloud_agent", "serve", "--port", "0",
             "--ui-port", str(port)],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode != 0
    assert f"cannot serve the page on port {port}" in done.stderr
    assert "serving on" not in done.stderr
