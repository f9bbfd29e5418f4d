"""A device tool for the ``restaurant_reservation`` intent of ``examples/clinc150_sample.json``
(README: "Train your own router", then "your own tools"; docs/edge.md, "Your own tools").

    edge-agent train --data examples/clinc150_sample.json --format clinc --out my-router
    edge-agent ask "book a table for four in Rome" --model my-router \\
        --tools examples.booking_tools:TOOLS

The router is intents-only, so the device's readers fill the arguments from the query:
``people`` is an integer (the query's one number, "four"), ``city`` the one known city.
"""

from __future__ import annotations

from typing import Any

from understanding.tools.user import device_tool


def book(args: dict[str, Any]) -> dict[str, Any]:
    """Your code; returns the observation (a real one would call the booking service)."""
    return {
        "booking_id": "b-1",
        "message": f"Booked a table for {args['people']} in {args['city'].title()}.",
    }


TOOLS = [
    device_tool(
        "restaurant_reservation",  # named like the intent the router picks
        "Book a restaurant table for a number of people in a city.",
        {
            "type": "object",
            "required": ["people", "city"],
            "properties": {
                "people": {"type": "integer", "minimum": 1, "maximum": 20},
                "city": {"type": "string"},
            },
        },
        book,
        output_schema={"type": "object", "required": ["booking_id"]},
        side_effects=True,  # a retried ACTION replays, never books twice
        needs_approval=False,  # True: every call waits for a person's yes
        validator=None,  # business rules: args -> reason they are wrong, or None
    )
]
