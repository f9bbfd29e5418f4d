"""Your own tools for your own router (issue 7): registered, routed, filled, run on the device.

A small router is trained here on a few synthetic examples with the real INT8 encoder
(a few seconds); its intents are served by tools defined in this file.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from edge_agent.agent import EdgeAgent
from edge_agent.cli import app
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolSpec
from react_kernel.steps import from_struct
from sync.store import MemoryStore
from understanding.arguments.schema import fill_from_schema, filler_of
from understanding.encoder import Encoder
from understanding.intents import Example, IntentModel, train_model
from understanding.router import Router
from understanding.tools.user import (
    UserToolError,
    check_tool,
    device_tool,
    entry_point_tools,
    load_tools,
)

INTENTS = {
    "book_table": [
        "book a table for two in paris",
        "reserve a table for four people in rome",
        "get me a dinner reservation for three in london",
        "i need a table for six in tokyo tonight",
        "book us a restaurant table for five in madrid",
        "make a reservation for two at a restaurant in berlin",
        "can you book a table for eight in seoul",
        "reserve dinner for two in sydney",
        "table for four in amsterdam please",
        "book a lunch table for three people in chicago",
        "find us a table for seven in lagos",
        "reservation for 2 in cairo",
    ],
    "water_plants": [
        "water the plants",
        "turn on the garden sprinklers",
        "give the plants some water",
        "start watering the garden",
        "the plants need watering",
        "water the tomatoes",
        "run the sprinkler in the garden",
        "water my balcony plants please",
        "irrigate the flower beds",
        "please water the lawn",
    ],
    "oos": [
        "who wrote war and peace",
        "explain quantum entanglement",
        "write a poem about autumn",
        "what is the capital of peru",
        "summarize the french revolution",
        "how do i file my taxes",
        "recommend a good novel",
        "translate hello into german",
        "what's the weather in paris",
        "set a timer for ten minutes",
    ],
}

BOOK_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "people": {"type": "integer", "minimum": 1, "maximum": 20},
        "city": {"type": "string"},
    },
    "required": ["people", "city"],
    "additionalProperties": False,
}
BOOK_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"booking_id": {"type": "string"}, "message": {"type": "string"}},
    "required": ["booking_id", "message"],
}


class Restaurant:
    """The user's own code: books tables (here, records the calls)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def book(self, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(dict(args))
        booking = f"b-{len(self.calls)}"
        return {
            "booking_id": booking,
            "message": f"Booked a table for {args['people']} in {args['city'].title()}.",
        }


def water(args: dict[str, Any]) -> dict[str, Any]:
    return {"watering": True}


def tools(restaurant: Restaurant) -> list[ToolSpec]:
    return [
        device_tool(
            "book_table",
            "Book a restaurant table for a number of people in a city.",
            BOOK_INPUT,
            restaurant.book,
            output_schema=BOOK_OUTPUT,
            side_effects=True,
        ),
        device_tool(
            "water_plants",
            "Water the garden.",
            {"type": "object", "properties": {}},
            water,
            side_effects=True,
        ),
    ]


@pytest.fixture(scope="module")
def router_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("my-router")
    examples = [
        Example(text, intent, f"synthetic:{i}")
        for intent, texts in INTENTS.items()
        for i, text in enumerate(texts)
    ]
    train_model(examples, None, out, encoder=Encoder.load(), max_escalation=0.0)
    return out


@pytest.fixture
def restaurant() -> Restaurant:
    return Restaurant()


@pytest.fixture
def agent(router_dir: Path, restaurant: Restaurant, tmp_path: Path) -> Iterator[EdgeAgent]:
    store = MemoryStore(tmp_path / "edge.db")
    yield EdgeAgent(store, Router.load(router_dir, tools=tools(restaurant)))
    store.close()


