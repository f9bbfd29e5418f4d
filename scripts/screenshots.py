"""Take the screenshots of the pages that docs/ui.md and the README show.

Starts a real cloud (planner backend, memory sync, its page) and a real device (the
shipped router, its cloud link, its page) on 127.0.0.1 in a temporary folder, drives them
through headless Debian chromium as a person would (a device query, a compound query, an
unlock waiting for approval, a note synced to the cloud) and writes:

    docs/ui-device.png   the device page: sessions, route decisions, an approval waiting
    docs/ui-cloud.png    the cloud page: figures, sessions per device, backends, memory

Usage: python scripts/screenshots.py [--out docs] [--chromium /usr/bin/chromium]
(chromium is the apt package ``chromium``; Playwright never downloads a browser).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUERIES = [
    "what's 15% of 80",
    "turn off the kitchen lights and lock the front door, then is Tokyo warmer than Seoul?",
    "add a note: renew the passport",
]


def ask(page: Any, query: str) -> Any:
    """Ask through the page's box and wait for the session's card."""
    page.fill("#ask input[name=query]", query)
    page.press("#ask input[name=query]", "Enter")
    card = page.locator("article.session", has=page.locator(".query", has_text=query)).first
    card.wait_for()
    return card


def shoot(out: Path, chromium: str) -> list[Path]:
    """Run the stack, drive the pages, write the PNGs; return their paths."""
    from playwright.sync_api import sync_playwright

    from cloud_agent.config import CloudConfig
    from cloud_agent.service import CloudServer
    from cloud_agent.ui import serve_page
    from edge_agent.agent import EdgeAgent
    from edge_agent.cloud_link import CloudLink
    from edge_agent.ui import DeviceConsole, serve_device_page
    from edgeloop.transport.loop import EventLoopThread
    from sync.store import MemoryStore
    from understanding.router import Router

    folder = Path(tempfile.mkdtemp(prefix="edgeloop-shots-"))
    loop = EventLoopThread()
    cloud = CloudServer(CloudConfig(port=0, memory_dir=str(folder / "cloud")))
    target = f"127.0.0.1:{loop.run(cloud.start())}"
    cloud_page = loop.run(serve_page(cloud, 0))
    memory = MemoryStore(folder / "device.db")
    link = CloudLink(target, deadline_s=20, retries=1, backoff_s=0.1, device_id="kitchen-hub")
    console = DeviceConsole(EdgeAgent(memory, Router.load(), cloud=link), cloud=target)

    device_page = loop.run(serve_device_page(console))
    profile = tempfile.mkdtemp(prefix="edgeloop-chromium-")
    written = []
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=chromium,
                headless=True,
                args=CHROMIUM_ARGS,
                viewport={"width": 1440, "height": 1100},
            )
            context.set_default_timeout(30_000)
            page = context.new_page()
            page.goto(device_page.url)
            page.wait_for_selector("#live.on")
            for query in QUERIES:
                ask(page, query).locator(".final-answer").wait_for()
            page.locator("#sync-now").click()
            page.locator("#sync .agreement").wait_for()
            ask(page, "unlock the front door")
            page.locator("#approvals .approval").wait_for()
            written.append(out / "ui-device.png")
            page.screenshot(path=str(written[-1]), full_page=False)
            cloud_tab = context.new_page()
            cloud_tab.goto(cloud_page.url)
            cloud_tab.wait_for_selector("#live.on")
            cloud_tab.locator("#memory td", has_text="renew the passport").wait_for()
            cloud_tab.wait_for_timeout(2500)  # a few points on the charts
            written.append(out / "ui-cloud.png")
            cloud_tab.screenshot(path=str(written[-1]), full_page=False)
            context.close()
    finally:
        loop.run(device_page.stop())
        loop.run(cloud_page.stop())
        loop.run(cloud.stop(0.5))
        link.close()
        memory.close()
        loop.close()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs"), help="Folder for the PNGs.")
    parser.add_argument(
        "--chromium", default=os.environ.get("EDGELOOP_CHROMIUM", "/usr/bin/chromium")
    )
    args = parser.parse_args()
    if not Path(args.chromium).exists():
        print(f"error: {args.chromium} not found (apt-get install chromium)", file=sys.stderr)
        return 1
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for path in shoot(out, args.chromium):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
