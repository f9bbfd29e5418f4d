"""The cloud's metrics count the parser's repairs from the steps they see, once a reply."""

from __future__ import annotations

from prometheus_client import generate_latest

from cloud_agent.metrics import CloudMetrics
from react_kernel import ToolRegistry, ToolSpec, parse_model_output


def test_parser_fallbacks_are_counted_once_per_reply() -> None:
    tools = ToolRegistry(
        [
            ToolSpec(
                "calculator",
                "",
                {
                    "type": "object",
                    "properties": {"expression": {"type": "string"}},
                    "required": ["expression"],
                },
            )
        ]
    )
    metrics = CloudMetrics()
    for reply in ("Thought: sum\nAction: Calculator\nAction Input: 1+2", "Action: calc\n2*3"):
        for step in parse_model_output(reply, tools).steps:
            metrics.observe_step(step)
    text = generate_latest(metrics.registry).decode()
    assert 'edgeloop_parser_fallbacks_total{kind="tool_name_normalized"} 1.0' in text
    assert 'edgeloop_parser_fallbacks_total{kind="input_single_string"} 1.0' in text
    metrics.close()