def test_a_user_tool_runs_on_the_device_with_schema_valid_arguments(
    agent: EdgeAgent, restaurant: Restaurant
) -> None:
    steps = list(agent.ask("could you book a table for four in Rome"))
    kinds = [s.step_type for s in steps]
    assert kinds == [
        pb.STEP_TYPE_THOUGHT,
        pb.STEP_TYPE_ACTION,
        pb.STEP_TYPE_OBSERVATION,
        pb.STEP_TYPE_FINAL_ANSWER,
    ]
    action = steps[1]
    args = from_struct(action.arguments)
    assert action.tool == "book_table" and action.origin == pb.ORIGIN_EDGE
    assert args == {"people": 4, "city": "rome"}
    assert not list(Draft202012Validator(BOOK_INPUT).iter_errors(args))
    assert restaurant.calls == [{"people": 4, "city": "rome"}]
    assert steps[2].status == pb.OBSERVATION_STATUS_OK
    assert steps[-1].content == "Booked a table for 4 in Rome."


def test_a_tool_that_acts_runs_only_above_the_side_effect_floor(
    router_dir: Path, restaurant: Restaurant
) -> None:
    query = "could you book a table for four in Rome"
    router = Router.load(router_dir, tools=tools(restaurant))
    assert router.decide(query).route == "edge"
    model = router.model
    assert isinstance(model, IntentModel)
    model.side_effect_threshold = model.threshold - 1e6  # a floor no query clears
    decision = router.decide(query)
    assert decision.route == "cloud" and decision.tool is None
    assert "side-effect floor" in decision.reason
    lookup = [
        device_tool("book_table", "Find a table.", BOOK_INPUT, restaurant.book, side_effects=False)
    ]
    looked_up = Router.load(router_dir, tools=lookup)
    looked_up.model.side_effect_threshold = model.side_effect_threshold  # type: ignore[attr-defined]
    assert looked_up.decide(query).route == "edge"  # the floor is for tools that act


def test_a_user_tool_without_arguments_runs_too(agent: EdgeAgent) -> None:
    steps = list(agent.ask("please water the plants"))
    assert steps[1].tool == "water_plants"
    assert steps[-1].content == "Done (water plants): watering: True."


def test_a_missing_required_argument_goes_to_the_cloud(
    agent: EdgeAgent, restaurant: Restaurant
) -> None:
    decision = agent.router.decide("book a table in Rome")
    assert decision.route == "cloud" and decision.intent == "book_table"
    assert "'people'" in decision.reason
    steps = list(agent.ask("book a table in Rome"))  # no cloud configured: kept pending
    assert steps[0].metadata["route"] == "cloud"
    assert "'people'" in steps[0].metadata["reason"]
    assert steps[-1].metadata["offline"] == "true"
    assert all(s.step_type != pb.STEP_TYPE_ACTION for s in steps)
    assert restaurant.calls == []


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("book a table for 2 or 3 in Rome", "'people'"),  # two numbers: never pick one
        ("book a table for four people", "'city'"),
        ("book a table for forty in Rome", "maximum"),  # the schema's own bounds
        ("book a table for two in Paris, Nevada", "Paris, Nevada"),
    ],
)
def test_arguments_that_cannot_be_filled_validly_escalate(
    agent: EdgeAgent, query: str, why: str
) -> None:
    decision = agent.router.decide(query)
    assert decision.route == "cloud", decision
    assert why in decision.reason


def test_intents_without_a_tool_still_go_to_the_cloud(router_dir: Path) -> None:
    decision = Router.load(router_dir).decide("book a table for two in paris")
    assert decision.route == "cloud"
    assert decision.reason == "intent 'book_table' has no device tool"


def test_tool_names_are_checked(restaurant: Restaurant) -> None:
    with pytest.raises(UserToolError, match="built-in"):
        device_tool("calculator", "mine", {"type": "object"}, water)
    with pytest.raises(UserToolError, match="invalid tool name"):
        device_tool("Book Table", "mine", {"type": "object"}, water)
    with pytest.raises(UserToolError, match="invalid input schema"):
        device_tool("bad", "mine", {"type": "objekt"}, water)
    with pytest.raises(UserToolError, match="no function"):
        check_tool(ToolSpec("remote", "x", {"type": "object"}, executor="cloud"))
    router = Router(object(), tools=tools(restaurant))  # type: ignore[arg-type]
    with pytest.raises(UserToolError, match="already registered"):
        router.add_tool(tools(restaurant)[0])


