"""Generate the Python protobuf/gRPC code from proto/ (offline, with grpcio-tools' protoc).

The output path mirrors the proto package (``edgeloop.v1`` -> ``edgeloop/v1/``), so the
generated imports resolve as they are and are never rewritten. Only the folders protoc
writes (``edgeloop/v1/``) are generated; the rest of ``edgeloop/`` (its ``__init__`` and
the shared transport, ``edgeloop/transport/``) is hand-written.

    python scripts/gen_proto.py           # regenerate into the repository
    python scripts/gen_proto.py --check   # regenerate into a temp dir, fail on any difference
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
GENERATED_PACKAGE = "edgeloop"
INIT_TEXT = '"""Generated protobuf/gRPC code for the edgeloop protocol. Never edit by hand."""\n'


def generate(out_dir: Path) -> None:
    """Run protoc over every .proto file into ``out_dir`` and add package ``__init__`` files."""
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    well_known = str(resources.files("grpc_tools") / "_proto")
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{well_known}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for package_dir in generated_dirs(out_dir):
        (package_dir / "__init__.py").write_text(INIT_TEXT)
        (package_dir / "py.typed").write_text("")


def generated_dirs(root: Path) -> list[Path]:
    """The folders under ``root/edgeloop`` that hold generated modules (``edgeloop/v1``)."""
    return sorted({p.parent for p in (root / GENERATED_PACKAGE).rglob("*_pb2.py")})


def _tree(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def check() -> int:
    """Regenerate into a temporary folder and report every file that differs."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generate(fresh)
        problems: list[str] = []
        for fresh_dir in generated_dirs(fresh):
            folder = fresh_dir.relative_to(fresh)
            expected, actual = _tree(fresh_dir), _tree(ROOT / folder)
            problems += [f"missing: {folder}/{p}" for p in sorted(expected - actual)]
            problems += [f"unexpected: {folder}/{p}" for p in sorted(actual - expected)]
            for rel in sorted(expected & actual):
                if not filecmp.cmp(fresh_dir / rel, ROOT / folder / rel, shallow=False):
                    problems.append(f"differs: {folder}/{rel}")
    if problems:
        print("gen-check: generated code is out of date or was edited by hand:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        print("run `python3.11 dev.py gen` and commit the result", file=sys.stderr)
        return 1
    print("gen-check: generated code matches proto/")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if regeneration differs")
    options = parser.parse_args()
    if options.check:
        return check()
    generate(ROOT)
    print(f"generated {GENERATED_PACKAGE}/ from proto/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
