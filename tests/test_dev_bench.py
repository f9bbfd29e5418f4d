"""`python3.11 dev.py bench` (`make bench`): every bench gets what it needs from the clone.

It ran each script bare, so the first, bench/clinc150.py, stopped the run at once on its
required --data (README QA).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

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
