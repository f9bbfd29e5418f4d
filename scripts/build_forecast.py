"""Build the bundled forecast cache, ``edge_agent/data/forecast.json``.

The device answers weather queries offline, so the project ships a forecast for every
city of ``edge_agent/data/cities.json``, today and tomorrow. The values are derived from
a hash of the city name (deterministic: rebuilding gives the same file byte for byte) and
a rough climate band, so that Dubai is warmer than Moscow and the demo reads plausibly.

Usage: ``python scripts/build_forecast.py [--check]`` (``--check`` fails on a difference).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "edge_agent" / "data"
CONDITIONS = ["sunny", "cloudy", "rainy", "snowy", "windy", "foggy"]
# Rough mean temperature (°C) by city, so the cache is plausible; unknown cities get 15.
CLIMATE = {
    "beijing": 8,
    "shanghai": 14,
    "guangzhou": 22,
    "shenzhen": 23,
    "hangzhou": 14,
    "chengdu": 12,
    "wuhan": 13,
    "xian": 9,
    "nanjing": 12,
    "hong kong": 22,
    "taipei": 21,
    "tokyo": 13,
    "osaka": 14,
    "seoul": 8,
    "singapore": 28,
    "bangkok": 30,
    "delhi": 22,
    "mumbai": 29,
    "dubai": 27,
    "moscow": -2,
    "istanbul": 12,
    "london": 9,
    "paris": 10,
    "berlin": 6,
    "madrid": 12,
    "rome": 14,
    "amsterdam": 8,
    "stockholm": 3,
    "new york": 8,
    "los angeles": 19,
    "chicago": 3,
    "san francisco": 14,
    "seattle": 9,
    "toronto": 2,
    "vancouver": 7,
    "mexico city": 17,
    "sao paulo": 23,
    "buenos aires": 24,
    "cairo": 20,
    "lagos": 28,
    "nairobi": 19,
    "sydney": 23,
    "melbourne": 19,
    "auckland": 18,
}


def _draw(city: str, day: str) -> tuple[int, str]:
    digest = hashlib.sha256(f"{city}|{day}".encode()).digest()
    mean = CLIMATE.get(city, 15)
    temperature = mean + digest[0] % 9 - 4
    choices = [c for c in CONDITIONS if c != "snowy" or temperature <= 2]
    condition = choices[digest[1] % len(choices)]
    return temperature, condition


def build() -> dict[str, dict[str, dict[str, object]]]:
    """The forecast for every city, keyed by city then by day."""
    cities = json.loads((DATA / "cities.json").read_text(encoding="utf-8"))
    forecast: dict[str, dict[str, dict[str, object]]] = {}
    for entry in cities:
        city = entry["city"]
        forecast[city] = {}
        for day in ("today", "tomorrow"):
            temperature, condition = _draw(city, day)
            forecast[city][day] = {"temperature": temperature, "condition": condition}
    return forecast


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file would change")
    args = parser.parse_args()
    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    path = DATA / "forecast.json"
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print(f"{path} is out of date: run scripts/build_forecast.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
