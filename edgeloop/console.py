"""Running a console script so that every command-line error is one line.

Click (under Typer) reports a usage error as a boxed, several-line panel; scripts and
people reading logs want one line on stderr and a non-zero exit. Both console scripts
(``edge-agent``, ``cloud-agent``) start through :func:`run_app`, and their commands
report their own errors the same way, with :func:`fail`.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click
import typer

try:  # Typer >= 0.20 carries its own copy of click, with its own exception classes
    from typer._click import exceptions as _typer_click
except ImportError:  # pragma: no cover - older Typer uses click itself
    _typer_click = click.exceptions  # type: ignore[no-redef,misc]

_NO_ARGS = tuple(
    cls
    for cls in (
        getattr(_typer_click, "NoArgsIsHelpError", None),
        getattr(click.exceptions, "NoArgsIsHelpError", None),
    )
    if cls is not None
)
_USAGE = (_typer_click.UsageError, click.UsageError)
_CLICK = (_typer_click.ClickException, click.ClickException)
_ABORT = (typer.Abort, click.Abort)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line error to stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def run_app(app: typer.Typer, prog: str, args: list[str] | None = None) -> NoReturn:
    """Run ``app`` and exit with its code; a usage error is ``prog: message`` on one line."""
    try:
        code = app(args=args, prog_name=prog, standalone_mode=False)
    except _NO_ARGS as exc:  # no sub-command: the help, as click shows it
        sys.stderr.write(exc.format_message() + "\n")
        sys.exit(exc.exit_code)
    except _USAGE as exc:
        sys.stderr.write(f"{prog}: {_one_line(exc.format_message())} (see '{prog} --help')\n")
        sys.exit(exc.exit_code)
    except _CLICK as exc:
        sys.stderr.write(f"{prog}: {_one_line(exc.format_message())}\n")
        sys.exit(exc.exit_code)
    except _ABORT:
        sys.stderr.write(f"{prog}: aborted\n")
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