def test_approval_and_side_effect_flags_are_the_kernels(tmp_path: Path, router_dir: Path) -> None:
    spec = device_tool("water_plants", "Water.", {"type": "object"}, water, needs_approval=True)
    store = MemoryStore(tmp_path / "edge.db")
    try:
        agent = EdgeAgent(store, Router.load(router_dir, tools=[spec]))
        steps = list(agent.ask("water the plants"))
        assert steps[-1].step_type == pb.STEP_TYPE_APPROVAL_REQUEST
        final = agent.approve(steps[-1].session_id, steps[-1].act_id, True)[-1]
        assert final.content == "Done (water plants): watering: True."
    finally:
        store.close()


# -- the schema-driven readers -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "schema", "filler"),
    [
        ("people", {"type": "integer"}, "number"),
        ("amount", {"type": "number"}, "number"),
        ("seconds", {"type": "integer"}, "duration"),
        ("city", {"type": "string"}, "city"),
        ("day", {"type": "string", "enum": ["today", "tomorrow"]}, "day"),
        ("station", {"type": "string", "enum": ["jazz", "news"]}, "enum"),
        ("message", {"type": "string"}, "text"),
        ("colour", {"type": "string"}, None),
        ("wait", {"type": "integer", "x-edgeloop-filler": "duration"}, "duration"),
        ("dest", {"type": "string", "x-edgeloop-filler": "city"}, "city"),
        ("flag", {"type": "boolean"}, None),
    ],
)
def test_filler_of(name: str, schema: dict[str, Any], filler: str | None) -> None:
    assert filler_of(name, schema) == filler


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def test_fill_from_schema_reads_each_kind() -> None:
    radio = _schema(
        {
            "station": {"type": "string", "enum": ["jazz", "classic_rock", "news"]},
            "minutes": {"type": "integer", "minimum": 1},
        },
        ["station"],
    )
    assert fill_from_schema(radio, "play classic rock for twenty minutes").arguments == {
        "station": "classic_rock",
        "minutes": 20,
    }
    assert fill_from_schema(radio, "play the news").arguments == {"station": "news"}
    assert fill_from_schema(radio, "play jazz or news").arguments is None  # two values
    snooze = _schema({"seconds": {"type": "integer", "exclusiveMinimum": 0}}, ["seconds"])
    assert fill_from_schema(snooze, "snooze for an hour and a half").arguments == {"seconds": 5400}
    outfit = _schema(
        {"city": {"type": "string"}, "day": {"type": "string", "enum": ["today", "tomorrow"]}},
        ["city", "day"],
    )
    assert fill_from_schema(outfit, "what should I wear in Cairo, Egypt tomorrow").arguments == {
        "city": "cairo",
        "day": "tomorrow",
    }
    assert fill_from_schema(outfit, "what to wear in Narnia").arguments is None
    say = _schema({"message": {"type": "string"}}, ["message"])
    assert fill_from_schema(say, 'please text Sam "running late"').arguments == {
        "message": "running late"
    }


def test_fill_from_schema_never_guesses() -> None:
    two = _schema({"width": {"type": "number"}, "height": {"type": "number"}}, ["width"])
    filled = fill_from_schema(two, "a frame 30 wide")
    assert filled.arguments is None and "several numeric" in filled.reason
    unknown = _schema({"colour": {"type": "string"}}, ["colour"])
    filled = fill_from_schema(unknown, "paint it blue")
    assert filled.arguments is None and "no reader" in filled.reason
    optional = _schema({"colour": {"type": "string"}, "count": {"type": "integer"}}, [])
    assert fill_from_schema(optional, "paint it blue").arguments == {}
    whole = _schema({"count": {"type": "integer"}}, ["count"])
    assert fill_from_schema(whole, "two and a half").arguments is None  # not an integer


def test_fill_from_schema_applies_the_tools_rules() -> None:
    schema = _schema({"people": {"type": "integer"}}, ["people"])
    filled = fill_from_schema(
        schema, "a table for 13", lambda a: "no table for 13" if a["people"] == 13 else None
    )
    assert filled.arguments is None and "no table for 13" in filled.reason


# -- loading tools: --tools MODULE:ATTR and the edgeloop.tools entry points ------------------

