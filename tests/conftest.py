"""Shared fixtures: a cloud reasoner on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


class BackgroundServer:
    """Runs an async gRPC server in its own event loop thread, for sync tests."""

    def __init__(self, start) -> None:  # type: ignore[no-untyped-def]
        from edgeloop.transport.loop import EventLoopThread

        self._loop = EventLoopThread()
        self.server, self.port = self._loop.run(start())

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._loop.run(self.server.stop(grace=None))
        self._loop.close()


@pytest.fixture
def cloud_server() -> Iterator[BackgroundServer]:
    """The cloud reasoner service on 127.0.0.1 with a free port (started the one way there
    is, ``cloud_agent.server.serve``; stopping its handle stops everything it started)."""
    from cloud_agent.config import CloudConfig
    from cloud_agent.server import serve

    async def start():  # type: ignore[no-untyped-def]
        cloud = await serve(CloudConfig(port=0))
        return cloud, cloud.port

    server = BackgroundServer(start)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def builtin_slot_model(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A small joint intent + slot model trained (for real, a few dozen steps) on the
    built-in tools' annotated requests (tests/edge/data/builtin_slots.jsonl), once per
    session; any test that needs a joint router may share it."""
    from pathlib import Path

    pytest.importorskip("torch", reason="the train extra (torch) trains the slot model")
    import typer
    from typer.testing import CliRunner

    from understanding.intents.cli import train

    data = Path(__file__).resolve().parent / "edge" / "data" / "builtin_slots.jsonl"
    trainer = typer.Typer()
    trainer.command("train")(train)
    trainer.command("unused")(lambda: None)  # two commands: typer keeps "train" as a name
    out = tmp_path_factory.mktemp("slu-builtin-shared") / "model"
    result = CliRunner().invoke(
        trainer, ["train", "--data", str(data), "--out", str(out), "--epochs", "15", "--json"]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def endpoint() -> Iterator[Any]:
    """An OpenAI-compatible server stand-in on 127.0.0.1 (tests/cloud/openai_stand_in.py)."""
    from tests.cloud.openai_stand_in import ScriptedEndpoint

    server = ScriptedEndpoint()
    yield server
    server.close()
