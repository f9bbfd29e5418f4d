"""Files the cloud is given (issue 26): an existing ``--memory-dir`` is never chmodded
(one open to others is refused in one line), and a token file others may write is
refused, one others may read is loaded with a warning, as ssh does with a key."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cloud_agent.cli import app as cloud_app
from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer
from edgeloop.transport.auth import TokenAuth
from sync.private import OpenFolderError, private_folder


@pytest.fixture(autouse=True)
def _root_log_handlers() -> Iterator[None]:
    before = list(logging.getLogger().handlers)
    yield
    logging.getLogger().handlers[:] = before


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_shared_folder_keeps_its_mode_and_is_refused_in_one_line(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    with pytest.raises(OpenFolderError, match="open to others"):
        private_folder(shared)
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o1777  # sticky bit and all kept
    result = CliRunner().invoke(cloud_app, ["serve", "--port", "0", "--memory-dir", str(shared)])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "open to others" in result.output, result.output
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o1777


def test_a_new_folder_is_made_private_and_a_private_one_is_used_as_is(tmp_path: Path) -> None:
    made = private_folder(tmp_path / "a" / "b")
    assert _mode(made) == 0o700
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    os.chmod(mine, 0o700)
    assert private_folder(mine) == mine and _mode(mine) == 0o700


def _tokens(tmp_path: Path, mode: int) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": {"t0k": {"device_id": "phone", "user_id": "alice"}}}))
    os.chmod(path, mode)
    return path


def test_a_token_file_others_may_write_is_refused(tmp_path: Path) -> None:
    path = _tokens(tmp_path, 0o666)
    with pytest.raises(ValueError, match="others may write"):
        TokenAuth.from_file(path)


def test_a_token_file_others_may_read_is_warned_about(tmp_path: Path) -> None:
    loose = TokenAuth.from_file(_tokens(tmp_path, 0o644))
    assert loose.warnings and "chmod 600" in loose.warnings[0]
    server = CloudServer(CloudConfig(port=0, tokens_file=str(tmp_path / "tokens.json")))
    assert any("readable by others" in w for w in server.exposure_warnings())
    assert not TokenAuth.from_file(_tokens(tmp_path, 0o600)).warnings
