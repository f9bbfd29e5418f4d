"""`eval`: the edge decision over an eval file (`train` and `eval-intents` come from
understanding.intents.cli)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from edge_agent.cli._common import ModelOption, ToolsOption, _router
from edgeloop.console import fail

if TYPE_CHECKING:
    from edge_agent.evaluation import EvalReport


def _print_report(report: EvalReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    metrics = Table(title="edge decision", show_header=False)
    for key, value in report.metrics.items():
        metrics.add_row(key, str(value))
    console.print(metrics)
    labels = sorted({label for pair in report.confusion for label in pair})
    confusion = Table(title="confusion (rows: expected, columns: decided)")
    confusion.add_column("expected \\ got")
    for label in labels:
        confusion.add_column(label[:12], justify="right")
    for expected in labels:
        cells = [str(report.confusion.get((expected, got), "") or "") for got in labels]
        confusion.add_row(expected, *cells)
    console.print(confusion)
    for miss in report.misses[:40]:
        mark = "WRONG ACTION " if miss.get("wrong_action") else ""
        console.print(
            f"{mark}line {miss['line']}: expected {miss['expected']}, got {miss['got']} "
            f"({miss['reason']}) args={miss['args']} :: {miss['query']}",
            markup=False,
        )


def eval_command(
    file: str = typer.Argument(..., help="Eval JSON lines file."),
    json_output: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
    model: ModelOption = None,
    tools: ToolsOption = None,
    home: str = typer.Option(
        None, "--home", help="Evaluate as a device whose home city is CITY (no home: none)."
    ),
) -> None:
    """Run the edge decision over an eval file and print its metrics."""
    from edge_agent.errors import SettingsError
    from edge_agent.evaluation import load_cases, run_eval
    from understanding.settings import Settings, check_setting

    settings = None
    if home is not None:
        try:
            settings = Settings(home_city=check_setting("home_city", home))
        except SettingsError as exc:
            raise fail(f"--home: {exc}", 2) from None
    cases = load_cases(file)
    report = run_eval(_router(model, tools), cases, settings)
    if json_output:
        typer.echo(json.dumps(report.metrics))
    else:
        _print_report(report)
