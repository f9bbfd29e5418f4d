"""The page's login after issue 26: a login link only ever sends the browser to a path of
this site, the cookie is signed with a server-side secret and expires, it is ``Secure``
over TLS, and a port out of range is refused instead of wrapped."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from edge_agent.ui import UiAccess, UiServer
from webui.access import COOKIE_MAX_AGE_S, _digest, same_origin_path


def _app() -> Starlette:
    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello")

    return Starlette(routes=[Route("/{path:path}", hello)])


@pytest.mark.parametrize(
    "path",
    ["//evil.example/", "/\\evil.example", "/\\/evil.example/", "///evil.example", "/%0d%0aX: y"],
)
def test_a_login_link_never_leaves_the_site(path: str) -> None:
    async def main() -> None:
        server = UiServer(_app(), UiAccess.checked("0.0.0.0", "s3cret"), 0)
        await server.start()
        try:
            base = f"http://127.0.0.1:{server.port}"
            async with httpx.AsyncClient(base_url=base) as client:
                raw = f"{path}?token=s3cret&tab=2"
                login = await client.get(httpx.URL(base + raw.replace("\\", "%5C")))
                assert login.status_code == 303
                location = login.headers["location"]
                assert location.startswith("/") and not location.startswith(("//", "/\\"))
                assert "\\" not in location and "\r" not in location and "\n" not in location
                assert httpx.URL(base).join(location).host == "127.0.0.1"
                assert location.endswith("?tab=2") and "s3cret" not in location
        finally:
            await server.stop()

    asyncio.run(main())


def test_same_origin_path_keeps_ordinary_paths() -> None:
    assert same_origin_path("/") == "/"
    assert same_origin_path("/receipts/s1/verify", "a=1") == "/receipts/s1/verify?a=1"


def test_the_cookie_is_signed_by_the_server_and_expires() -> None:
    access = UiAccess.checked("0.0.0.0", "s3cret")
    other = UiAccess.checked("0.0.0.0", "s3cret")  # another server: another secret
    value = access.cookie_value(now=1000.0)
    assert access.cookie_matches(value, now=1000.0)
    assert not other.cookie_matches(value, now=1000.0)
    assert not access.cookie_matches(value, now=1001.0 + COOKIE_MAX_AGE_S)
    assert not access.cookie_matches(_digest("s3cret"))  # the old unsalted digest
    expires, _, signature = value.partition(".")
    assert not access.cookie_matches(f"{int(expires) + 999}.{signature}", now=1000.0)
    assert "s3cret" not in value and _digest("s3cret") not in value


def test_the_login_cookie_has_an_expiry_and_is_secure_over_tls(tmp_path: Path) -> None:
    from edgeloop.transport.certs import self_signed

    cert, key = self_signed(tmp_path, "page")

    async def main() -> None:
        access = UiAccess.checked("0.0.0.0", "s3cret")
        server = UiServer(_app(), access, 0, tls_cert=str(cert), tls_key=str(key))
        await server.start()
        try:
            trusted = ssl.create_default_context(cafile=str(cert))
            base = f"https://127.0.0.1:{server.port}"
            async with httpx.AsyncClient(base_url=base, verify=trusted) as client:
                login = await client.get("/?token=s3cret")
                cookie = login.headers["set-cookie"]
                assert "; Secure" in cookie and f"Max-Age={COOKIE_MAX_AGE_S}" in cookie
                assert (await client.get("/")).text == "hello"
        finally:
            await server.stop()
        plain = UiServer(_app(), access, 0)
        await plain.start()
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{plain.port}") as client:
                cookie = (await client.get("/?token=s3cret")).headers["set-cookie"]
                assert "Secure" not in cookie and "Max-Age" in cookie
        finally:
            await plain.stop()

    asyncio.run(main())


def test_a_port_out_of_range_is_refused_not_wrapped() -> None:
    with pytest.raises(OSError, match="out of range"):
        UiServer(_app(), UiAccess.checked("127.0.0.1", None), 99999)


@pytest.mark.parametrize(
    "command",
    [
        ["edge_agent", "ui", "--port", "99999"],
        ["edge_agent", "serve", "--port", "99999"],
        ["cloud_agent.cli", "serve", "--port", "99999"],
    ],
)
def test_the_commands_refuse_a_port_out_of_range_in_one_line(command: list[str]) -> None:
    module, *args = command
    code = (
        "from cloud_agent.cli import app; app(prog_name='cloud-agent')"
        if module == "cloud_agent.cli"
        else "from edge_agent.cli import app; app(prog_name='edge-agent')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "out of range" in result.stderr, result.stderr
