"""bench/composed_plans.py composes pairs of the own held-out requests, prints its figures
as the last line, and exits 1 when the planner runs a wrong action (a check that can
fail: a planner that adds a note to every plan makes it fail)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "composed_plans.py"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("composed_plans", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bench_prints_its_figures_last() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--pairs", "40", "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=240,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["n"] == 40 and set(figures) >= {"plan_accuracy", "wrong_actions", "seed"}
    assert done.returncode == (1 if figures["wrong_actions"] else 0)


def test_singles_and_pairs_keep_their_calls() -> None:
    bench = _bench()
    pool = bench.singles(bench.FILES)
    assert len(pool) > 200 and all(call["tool"] in bench.PLANNED for _, call in pool)
    query, calls = bench.compose(
        ("turn on the fan", {"tool": "a"}), ("lock it", {"tool": "b"}), ". "
    )
    assert query == "turn on the fan. Lock it" and calls == [{"tool": "a"}, {"tool": "b"}]


def test_a_wrong_action_fails_the_bench(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    bench = _bench()
    real = bench.run_query

    def with_a_stray_note(*args: Any, **kwargs: Any) -> Any:
        outcome = real(*args, **kwargs)
        outcome.calls.append(("add_note", {"text": "nobody asked for this"}))
        return outcome

    monkeypatch.setattr(bench, "run_query", with_a_stray_note)
    monkeypatch.setattr(sys, "argv", ["composed_plans.py", "--pairs", "5"])
    assert bench.main() == 1
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["wrong_actions"] == 5
