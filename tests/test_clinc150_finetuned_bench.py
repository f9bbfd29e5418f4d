"""bench/clinc150_finetuned.py (issue 30): the fine-tuned encoder beside the frozen winner,
its threshold chosen off the fold it is scored on."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "clinc150_finetuned", ROOT / "bench" / "clinc150_finetuned.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_threshold_is_chosen_off_the_scored_fold() -> None:
    bench = load_bench()
    rng = np.random.default_rng(0)
    gold = ["a"] * 200 + ["oos"] * 40
    score = np.concatenate([rng.uniform(0.0, 0.5, 200), rng.uniform(0.6, 1.0, 40)])
    test = np.zeros(240, dtype=bool)
    test[::5] = True
    clean = bench.fold_metrics(score, gold, ["a"] * 240, test, max_escalation=0.01)
    # In-scope lines of the scored fold made to look out of scope: the threshold must not
    # move (it is chosen on the other lines), and those lines are escalated.
    spoiled = score.copy()
    spoiled[test & (np.asarray(gold) == "a")] = 0.99
    after = bench.fold_metrics(spoiled, gold, ["a"] * 240, test, max_escalation=0.01)
    assert after["threshold"] == clean["threshold"]
    assert clean["in_scope_accuracy"] == 1.0 and clean["oos_recall"] == 1.0
    assert after["in_scope_accuracy"] == 0.0
    assert after["escalated_in_scope"] == 1.0


def test_folds_are_read_or_refused() -> None:
    bench = load_bench()
    assert bench.parse_folds("1:4,0:0") == [(1, 4), (0, 0)]
    with pytest.raises(ValueError, match="CUT:FOLD"):
        bench.parse_folds("0:5")


@pytest.mark.slow
def test_the_bench_fine_tunes_and_scores_a_fold_on_the_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    bench = load_bench()
    out = tmp_path / "figures.json"
    code = bench.main(
        [
            "--data",
            str(ROOT / "examples" / "clinc150_sample.json"),
            "--folds",
            "0:1",
            "--epochs",
            "2",
            "--max-minutes",
            "30",  # never reached: two whole epochs, however loaded the machine
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last == json.loads(out.read_text("utf-8"))
    assert last["folds"] == ["0:1"]
    fine = last["methods"]["finetuned"]
    # 12 intents: chance is 0.08; two epochs of fine-tuning learn far more than that.
    assert fine["in_scope_accuracy_mean"] > 0.3
    assert 0.0 <= fine["oos_recall_mean"] <= 1.0
    run = last["runs"][0]
    assert run["epochs_run"] > 0
    assert set(run) >= {"finetuned", "oos_class+0.5maha", "train_s"}
    assert sys.modules.get("torch") is not None
