"""The cloud's page without a browser: the watcher hook, the figures and their charts."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import httpx
import pytest

from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer
from cloud_agent.ui import Chart, CloudConsole, quantile, render_cloud_panel, serve_page
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc


class Broken:
    """A watcher whose every method fails: sessions must not notice."""

    def session_started(self, *args: Any) -> None:
        raise RuntimeError("boom")

    session_event = session_ended = session_started


async def _reason(port: int, query: str) -> list[pb.ReactStep]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        request = pb.ReasonRequest(session_id=uuid.uuid4().hex, query=query, device_id="p1")
        metadata = (("x-device-id", "p1"),)
        return [r.step async for r in stub.Reason(request, timeout=20, metadata=metadata)]


def test_the_console_sees_each_session_and_a_broken_watcher_breaks_nothing() -> None:
    async def main() -> None:
        cloud = CloudServer(CloudConfig(port=0))
        port = await cloud.start()
        cloud.handler.add_watcher(Broken())
        console = CloudConsole(cloud)
        try:
            console.sample(now=0.0)
            steps = await _reason(port, "is Tokyo warmer than Seoul today?")
            assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
            (session,) = console.book.recent()
            assert session.device == "p1" and session.state == "finished"
            assert [s.step_type for s in session.steps] == [s.step_type for s in steps]
            assert console.devices["p1"].sessions == 1 and console.devices["p1"].running == 0
            console.sample(now=2.0)
            assert console.outcomes == {"completed": 1.0}
            assert console.charts["sessions"].last == pytest.approx(0.5)
            assert console.charts["p50"].last > 0
            assert console.charts["errors"].last == 0
            assert [b["name"] for b in console.backends()] == ["planner"]
            assert console.backends()[0]["state"] == "closed"
            html = render_cloud_panel(console, "charts")
            assert "<polyline" in html and "completed 1" in html
            assert "errors by code:\nnone" in html
            # A refused call is counted by its status code.
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _reason(port, "   ")
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            console.sample(now=4.0)
            assert console.error_codes == {"INVALID_ARGUMENT": 1.0}
            assert console.charts["errors"].last == pytest.approx(0.5)
            assert "INVALID_ARGUMENT 1" in render_cloud_panel(console, "charts")
            memory = render_cloud_panel(console, "memory")
            assert "--memory-dir" in memory  # this cloud keeps none, and says so
        finally:
            await cloud.stop(0)

    asyncio.run(main())


def test_the_page_is_served_with_the_cloud_and_verifies_receipts() -> None:
    async def main() -> None:
        cloud = CloudServer(CloudConfig(port=0))
        port = await cloud.start()
        page = await serve_page(cloud, 0)
        try:
            await _reason(port, "what is 2 + 2 and convert 3 km to miles")
            console = cloud.handler.watchers[0]
            (session,) = console.book.recent()
            async with httpx.AsyncClient(base_url=page.url) as client:
                html = (await client.get("/")).text
                assert session.session_id in html and "planner" in html
                if session.receipt is not None:
                    verdict = await client.post(f"/receipts/{session.session_id}/verify")
                    assert "verified" in verdict.text
                assert (await client.post("/receipts/nope/verify")).status_code == 404
        finally:
            await page.stop()
            await cloud.stop(0)

    asyncio.run(main())


def test_quantile_interpolates_like_histogram_quantile() -> None:
    inf = float("inf")
    assert quantile([], 0.5) == 0.0
    assert quantile([(0.1, 0.0), (inf, 0.0)], 0.5) == 0.0
    buckets = [(0.001, 0.0), (0.01, 10.0), (0.1, 20.0), (inf, 20.0)]
    assert quantile(buckets, 0.5) == pytest.approx(0.01)
    assert quantile(buckets, 0.75) == pytest.approx(0.055)
    assert quantile([(0.01, 1.0), (inf, 2.0)], 0.99) == 0.01  # in +Inf: the last bound


def test_chart_points_fit_the_box() -> None:
    chart = Chart("x", "ms")
    assert chart.polyline() == "" and chart.last == 0.0
    chart.points.extend([0.0, 5.0, 10.0])
    points = [tuple(map(float, p.split(","))) for p in chart.polyline(200, 48).split()]
    assert points[0] == (0.0, 46.0) and points[-1] == (200.0, 2.0)
