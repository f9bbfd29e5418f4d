"""The page's access rules, against real servers: loopback unless told otherwise, a token
beyond it, never a page beyond loopback without one."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from edge_agent.ui import UiAccess, UiAccessError, UiServer, is_loopback
from edgeloop.transport.certs import self_signed


def _app() -> Starlette:
    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello")

    return Starlette(routes=[Route("/", hello, methods=["GET", "POST"])])


async def _serving(access: UiAccess, check: Callable[[UiServer], Any]) -> None:
    server = UiServer(_app(), access, 0)
    await server.start()
    try:
        await check(server)
    finally:
        await server.stop()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.5.6.7", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5"])
def test_beyond_loopback_without_a_token_is_refused(host: str) -> None:
    with pytest.raises(UiAccessError, match="beyond loopback"):
        UiAccess.checked(host, None)
    with pytest.raises(UiAccessError):
        UiAccess.checked(host, "")
    assert not UiAccess.checked(host, "s3cret").open_mode


@pytest.mark.parametrize(
    "command",
    [
        ["edge_agent", "ui", "--host", "0.0.0.0", "--port", "0"],
        ["cloud_agent.cli", "serve", "--host", "0.0.0.0", "--port", "0", "--ui-port", "0"],
    ],
)
def test_the_commands_refuse_a_page_beyond_loopback_without_a_token(
    command: list[str], tmp_path: Any
) -> None:
    module, *args = command
    package = module.split(".")[0]
    code = f"import sys; from {package}.cli import main; sys.argv=['x', *{args!r}]; main()"
    env = {"EDGELOOP_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 2
    assert "beyond loopback: give it a token" in result.stderr
    assert result.stderr.count("\n") == 1  # one line, no traceback


def test_a_token_is_required_beyond_loopback() -> None:
    """Bound to every interface with a token: no token, a wrong one -> 401; the right one
    as a bearer header or through the login cookie -> the page."""

    async def check(server: UiServer) -> None:
        base = f"http://127.0.0.1:{server.port}"
        async with httpx.AsyncClient(base_url=base) as client:
            assert (await client.get("/")).status_code == 401
            assert (await client.post("/")).status_code == 401
            wrong = await client.get("/", headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401
            right = await client.get("/", headers={"Authorization": "Bearer s3cret"})
            assert right.status_code == 200 and right.text == "hello"
            login = await client.get("/?token=s3cret")
            assert login.status_code == 303 and login.headers["location"] == "/"
            cookie = login.headers["set-cookie"]
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
            assert "s3cret" not in cookie  # the cookie holds a digest, not the token
            assert (await client.get("/")).text == "hello"  # the cookie is enough now
            assert (await client.get("/?token=nope")).status_code in (303, 401)
        async with httpx.AsyncClient(base_url=base) as fresh:
            assert (await fresh.get("/?token=nope")).status_code == 401

    asyncio.run(_serving(UiAccess.checked("0.0.0.0", "s3cret"), check))


def test_open_mode_answers_loopback_names_and_same_origin_posts_only() -> None:
    """No token on loopback: DNS rebinding (another Host) and cross-site posts are refused."""

    async def check(server: UiServer) -> None:
        base = f"http://127.0.0.1:{server.port}"
        async with httpx.AsyncClient(base_url=base) as client:
            assert (await client.get("/")).status_code == 200
            for host in (f"localhost:{server.port}", f"127.0.0.1:{server.port}"):
                assert (await client.get("/", headers={"Host": host})).status_code == 200
            rebound = await client.get("/", headers={"Host": f"evil.example:{server.port}"})
            assert rebound.status_code == 403
            same = await client.post("/", headers={"Origin": base})
            assert same.status_code == 200
            cross = await client.post("/", headers={"Origin": "https://evil.example"})
            assert cross.status_code == 403
            for response in (same, cross, rebound):  # never framed, never sniffed
                assert response.headers["x-frame-options"] == "DENY"
                assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
                assert response.headers["x-content-type-options"] == "nosniff"

    asyncio.run(_serving(UiAccess.checked("127.0.0.1", None), check))


def test_a_taken_port_is_an_os_error() -> None:
    async def check(server: UiServer) -> None:
        with pytest.raises(OSError):
            UiServer(_app(), UiAccess.checked("127.0.0.1", None), server.port)

    asyncio.run(_serving(UiAccess.checked("127.0.0.1", None), check))


def test_the_page_over_tls_with_a_token(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path, "page")

    async def main() -> None:
        access = UiAccess.checked("0.0.0.0", "s3cret")
        server = UiServer(_app(), access, 0, tls_cert=str(cert), tls_key=str(key))
        await server.start()
        try:
            assert server.url.startswith("https://")
            trusted = ssl.create_default_context(cafile=str(cert))
            base = f"https://127.0.0.1:{server.port}"
            async with httpx.AsyncClient(base_url=base, verify=trusted) as client:
                assert (await client.get("/")).status_code == 401
                bearer = {"Authorization": "Bearer s3cret"}
                assert (await client.get("/", headers=bearer)).text == "hello"
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}") as plain:
                with pytest.raises(httpx.HTTPError):
                    await plain.get("/")
        finally:
            await server.stop()

    asyncio.run(main())
