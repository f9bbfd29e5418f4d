"""`edge-agent`: ask the device, chat, evaluate and train the router, serve the edge agent.

This package's ``__init__`` is the console script's front door (``edge-agent =
edge_agent.cli:main``) and stays stdlib-only: ``edge-agent ask QUERY`` while a device
runtime runs on the memory is answered by :mod:`edge_agent.quick_ask` over the runtime's
Unix socket, with neither typer nor grpc loaded. Everything else, and any ask the quick
path cannot take, runs the full Typer app of :mod:`edge_agent.cli.commands`, loaded on
first use, as are the commands' names imported from here (``from edge_agent.cli import
app``).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (4 ms)
if TYPE_CHECKING:
    from typing import Any

    from edge_agent.cli.commands import (
        EXIT_ASKED,
        EXIT_PENDING,
        MEMORY_HELP,
        TRAINING_COMMANDS,
        MemoryOption,
        ModelOption,
        TlsRootOption,
        TokenOption,
        ToolsOption,
        _agent,
        _approve_interactively,
        _ask_runtime,
        _cloud_failure,
        _cloud_target,
        _device_store,
        _host_runtime,
        _line,
        _print_report,
        _router,
        _shorten,
        _shown,
        _sync_line,
        _sync_memory,
        app,
        ask,
        chat,
        config_app,
        config_set,
        config_show,
        eval_command,
        pending_command,
        receipt_command,
        register_training_commands,
        run_command,
        serve,
        sync_command,
        timers_command,
        ui_command,
    )

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


def __getattr__(name: str) -> Any:
    """The full command's names, loaded with it on first use."""
    if name in __all__:
        from edge_agent.cli import commands

        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point: the quick path through a running runtime, else the
    full command line."""
    from edge_agent.quick_ask import answer_quickly

    code = answer_quickly(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from edge_agent.cli.commands import main as full_main

    full_main()
