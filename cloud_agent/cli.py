"""`cloud-agent`: serve the cloud reasoner, evaluate the planner, debug model replies."""

from __future__ import annotations

import asyncio
import contextlib

import typer

app = typer.Typer(help="The edgeloop cloud reasoner.", no_args_is_help=True, add_completion=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line error to stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind (loopback by default)."),
    port: int = typer.Option(50051, help="Port to bind (0 picks a free one)."),
) -> None:
    """Serve the cloud reasoner over gRPC (health checking and reflection included)."""
    from cloud_agent.service import start_server

    async def run() -> None:
        try:
            server, bound = await start_server(host, port)
        except OSError as exc:
            raise fail(str(exc)) from None
        typer.echo(f"cloud-agent serving on {host}:{bound}", err=True)
        try:
            await server.wait_for_termination()
        finally:
            await server.stop(grace=2)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


@app.command("eval")
def eval_command(
    file: str = typer.Argument(..., help="Compound-query JSON lines file."),
    json_output: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
) -> None:
    """Run the planner over a compound-query file and print its metrics."""
    raise fail("cloud-agent eval is not built yet (issue 6)")


@app.command()
def parse(
    json_output: bool = typer.Option(False, "--json", help="Print the ReactStep as JSON."),
    tools: str = typer.Option(None, "--tools", help="A JSON file of tool specs."),
) -> None:
    """Parse one model reply from standard input and print the resulting ReactStep."""
    raise fail("cloud-agent parse is not built yet (issue 3)")


def main() -> None:
    """Console-script entry point."""
    app()
