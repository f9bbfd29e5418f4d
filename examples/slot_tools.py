"""Tools for the made-up intents of ``examples/slots.jsonl`` (README: train with slots).

    edge-agent train --data examples/slots.jsonl --out slot-model
    edge-agent ask "order two small lattes and then water the ficus with 300 ml" \\
        --model slot-model --tools examples.slot_tools:TOOLS

Each argument takes the slots of its own name (``amount`` says so explicitly with
``x-edgeloop-slots``); the schema's type picks the normaliser.
"""

from __future__ import annotations

from typing import Any

from understanding.tools.user import device_tool


def _coffee(args: dict[str, Any]) -> dict[str, Any]:
    return {"message": f"Ordered {args['count']} {args['size']} {args['drink']}."}


def _water(args: dict[str, Any]) -> dict[str, Any]:
    return {"message": f"Watered the {args['plant']} with {args['amount']} ml."}


def _book(args: dict[str, Any]) -> dict[str, Any]:
    return {"message": f"Table for {args['people']} at {args['time']}."}


TOOLS = [
    device_tool(
        "order_coffee",
        "Order coffee.",
        {
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 1},
                "size": {"type": "string", "enum": ["small", "medium", "large"]},
                "drink": {"type": "string"},
            },
            "required": ["count", "size", "drink"],
        },
        _coffee,
        side_effects=True,
    ),
    device_tool(
        "water_plants",
        "Water a plant.",
        {
            "type": "object",
            "properties": {
                "plant": {"type": "string"},
                "amount": {"type": "integer", "x-edgeloop-slots": ["amount"]},
            },
            "required": ["plant", "amount"],
        },
        _water,
    ),
    device_tool(
        "book_table",
        "Book a table.",
        {
            "type": "object",
            "properties": {
                "people": {"type": "integer"},
                "time": {"type": "string", "format": "time"},
                "restaurant": {"type": "string"},
            },
            "required": ["people", "time"],
        },
        _book,
    ),
]
