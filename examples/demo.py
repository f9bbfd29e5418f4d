"""The README's first command (``python3.11 dev.py demo``): the whole mission on 127.0.0.1.

Starts the cloud reasoner on a free loopback port and drives the real edge agent through
a scripted walkthrough, rendering each step as it happens:

1. simple queries answered on the device (no network);
2. a compound query solved by the cloud, with the device tools run on the device;
3. the cloud stopped: the edge keeps working and keeps a hard query pending;
4. the cloud restarted: the pending query resolved, memory synced both ways;
5. the decision receipt of one answer verified (and a tampered copy caught);

then a summary table (query, where answered, latency). Everything lives in a temporary
folder that is removed at the end; nothing of the user's is touched.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer
from edgeloop.transport.loop import EventLoopThread
from edgeloop.v1 import agent_pb2 as pb

console = Console(highlight=False)

SIMPLE = ["what's 15% of 80", "convert 5 miles to km", "weather in Paris tomorrow"]
COMPOUND = "turn off the kitchen lights and lock the front door, then is Tokyo warmer than Seoul?"
OFFLINE_SIMPLE = "set a timer for 10 minutes"
OFFLINE_HARD = "is Rome warmer than Madrid tomorrow?"

_STYLE = {
    pb.STEP_TYPE_THOUGHT: ("THOUGHT", "cyan"),
    pb.STEP_TYPE_ACTION: ("ACTION", "yellow"),
    pb.STEP_TYPE_OBSERVATION: ("OBSERVATION", "green"),
    pb.STEP_TYPE_FINAL_ANSWER: ("ANSWER", "bold magenta"),
    pb.STEP_TYPE_ERROR: ("ERROR", "red"),
    pb.STEP_TYPE_APPROVAL_REQUEST: ("APPROVAL", "red"),
}


@dataclass
class Row:
    """One line of the summary table."""

    query: str
    where: str
    ms: float


class BackgroundCloud:
    """The cloud reasoner in its own event-loop thread (the edge agent's API is blocking)."""

    def __init__(self, config: CloudConfig) -> None:
        self.config = config
        self._loop = EventLoopThread()
        self.server: CloudServer | None = None
        self.port = 0
        self.page: Any = None  # the cloud's web page, on the same port across restarts
        self.page_port = 0

    def start(self) -> int:
        from cloud_agent.ui import serve_page

        self.server = CloudServer(self.config)
        self.port = self._loop.run(self.server.start())
        self.page = self._loop.run(serve_page(self.server, self.page_port))
        self.page_port = self.page.port
        return self.port

    def run(self, coroutine: Any) -> Any:
        """Run a coroutine on the cloud's event loop (the device page is served there too)."""
        return self._loop.run(coroutine)

    def stop(self) -> None:
        if self.page is not None:
            self._loop.run(self.page.stop())
            self.page = None
        if self.server is not None:
            self._loop.run(self.server.stop(0.5))
            self.server = None

    def close(self) -> None:
        self.stop()
        self._loop.close()


def load_router() -> tuple[Any, str]:
    """The shipped INT8 router (understanding/models/router), the one ``edge-agent`` uses."""
    from understanding.router import Router

    return Router.load(), "the shipped INT8 router"


def render(step: pb.ReactStep) -> None:
    """Print one step as it arrives."""
    label, style = _STYLE.get(step.step_type, ("STEP", "white"))
    side = "cloud" if step.origin == pb.ORIGIN_CLOUD else "edge"
    tool = f" {step.tool}" if step.tool else ""
    if (
        step.step_type == pb.STEP_TYPE_ACTION
        and step.origin == pb.ORIGIN_CLOUD
        and step.executor == pb.ORIGIN_EDGE
    ):
        tool += " (runs on the device)"
    text = step.content.replace("\n", " ")
    if len(text) > 150:
        text = text[:147] + "..."
    console.print(f"  [dim]{side:>5}[/] [{style}]{label:<11}[/]{tool} [dim]·[/] {text}")


def ask(agent: Any, query: str, rows: list[Row], page: Any = None) -> list[pb.ReactStep]:
    """Ask the edge agent, render each step live (on the device page too, when ``page`` is
    its ``DeviceConsole``), record where it was answered."""
    console.print(f"\n[bold]> {query}[/]")
    started = time.perf_counter()
    steps: list[pb.ReactStep] = []
    for step in page.track(query, agent.ask(query)) if page else agent.ask(query):
        render(step)
        steps.append(step)
    ms = (time.perf_counter() - started) * 1000
    final = steps[-1] if steps else pb.ReactStep()
    if final.metadata.get("offline") == "true":
        where = "pending (cloud offline)"
    elif any(s.origin == pb.ORIGIN_CLOUD for s in steps):
        where = "cloud (+ device tools)" if _device_ran(steps) else "cloud"
    else:
        where = "device"
    rows.append(Row(query, where, ms))
    return steps


def resolve_pending(agent: Any) -> list[tuple[dict[str, Any], list[pb.ReactStep]]]:
    """Let the edge agent resolve its pending queries, rendering the cloud's steps."""
    resolved: list[tuple[dict[str, Any], list[pb.ReactStep]]] = agent.resolve_pending()
    for pending, steps in resolved:
        console.print(f"\n[bold]> (pending) {pending['query']}[/]")
        for step in steps:
            render(step)
    return resolved


def _device_ran(steps: list[pb.ReactStep]) -> bool:
    return any(
        s.step_type == pb.STEP_TYPE_OBSERVATION and s.origin == pb.ORIGIN_EDGE for s in steps
    )


def scene(title: str) -> None:
    console.print()
    console.rule(f"[bold]{title}")


def run_demo() -> int:
    """The walkthrough; returns the exit code."""
    from edge_agent.agent import EdgeAgent
    from edge_agent.cloud_link import CloudLink
    from sync.client import sync_with
    from sync.store import MemoryStore
    from sync.userstores import UserStores

    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="edgeloop-demo-") as folder:
        root = Path(folder)
        cloud = BackgroundCloud(CloudConfig(port=0, memory_dir=str(root / "cloud")))
        port = cloud.start()
        target = f"127.0.0.1:{port}"
        # The same port after a restart, so the device's link finds it again.
        cloud.config = CloudConfig(port=port, memory_dir=str(root / "cloud"))
        memory = MemoryStore(root / "device.db")
        router, router_name = load_router()
        link = CloudLink(target, deadline_s=10, retries=1, backoff_s=0.1, device_id="demo-phone")
        agent = EdgeAgent(memory, router, cloud=link)
        page, device_page = _device_page(cloud, agent, target)
        try:
            console.print(
                Panel.fit(
                    f"cloud reasoner on [bold]{target}[/] (planner backend, health + "
                    f"reflection, memory sync)\nedge agent with {router_name}\n"
                    f"memory in {folder} (removed at the end)\n"
                    f"watch it think: device page [bold]{device_page.url}[/], "
                    f"cloud page [bold]{cloud.page.url}[/]",
                    title="edgeloop demo",
                )
            )
            scene("1. Simple queries: answered on the device")
            for query in SIMPLE:
                ask(agent, query, rows, page)

            scene("2. A compound query: the cloud plans, the device acts")
            compound = ask(agent, COMPOUND, rows, page)
            receipt = link.last_receipt

            scene("3. The cloud goes away")
            cloud.stop()
            console.print("  [red]cloud reasoner stopped[/]")
            ask(agent, OFFLINE_SIMPLE, rows, page)
            ask(agent, OFFLINE_HARD, rows, page)
            console.print(f"  pending on the device: {[p['query'] for p in memory.pending()]}")

            scene("4. The cloud comes back: pending query resolved, memory synced")
            cloud.start()
            # Another device of the same user left a note in the cloud's copy meanwhile.
            with UserStores(root / "cloud", node_id="laptop") as laptop:
                laptop("local").add_note("from the laptop: renew the passport")
            while not link.healthy():
                time.sleep(0.1)
            console.print("  [green]cloud reachable again[/] (health check SERVING)")
            started = time.perf_counter()
            answered = resolve_pending(agent)
            each_ms = (time.perf_counter() - started) * 1000 / max(len(answered), 1)
            for pending, _ in answered:
                rows.append(Row(pending["query"], "cloud (was pending)", each_ms))
            with grpc.insecure_channel(target) as channel:
                result = sync_with(channel, memory, device_id="demo-phone")
            console.print(f"  memory sync: {result}")
            notes = [n["text"] for n in memory.notes()]
            console.print(f"  device notes now: {notes}")
            with UserStores(root / "cloud", node_id="check") as check:
                store = check("local")
                resolved = [p for p in store.records("pending").values() if p.get("answer")]
                sessions = len(store.records("sessions"))
            console.print(
                f"  the cloud's copy: {len(resolved)} resolved pending query, "
                f"{sessions} sessions of the device"
            )

            scene("5. The decision receipt of the compound answer")
            if receipt is None:
                console.print("  [red]no receipt received[/]")
                return 1
            code = verify(receipt, compound)
            if code:
                return code
            summary(rows)
            if sys.stdin.isatty():
                console.print(f"\nthe pages stay up: {device_page.url} and {cloud.page.url}")
                with contextlib.suppress(EOFError, KeyboardInterrupt):
                    input("press Enter to stop ")
        finally:
            cloud.run(device_page.stop())
            link.close()
            cloud.close()
            memory.close()
    return 0


