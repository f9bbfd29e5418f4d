"""`edge-agent`: ask the device, chat, evaluate and train the router, serve the edge agent."""

from __future__ import annotations

import typer

app = typer.Typer(help="The edgeloop edge agent.", no_args_is_help=True, add_completion=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line error to stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@app.command()
def ask(
    query: str = typer.Argument(..., help="The query."),
    cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT."),
    json_output: bool = typer.Option(False, "--json", help="One ReactStep per line (JSON)."),
) -> None:
    """Answer one query on the device, or through the cloud."""
    raise fail("edge-agent ask is not built yet (issue 5)")


@app.command()
def chat(cloud: str = typer.Option(None, "--cloud", help="Cloud reasoner HOST:PORT.")) -> None:
    """An interactive session that renders each step as it happens."""
    raise fail("edge-agent chat is not built yet (issue 5)")


@app.command("eval")
def eval_command(
    file: str = typer.Argument(..., help="Eval JSON lines file."),
    json_output: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
) -> None:
    """Run the edge decision over an eval file and print its metrics."""
    raise fail("edge-agent eval is not built yet (issue 5)")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind."),
    port: int = typer.Option(50052, help="Port to bind."),
) -> None:
    """Serve the edge agent over gRPC for clients in any language."""
    raise fail("edge-agent serve is not built yet (issue 5)")


def _register_training_commands() -> None:
    try:
        from edge_agent.intents.cli import eval_intents, train
    except ImportError:
        return
    app.command("train")(train)
    app.command("eval-intents")(eval_intents)


_register_training_commands()


def main() -> None:
    """Console-script entry point."""
    app()
