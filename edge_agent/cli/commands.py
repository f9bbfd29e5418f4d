"""The full `edge-agent` command: its Typer app, every command registered in the order
the help lists them.

Imports stay lean at the top: onnxruntime, the memory store and grpc load only inside
the command that needs them, so a cold `edge-agent ask` starts fast and small. The
commands live by concept (ask, memory, servers, training); ``edge_agent.cli`` (the
console script's stdlib-only front door) loads this module when the quick path through a
running runtime cannot answer, and keeps these names importable from it.
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer import _click
from typer.core import TyperGroup

from edge_agent.ask_lines import EXIT_ASKED, EXIT_PENDING
from edge_agent.cli._common import (
    MEMORY_HELP,
    MemoryOption,
    ModelOption,
    TlsRootOption,
    TokenOption,
    ToolsOption,
    _agent,
    _cloud_target,
    _device_store,
    _router,
)
from edge_agent.cli.ask import (
    _approve_interactively,
    _ask_runtime,
    _cloud_failure,
    _line,
    _shown,
    ask,
    chat,
)
from edge_agent.cli.memory import (
    _shorten,
    _sync_line,
    _sync_memory,
    config_app,
    config_set,
    config_show,
    pending_command,
    receipt_command,
    sync_command,
    timers_command,
)
from edge_agent.cli.notes import lists_app, notes_app
from edge_agent.cli.servers import _host_runtime, run_command, serve, ui_command
from edge_agent.cli.training import _print_report, eval_command
from edge_agent.errors import CLI_ERRORS, exit_code
from edgeloop.console import fail, run_app

__all__ = [
    "EXIT_ASKED",
    "EXIT_PENDING",
    "MEMORY_HELP",
    "TRAINING_COMMANDS",
    "MemoryOption",
    "ModelOption",
    "TlsRootOption",
    "TokenOption",
    "ToolsOption",
    "_agent",
    "_approve_interactively",
    "_ask_runtime",
    "_cloud_failure",
    "_cloud_target",
    "_device_store",
    "_host_runtime",
    "_line",
    "_print_report",
    "_router",
    "_shorten",
    "_shown",
    "_sync_line",
    "_sync_memory",
    "app",
    "ask",
    "chat",
    "config_app",
    "config_set",
    "config_show",
    "eval_command",
    "main",
    "pending_command",
    "receipt_command",
    "register_training_commands",
    "run_command",
    "serve",
    "sync_command",
    "timers_command",
    "ui_command",
]


class _EdgeCommands(TyperGroup):
    """The command group that maps the device's errors to one line and an exit code.

    The one place the command line translates ``edge_agent.errors``: a command lets an
    error of :data:`edge_agent.errors.CLI_ERRORS` rise and the user sees ``error: <message>`` with
    :func:`edge_agent.errors.exit_code` (2 for bad input, 1 otherwise), never a trace.
    """

    def invoke(self, ctx: _click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CLI_ERRORS as exc:
            raise fail(str(exc), exit_code(exc)) from None


app = typer.Typer(
    cls=_EdgeCommands,
    help="The edgeloop edge agent.",
    no_args_is_help=True,
    add_completion=False,
)

# In the order of the help's listing (the config group comes after the commands).
app.command()(ask)
app.command("pending")(pending_command)
app.command("sync")(sync_command)
app.command()(chat)
app.command("eval")(eval_command)
app.command("timers")(timers_command)
app.add_typer(config_app, name="config")
app.add_typer(notes_app, name="notes")
app.add_typer(lists_app, name="lists")
app.command("receipt")(receipt_command)
app.command()(serve)
app.command("run")(run_command)
app.command("ui")(ui_command)


TRAINING_COMMANDS = ("train", "eval-intents")


def register_training_commands() -> None:
    """Add the trainer's commands. They load numpy and the training code, which a cold
    ``edge-agent ask`` does not need: :func:`main` adds them only when they may be used."""
    from understanding.intents.cli import eval_intents, train

    app.command("train")(train)
    app.command("eval-intents")(eval_intents)


def _command_of(args: list[str]) -> str | None:
    """The sub-command named on the command line (None: none, e.g. ``--help``)."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def main() -> None:
    """The full command line (``edge_agent.cli.main`` comes here when the quick path
    cannot answer)."""
    command = _command_of(sys.argv[1:])
    if command is None or command in TRAINING_COMMANDS:
        register_training_commands()  # for the help listing too
    run_app(app, "edge-agent")
