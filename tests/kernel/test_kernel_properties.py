"""Property tests for the small pure parts: redaction, sandboxing, similarity, names, Structs."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from react_kernel import (
    CircuitBreaker,
    ToolRegistry,
    ToolSpec,
    from_struct,
    jaccard,
    redact_pii,
    sandbox_arguments,
    to_struct,
)
from react_kernel.safety import luhn_ok
from react_kernel.tools import edit_distance, normalize_tool_name


def luhn_complete(prefix: str) -> str:
    for check in "0123456789":
        if luhn_ok(prefix + check):
            return prefix + check
    raise AssertionError("unreachable")


@given(st.text(alphabet=string.digits, min_size=15, max_size=15), st.sampled_from([" ", "-", ""]))
def test_valid_card_numbers_are_always_redacted(prefix: str, sep: str) -> None:
    number = luhn_complete("4" + prefix[1:])
    grouped = sep.join(number[i : i + 4] for i in range(0, 16, 4))
    assert redact_pii(f"pay with {grouped} today") == "pay with [CARD] today"


@given(
    st.from_regex(r"[a-z][a-z0-9._]{0,10}[a-z0-9]", fullmatch=True),
    st.from_regex(r"[a-z]{2,10}\.(com|org|io|co\.uk)", fullmatch=True),
)
def test_emails_are_always_redacted(user: str, domain: str) -> None:
    assert redact_pii(f"write to {user}@{domain} now") == "write to [EMAIL] now"


@given(st.text(max_size=200))
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_pii(text)
    assert redact_pii(once) == once


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**52), max_value=2**52)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer())
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=6))
def test_struct_round_trip(values: dict[str, Any]) -> None:
    assert from_struct(to_struct(values)) == values


@settings(max_examples=200)
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=5), st.integers(0, 30))
def test_sandbox_caps_every_string(values: dict[str, Any], cap: int) -> None:
    cleaned, _ = sandbox_arguments(values, {"type": "object"}, max_string=cap)

    def strings(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return []

    assert all(len(s) <= cap and s == s.strip() for s in strings(cleaned))
    assert sandbox_arguments(cleaned, {"type": "object"}, max_string=cap)[0] == cleaned


@given(st.text(max_size=60), st.text(max_size=60))
def test_jaccard_is_symmetric_and_bounded(a: str, b: str) -> None:
    assert jaccard(a, b) == jaccard(b, a)
    assert 0.0 <= jaccard(a, b) <= 1.0
    assert jaccard(a, a) == 1.0


words = st.text(alphabet=string.ascii_lowercase + "_", min_size=0, max_size=12)


@given(words, words, words)
def test_edit_distance_is_a_metric(a: str, b: str, c: str) -> None:
    assert edit_distance(a, b) == edit_distance(b, a)
    assert (edit_distance(a, b) == 0) == (a == b)
    # Transpositions make this the restricted Damerau distance, which can break the
    # triangle inequality only through overlapping transpositions; bound it loosely.
    assert edit_distance(a, c) <= edit_distance(a, b) + edit_distance(b, c) + 1
    assert edit_distance(a, b, limit=2) == min(edit_distance(a, b), 3)


NAMES = ["calculator", "unit_convert", "get_weather", "device_control", "set_timer", "add_note"]


@given(st.sampled_from(NAMES), st.sampled_from(["upper", "title", "spaces", "dashes", "ticks"]))
def test_match_tolerates_case_and_separators(name: str, style: str) -> None:
    registry = ToolRegistry([ToolSpec(n, "", {"type": "object"}) for n in NAMES])
    variant = {
        "upper": name.upper(),
        "title": name.replace("_", " ").title(),
        "spaces": name.replace("_", " "),
        "dashes": name.replace("_", "-"),
        "ticks": f"`{name}`",
    }[style]
    assert registry.match(variant) == name
    assert normalize_tool_name(variant) == name


@given(st.text(max_size=20))
def test_match_never_returns_an_unregistered_name(name: str) -> None:
    registry = ToolRegistry([ToolSpec(n, "", {"type": "object"}) for n in NAMES])
    assert registry.match(name) in [*NAMES, None]


@given(st.lists(st.sampled_from(["ok", "fail", "allow"]), max_size=40), st.integers(1, 5))
def test_breaker_opens_exactly_at_the_threshold(events: list[str], threshold: int) -> None:
    breaker = CircuitBreaker(threshold, reset_timeout_s=1e9)
    run = 0
    for event in events:
        if event == "ok":
            breaker.record_success()
            run = 0
        elif event == "fail":
            breaker.record_failure()
            run += 1
        else:
            assert breaker.allow() == (run < threshold)


def test_act_ids_are_uuid4_hex() -> None:
    import uuid

    from react_kernel import new_act_id

    ids = [new_act_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for act_id in ids:
        parsed = uuid.UUID(hex=act_id)
        assert parsed.hex == act_id and parsed.version == 4 and parsed.variant == uuid.RFC_4122
    assert {act_id[16] for act_id in ids} == set("89ab")
