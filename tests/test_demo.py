"""The demo (the README's first command) runs end to end and exits 0."""

from __future__ import annotations

import pytest

from examples import demo


def test_demo_walkthrough(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.run_demo() == 0
    out = capsys.readouterr().out
    for expected in (
        "answered on the device",
        "runs on the device",
        "cloud reasoner stopped",
        "pending (cloud offline)",
        "cloud (was pending)",
        "verified",
        "Summary",
    ):
        assert expected in out