TOOLS_MODULE = textwrap.dedent(
    """
    from understanding.tools.user import device_tool

    def _book(args):
        return {"booking_id": "b-1", "message": f"Booked for {args['people']}."}

    TOOLS = [
        device_tool(
            "book_table",
            "Book a table.",
            {
                "type": "object",
                "properties": {"people": {"type": "integer"}, "city": {"type": "string"}},
                "required": ["people", "city"],
            },
            _book,
            side_effects=True,
        )
    ]

    def make_tools():
        return TOOLS

    NOT_TOOLS = 42
    """
)


@pytest.fixture
def tools_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"my_tools_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(TOOLS_MODULE, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_load_tools(tools_module: str) -> None:
    assert [s.name for s in load_tools(f"{tools_module}:TOOLS")] == ["book_table"]
    assert [s.name for s in load_tools(f"{tools_module}:make_tools")] == ["book_table"]
    with pytest.raises(UserToolError, match="not a ToolSpec"):
        load_tools(f"{tools_module}:NOT_TOOLS")
    with pytest.raises(UserToolError, match="no attribute"):
        load_tools(f"{tools_module}:missing")
    with pytest.raises(UserToolError, match="MODULE:ATTR"):
        load_tools(tools_module)
    with pytest.raises(UserToolError, match="cannot import"):
        load_tools("no_such_module_here:TOOLS")


def test_entry_point_tools(tmp_path: Path, tools_module: str) -> None:
    dist = tmp_path / "my_tools-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-tools\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[edgeloop.tools]\nbooking = {tools_module}:TOOLS\n")
    assert [s.name for s in entry_point_tools()] == ["book_table"]


def test_cli_ask_with_tools(router_dir: Path, tools_module: str, tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["ask", "--model", str(router_dir), "--memory", str(tmp_path / "cli.db")]
    result = runner.invoke(
        app, [*base, "--tools", f"{tools_module}:TOOLS", "--json", "book a table for two in Rome"]
    )
    assert result.exit_code == 0, result.output
    steps = [json.loads(line) for line in result.output.splitlines()]
    action = next(s for s in steps if s["stepType"] == "STEP_TYPE_ACTION")
    assert action["tool"] == "book_table"
    assert action["arguments"] == {"people": 2, "city": "rome"}
    assert steps[-1]["content"] == "Booked for 2."
    bad = runner.invoke(app, [*base, "--tools", f"{tools_module}:NOT_TOOLS", "hi"])
    assert bad.exit_code == 2
    assert "not a ToolSpec" in bad.output


def test_the_readme_booking_example_runs_from_a_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README, "Train your own router" then "your own tools": the CLINC150 sample's router
    and ``examples/booking_tools.py`` (the line named a ``mytools`` module no clone has)."""
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)  # the README's commands run from the clone; examples/ imports
    monkeypatch.syspath_prepend(str(root))
    from edge_agent.cli import register_training_commands

    register_training_commands()  # main() adds them for `edge-agent train`
    runner = CliRunner()
    model = tmp_path / "my-router"
    data = ["--data", "examples/clinc150_sample.json", "--format", "clinc"]
    trained = runner.invoke(app, ["train", *data, "--out", str(model)])
    assert trained.exit_code == 0, trained.output
    base = ["ask", "--model", str(model), "--memory", str(tmp_path / "edge.db")]
    tools_arg = ["--tools", "examples.booking_tools:TOOLS"]
    result = runner.invoke(app, [*base, *tools_arg, "--json", "book a table for four in Rome"])
    assert result.exit_code == 0, result.output
    steps = [json.loads(line) for line in result.output.splitlines()]
    action = next(s for s in steps if s["stepType"] == "STEP_TYPE_ACTION")
    assert action["tool"] == "restaurant_reservation"
    assert action["arguments"] == {"people": 4, "city": "rome"}
    assert steps[-1]["content"] == "Booked a table for 4 in Rome."


@pytest.mark.parametrize("reference", ["examples.booking_tools:TOOLS", "FILE:TOOLS"])
def test_the_example_tools_load_outside_the_repository_root(tmp_path: Path, reference: str) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    reference = reference.replace("FILE", str(root / "examples" / "booking_tools.py"))
    done = subprocess.run(
        [sys.executable, "-m", "edge_agent", "ask", "hi", "--tools", reference,
         "--memory", str(tmp_path / "edge.db")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
