"""The cloud's forecast provider: Open-Meteo's forecast API, or the built-in synthetic one.

``get_weather`` in the cloud asks a provider for a city's week: seven days of readings
(``{"YYYY-MM-DD": {"temperature", "condition"}}``), which the observation carries whole so
that the device keeps the week in its forecast cache (``understanding.forecast``). Which
provider serves is configuration, read when the cloud builds its tools:

``EDGELOOP_FORECAST_URL``
    Base URL of an Open-Meteo server (``https://api.open-meteo.com``, or your own
    instance; the client calls ``{base}/v1/forecast``). Unset: the synthetic provider
    serves, and every observation says ``source = "synthetic"``.
``EDGELOOP_FORECAST_TIMEOUT_S``
    Seconds a request may take (default 5).

The Open-Meteo client asks for the documented daily variables (``weather_code``,
``temperature_2m_max``, ``temperature_2m_min``, ``wind_speed_10m_max``) in the city's own
time zone and reads the documented response: ``daily.time`` and one list per variable.
The day's temperature is its high, rounded; the condition comes from the WMO weather code
(and wind of 40 km/h or more on an otherwise dry day is "windy"). A city's week is kept in
memory for ``ttl_s`` (30 minutes), so a burst of questions makes one request. Errors (an
HTTP error with Open-Meteo's ``{"error": true, "reason"}``, a timeout, a response of
another shape) raise :class:`ForecastError` with a one-line reason: the tool fails, and
nothing is guessed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from datetime import date, timedelta
from functools import cache
from typing import Any, Protocol

import httpx

from cloud_agent.errors import ForecastError
from understanding.forecast import HORIZON_DAYS, SYNTHETIC, synthetic_reading
from understanding.gazetteer import Place

OPEN_METEO = "open-meteo"
DAILY = ("weather_code", "temperature_2m_max", "temperature_2m_min", "wind_speed_10m_max")
WINDY_KPH = 40.0


class ForecastProvider(Protocol):
    """What ``get_weather`` in the cloud needs: a city's week, and the source's name."""

    source: str

    def week(self, place: Place, today: date) -> dict[str, dict[str, Any]]: ...


class SyntheticProvider:
    """The built-in provider for installs with no forecast service (demo, tests, offline)."""

    source = SYNTHETIC

    def week(self, place: Place, today: date) -> dict[str, dict[str, Any]]:
        """Seven plausible days from ``today`` (``understanding.forecast.synthetic_reading``)."""
        days = (today + timedelta(days=n) for n in range(HORIZON_DAYS))
        return {d.isoformat(): synthetic_reading(place.key, place.latitude, d) for d in days}


def condition_of(code: int, wind_kph: float | None) -> str:
    """The tool's condition for a WMO weather code (Open-Meteo's ``weather_code``)."""
    if code in (45, 48):
        return "foggy"
    if 71 <= code <= 77 or code in (85, 86):
        return "snowy"
    if 51 <= code <= 67 or 80 <= code <= 82 or 95 <= code <= 99:
        return "rainy"
    if wind_kph is not None and wind_kph >= WINDY_KPH:
        return "windy"
    if code in (0, 1):
        return "sunny"
    if code in (2, 3):
        return "cloudy"
    return "unknown"


class OpenMeteoProvider:
    """A client of Open-Meteo's forecast API (``GET {base}/v1/forecast``)."""

    source = OPEN_METEO

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 5.0,
        ttl_s: float = 1800.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"forecast URL must be http(s)://..., not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.ttl_s = ttl_s
        self._client = httpx.Client(timeout=timeout_s, transport=transport)
        self._cache: dict[tuple[str, str], tuple[float, dict[str, dict[str, Any]]]] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def week(self, place: Place, today: date) -> dict[str, dict[str, Any]]:
        """The city's seven days from ``today`` (its own date), fetched or remembered."""
        key = (place.key, today.isoformat())  # the place: Paris, Texas is not Paris
        with self._lock:
            kept = self._cache.get(key)
            if kept is not None and time.monotonic() - kept[0] < self.ttl_s:
                return kept[1]
        week = self._fetch(place)
        with self._lock:
            self._cache[key] = (time.monotonic(), week)
        return week

    def _fetch(self, place: Place) -> dict[str, dict[str, Any]]:
        params: dict[str, str | int | float] = {
            "latitude": place.latitude,
            "longitude": place.longitude,
            "daily": ",".join(DAILY),
            "timezone": place.timezone,
            "forecast_days": HORIZON_DAYS,
        }
        try:
            response = self._client.get(f"{self.base_url}/v1/forecast", params=params)
        except httpx.TimeoutException:
            raise ForecastError("the forecast service did not answer in time") from None
        except httpx.HTTPError as exc:
            raise ForecastError(f"cannot reach the forecast service: {exc}") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code != 200:
            reason = body.get("reason") if isinstance(body, dict) else None
            raise ForecastError(
                f"the forecast service answered {response.status_code}"
                + (f": {reason}" if reason else "")
            )
        return _read_daily(body)


def _read_daily(body: Any) -> dict[str, dict[str, Any]]:
    """The week in an Open-Meteo response, or ForecastError for another shape."""
    daily = body.get("daily") if isinstance(body, dict) else None
    if not isinstance(daily, dict) or not isinstance(daily.get("time"), list):
        raise ForecastError("the forecast service's answer has no daily forecast")
    days = daily["time"]
    columns: dict[str, list[Any]] = {}
    for name in DAILY:
        values = daily.get(name)
        if not isinstance(values, list) or len(values) != len(days):
            raise ForecastError("the forecast service's daily forecast is incomplete")
        columns[name] = values
    week: dict[str, dict[str, Any]] = {}
    for i, day in enumerate(days):
        code, high = columns["weather_code"][i], columns["temperature_2m_max"][i]
        wind = columns["wind_speed_10m_max"][i]
        if not isinstance(day, str) or code is None or high is None:
            continue  # a day the service has no data for is left out, not guessed
        try:
            date.fromisoformat(day)
            temperature = round(float(high))
            condition = condition_of(int(code), None if wind is None else float(wind))
        except (TypeError, ValueError):
            raise ForecastError(f"the forecast service's day {day!r} is malformed") from None
        if not -100 <= temperature <= 60:
            raise ForecastError(f"the forecast service gave {temperature} °C for {day}")
        week[day] = {"temperature": temperature, "condition": condition}
    return week


@cache
def configured_provider() -> ForecastProvider:
    """The provider ``$EDGELOOP_FORECAST_URL`` names, made once per process (its week
    cache and connection pool serve every request); ``cache_clear()`` re-reads it."""
    return provider_from_env()


def provider_from_env(environ: Mapping[str, str] | None = None) -> ForecastProvider:
    """The provider the configuration names (see the module docstring)."""
    env = os.environ if environ is None else environ
    url = env.get("EDGELOOP_FORECAST_URL", "").strip()
    if not url:
        return SyntheticProvider()
    timeout = float(env.get("EDGELOOP_FORECAST_TIMEOUT_S") or 5.0)
    return OpenMeteoProvider(url, timeout_s=timeout)
