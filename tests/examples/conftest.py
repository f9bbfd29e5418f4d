"""A cloud as the examples' READMEs start it: `cloud-agent serve` in its own process on
127.0.0.1, with a token file and a memory folder, one per test module."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The console script's entry point, run by this interpreter (cloud-agent on the PATH may be
# another checkout's).
CLOUD_AGENT = "import sys; from cloud_agent.cli import main; sys.argv[0] = 'cloud-agent'; main()"
TOKENS = {
    "node-token": {"device_id": "node-device", "user_id": "alice"},
    "go-token": {"device_id": "go-client", "user_id": "alice"},
    "py-token": {"device_id": "py-device", "user_id": "alice"},
}


@dataclass(frozen=True)
class ServedCloud:
    """Where the cloud listens and the log it writes."""

    target: str
    log: Path


def _wait_for_port(process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = re.search(r"serving on 127\.0\.0\.1:(\d+)", log.read_text("utf-8", "replace"))
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"cloud-agent serve did not start:\n{log.read_text('utf-8', 'replace')}")


@contextlib.contextmanager
def serve_cloud(home: Path, *options: str) -> Iterator[ServedCloud]:
    """`cloud-agent serve --port 0 --tokens FILE --memory-dir DIR [OPTIONS]` until the end
    of the block (then SIGTERM: it drains and stops)."""
    tokens = home / "tokens.json"
    tokens.write_text(json.dumps({"tokens": TOKENS}))
    tokens.chmod(0o600)
    log = home / "cloud.log"
    args = ["serve", "--port", "0", "--tokens", str(tokens), "--memory-dir", str(home / "memory")]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", CLOUD_AGENT, *args, *options],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ},
        )  # fmt: skip
    try:
        port = _wait_for_port(process, log, timeout_s=120)
        yield ServedCloud(f"127.0.0.1:{port}", log)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture(scope="module")
def served_cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedCloud]:
    """The cloud of the READMEs: planner backend, tokens, memory sync."""
    with serve_cloud(tmp_path_factory.mktemp("cloud")) as cloud:
        yield cloud


@pytest.fixture
def cloud_server() -> Any:
    """``serve_cloud`` for a test that needs a cloud of its own (another backend)."""
    return serve_cloud
