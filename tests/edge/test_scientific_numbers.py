"""Numbers in scientific notation are read whole (issue 26): "1e308*10" was read as
"308 * 10" (3,080) because the number reader split "1e308" into "1 e 308"."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.edge.slot_filling import arguments_or_cloud
from understanding.arguments import extract_arguments
from understanding.arguments.expressions import calculator_expression, has_scientific

NOW = datetime(2026, 6, 1, 12, 0)


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("what is 2.5e3 + 1", "2.5e3 + 1"),
        ("1e-3 * 2", "1e-3 * 2"),
        ("what is 3E2 times 2", "3e2 * 2"),
        ("what is 12 times 3", "12 * 3"),
    ],
)
def test_scientific_numbers_stay_whole(text: str, expression: str) -> None:
    assert calculator_expression(text) == expression


@pytest.mark.parametrize("text", ["1e308*10", "what is 1e308 * 10"])
def test_an_overflowing_product_is_not_read_as_another_sum(text: str) -> None:
    assert calculator_expression(text) is None  # like "1 / 0": no finite answer to give
    assert extract_arguments("calculator", text) is None


def test_a_tagged_span_without_the_mantissa_is_read_from_the_words() -> None:
    words = "what is 1e308 * 10"
    found = arguments_or_cloud("calculator", words, None, NOW, expression="1e308 * 10")
    assert found[0] == "cloud"  # never {"expression": "308 * 10"}
    words = "what is 2e3 * 10"
    tagged = arguments_or_cloud("calculator", words, None, NOW, expression="* 10")
    assert tagged == {"expression": "2e3 * 10"}


def test_has_scientific() -> None:
    assert has_scientific("1e308") and has_scientific("2.5E-3 + 1")
    assert not has_scientific("the 3 elves") and not has_scientific("e3 board")
