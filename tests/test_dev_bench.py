"""`python3.11 dev.py bench` (`make bench`): every bench gets what it needs from the clone.

It ran each script bare, so the first, bench/clinc150.py, stopped the run at once on its
required --data (README QA).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("edgeloop_dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_bench_with_a_required_argument_is_given_it_or_skipped() -> None:
    dev = load_dev()
    for script in sorted((ROOT / "bench").glob("*.py")):
        required = re.findall(
            r'add_argument\(\s*"(--[\w-]+)"[^)]*required=True', script.read_text("utf-8")
        )
        if script.name in dev.BENCH_SKIPPED:
            continue
        given = dev.BENCH_ARGS.get(script.name, [])
        assert set(required) <= set(given), f"bench/{script.name} needs {required}"
    for args in dev.BENCH_ARGS.values():
        for value in args[1::2]:
            assert (ROOT / value).exists(), value  # in the repository, not outside it


def test_the_demo_runs_no_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only `setup` and `test` install the Node test packages (issue 29)."""
    import hashlib

    dev = load_dev()
    calls: list[tuple[object, ...]] = []
    python = tmp_path / "python"
    python.write_text("")
    stamp = tmp_path / "stamp"
    stamp.write_text(hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest())
    monkeypatch.setattr(dev, "PYTHON", python)  # an installed venv: setup has nothing to do
    monkeypatch.setattr(dev, "STAMP", stamp)
    monkeypatch.setattr(dev, "run", lambda *args, **kw: calls.append(args) or 0)
    monkeypatch.setattr(dev, "NODE_DIR", tmp_path / "node")  # no node_modules yet
    monkeypatch.setattr(dev.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(dev.sys, "argv", ["dev.py", "demo"])
    with pytest.raises(SystemExit):
        dev.main()
    assert [c[:2] for c in calls] == [(python, "-m")]  # the demo alone, no npm
    dev.COMMANDS["setup"]([])
    assert [c for c in calls if "npm" in c]  # `dev.py setup` does install them