def _device_page(cloud: BackgroundCloud, agent: Any, target: str) -> tuple[Any, Any]:
    """The device's web page over the demo's agent, served on the cloud's event loop."""
    from edge_agent.ui import DeviceConsole, serve_device_page

    page = DeviceConsole(agent, cloud=target)
    return page, cloud.run(serve_device_page(page))


def verify(receipt: pb.DecisionReceipt, steps: list[pb.ReactStep]) -> int:
    """Verify the receipt against the steps, then show that a tampered copy fails."""
    from react_kernel import verify_receipt

    # The cloud's turn: its own steps and the device's observations (not the edge's
    # routing thought, which is no part of the cloud's reasoning).
    cloud_steps = [
        s
        for s in steps
        if s.session_id == receipt.session_id
        and (s.origin == pb.ORIGIN_CLOUD or s.step_type == pb.STEP_TYPE_OBSERVATION)
    ]
    problems = verify_receipt(receipt, cloud_steps)
    console.print(
        f"  receipt {receipt.receipt_id[:16]}… for '{receipt.query}': "
        f"{len(receipt.evidence)} tool calls of evidence, "
        + ("[green]verified[/]" if not problems else f"[red]{problems}[/]")
    )
    forged = pb.DecisionReceipt()
    forged.CopyFrom(receipt)
    forged.answer = "Seoul is warmer."
    caught = verify_receipt(forged, cloud_steps)
    console.print(
        f"  a tampered copy (answer changed): [yellow]{caught[0] if caught else 'not caught'}[/]"
    )
    return 0 if not problems and caught else 1


def summary(rows: list[Row]) -> None:
    table = Table(title="Summary")
    table.add_column("query")
    table.add_column("answered")
    table.add_column("latency", justify="right")
    for row in rows:
        table.add_row(row.query, row.where, f"{row.ms:.0f} ms")
    console.print()
    console.print(table)


def main() -> None:
    """Entry point for ``python -m examples.demo``."""
    raise SystemExit(run_demo())


if __name__ == "__main__":
    main()
