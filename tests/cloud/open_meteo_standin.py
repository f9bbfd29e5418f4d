"""A local HTTP server answering like Open-Meteo's forecast API, for tests.

It answers ``GET /v1/forecast`` with the documented response shape (``latitude``,
``longitude``, ``timezone``, ``daily_units``, ``daily`` with ``time`` and one list per
requested variable), from a deterministic week it derives from the coordinates, and
records each request's query. ``mode`` makes it misbehave the ways a real service can:
``"error"`` (HTTP 400 with ``{"error": true, "reason"}``, as Open-Meteo answers a bad
request), ``"down"`` (HTTP 503 with no JSON), ``"slow"`` (answers after ``delay_s``),
``"garbled"`` (HTTP 200 that is not the documented shape).
"""

from __future__ import annotations

import json
import threading
import time
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


class OpenMeteoStandIn:
    """``with OpenMeteoStandIn() as service: service.url``: serving on 127.0.0.1."""

    def __init__(self, start: date | None = None) -> None:
        self.start = start
        self.mode = "ok"
        self.delay_s = 2.0
        self.requests: list[dict[str, list[str]]] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:
                stand_in.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> OpenMeteoStandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        parsed = urlparse(request.path)
        query = parse_qs(parsed.query)
        self.requests.append(query)
        if self.mode == "slow":
            time.sleep(self.delay_s)
        if parsed.path != "/v1/forecast":
            self.send(request, 404, {"error": True, "reason": "Not Found"})
        elif self.mode == "error":
            self.send(request, 400, {"error": True, "reason": "Latitude must be in range"})
        elif self.mode == "down":
            request.send_response(503)
            request.end_headers()
            request.wfile.write(b"<html>Service Unavailable</html>")
        elif self.mode == "garbled":
            self.send(request, 200, {"latitude": 1.0, "hourly": {}})
        else:
            self.send(request, 200, self.week(query))

    @staticmethod
    def send(request: BaseHTTPRequestHandler, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def week(self, query: dict[str, list[str]]) -> dict[str, Any]:
        """The documented response for the asked coordinates and days."""
        latitude = float(query["latitude"][0])
        longitude = float(query["longitude"][0])
        days = int(query.get("forecast_days", ["7"])[0])
        start = self.start or date.today()
        times = [(start + timedelta(days=n)).isoformat() for n in range(days)]
        base = round(25 - abs(latitude) / 3)
        codes = [0, 3, 61, 45, 71, 2, 95]
        return {
            "latitude": latitude,
            "longitude": longitude,
            "generationtime_ms": 0.2,
            "utc_offset_seconds": 3600,
            "timezone": query.get("timezone", ["GMT"])[0],
            "timezone_abbreviation": "CET",
            "elevation": 10.0,
            "daily_units": {
                "time": "iso8601",
                "weather_code": "wmo code",
                "temperature_2m_max": "°C",
                "temperature_2m_min": "°C",
                "wind_speed_10m_max": "km/h",
            },
            "daily": {
                "time": times,
                "weather_code": [codes[n % len(codes)] for n in range(days)],
                "temperature_2m_max": [base + n + 0.4 for n in range(days)],
                "temperature_2m_min": [base - 5 + n for n in range(days)],
                "wind_speed_10m_max": [12.0 if n else 45.0 for n in range(days)],
            },
        }
