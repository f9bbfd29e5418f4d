"""The docs list the device tools the catalogue has (understanding/tools/catalogue.py),
no more, no fewer, and never give a count that the catalogue no longer has."""

from __future__ import annotations

import re
from pathlib import Path

from understanding.tools.catalogue import DEVICE_TOOLS

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip


def _listed(text: str) -> list[str]:
    block = re.search(r"<!-- device-tools:.*?-->(.*?)<!-- /device-tools -->", text, re.S)
    assert block is not None, "docs/protocol.md lost its device-tools list"
    return re.findall(r"`([a-z_]+)`", block.group(1))


def test_protocol_md_lists_the_catalogues_device_tools_in_its_order() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert _listed(text) == list(DEVICE_TOOLS)
    count = re.search(r"of the cloud's (\w+):\s*<!-- device-tools", text)
    assert count is not None and NUMBERS[count.group(1)] == len(DEVICE_TOOLS)


def test_no_doc_counts_the_device_tools_otherwise() -> None:
    wrong = [w for w, n in NUMBERS.items() if n != len(DEVICE_TOOLS)]
    numbers = "|".join(wrong)
    pattern = re.compile(
        rf"\b(?:all|the)\s+(?:{numbers})\s+device\s+tools\b"
        rf"|device[_ ]tools[^.]{{0,120}}?\ball\s+(?:{numbers})\b",
        re.I,
    )
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = " ".join(path.read_text(encoding="utf-8").split())
        found += [f"{path.name}: {m.group(0)}" for m in pattern.finditer(text)]
    assert not found, found
