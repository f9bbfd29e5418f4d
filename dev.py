#!/usr/bin/env python3
"""One command surface for the project; needs only Python 3.11 to start.

    python3.11 dev.py demo        # the edge agent with the cloud reasoner on localhost
    python3.11 dev.py test        # gen-check, buf lint/breaking, ruff, mypy, import layers, pytest
    python3.11 dev.py setup | gen | gen-check | lint | bench | proto-baseline

Each command first makes sure that ``.venv`` exists and holds the project (editable, with
its dev extra); it reinstalls only when pyproject.toml changed. Only `setup` and `test`
run npm (the Node packages of the cross-language tests); the demo needs no npm.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / ".edgeloop-installed"
NODE_DIR = ROOT / "tests" / "node"
BASELINE = "proto/baseline.binpb"


def run(*args: str | Path, cwd: Path = ROOT, check: bool = True) -> int:
    """Run a command, echoing it; exit with its code when it fails and ``check`` is set."""
    printable = " ".join(str(a) for a in args)
    print(f"+ {printable}", flush=True)
    code = subprocess.call([str(a) for a in args], cwd=cwd)
    if check and code != 0:
        print(f"dev.py: `{printable}` failed with exit code {code}", file=sys.stderr)
        sys.exit(code)
    return code


def setup() -> None:
    """Create the virtual environment and install the project into it when needed."""
    if sys.version_info < (3, 11):
        sys.exit("dev.py: Python 3.11 or newer is needed (run it with python3.11)")
    if not PYTHON.exists():
        print(f"creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != wanted:
        run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
        run(PYTHON, "-m", "pip", "install", "--quiet", "-e", ".[dev]")
        STAMP.write_text(wanted)


def node_packages() -> None:
    """The Node packages of the cross-language tests (tests/node): only `setup` and
    `test` install them; the demo and the benches need no npm."""
    package, modules = NODE_DIR / "package.json", NODE_DIR / "node_modules"
    wanted = json.loads(package.read_text("utf-8"))["dependencies"] if package.is_file() else {}
    missing = not modules.exists() or any(not (modules / name).exists() for name in wanted)
    if shutil.which("npm") and missing:  # none yet, or package.json gained one
        run("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error", cwd=NODE_DIR)


def tool(name: str) -> Path:
    """A console script installed in the virtual environment."""
    return BIN / name


def gen() -> None:
    run(PYTHON, "scripts/gen_proto.py")


def gen_check() -> None:
    run(PYTHON, "scripts/gen_proto.py", "--check")


def buf_checks() -> None:
    """buf lint, and buf breaking against the committed baseline image and against HEAD."""
    run(tool("buf"), "lint")
    run(tool("buf"), "breaking", "--against", BASELINE)
    if (ROOT / ".git").exists():
        run(tool("buf"), "breaking", "--against", ".git#ref=HEAD")


def lint() -> None:
    run(tool("ruff"), "check", ".")
    run(tool("ruff"), "format", "--check", ".")
    run(tool("mypy"))
    # The layers contract in pyproject.toml: no edge -> cloud, no sync -> edge/cloud imports.
    run(tool("lint-imports"))


def test(extra: list[str]) -> None:
    node_packages()
    gen_check()
    buf_checks()
    lint()
    code = run(PYTHON, "-m", "pytest", *extra, check=False)
    if code == 5:
        sys.exit("dev.py: pytest collected no tests")
    sys.exit(code)


def proto_baseline() -> None:
    """Accept the current proto as the baseline for buf breaking (a deliberate, reviewed step)."""
    run(tool("buf"), "build", "-o", BASELINE)


# What `dev.py bench` gives the benches that need an argument: files in the repository (the
# full CLINC150 is not: examples/clinc150_sample.json is its small run), or a skip, said.
BENCH_ARGS = {
    "clinc150.py": ["--data", "examples/clinc150_sample.json"],
    "clinc150_finetuned.py": ["--data", "examples/clinc150_sample.json"],
    "slot_args.py": ["--model", "understanding/models/router"],
}
BENCH_SKIPPED = {
    "slu.py": "needs SNIPS and MixSNIPS files not in the repository (--data-dir DIR, README)",
}


def bench() -> None:
    """Every bench under bench/, in name order, each with the arguments it needs; a bench
    whose own verdict fails does not stop the others, and the run exits 1 naming it."""
    failed = []
    for script in sorted(ROOT.glob("bench/*.py")):
        if script.name in BENCH_SKIPPED:
            print(f"dev.py: skipping bench/{script.name}: {BENCH_SKIPPED[script.name]}")
            continue
        if run(PYTHON, script, *BENCH_ARGS.get(script.name, []), check=False) != 0:
            failed.append(script.name)
    if failed:
        sys.exit(f"dev.py: benches whose verdict failed: {', '.join(failed)}")


COMMANDS = {
    "setup": lambda extra: node_packages(),
    "gen": lambda extra: gen(),
    "gen-check": lambda extra: gen_check(),
    "lint": lambda extra: (buf_checks(), lint()),
    "test": test,
    "demo": lambda extra: sys.exit(run(PYTHON, "-m", "examples.demo", *extra, check=False)),
    "bench": lambda extra: bench(),
    "proto-baseline": lambda extra: proto_baseline(),
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    setup()
    COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
