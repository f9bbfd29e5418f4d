"""The cloud's web page (``cloud-agent serve --ui-port N``): sessions per device as they
run, backends with their breaker state, sessions/s and step latency as small charts, and
each user's memory. Built on :mod:`edge_agent.ui` (the same access rules, templates and
vendored htmx).

Example:
    >>> console = CloudConsole(cloud_server)                       # doctest: +SKIP
    >>> access = UiAccess.checked("127.0.0.1", None)                # doctest: +SKIP
    >>> page = UiServer(cloud_app(console), access, 8766)           # doctest: +SKIP
"""

from cloud_agent.ui.app import cloud_app, render_cloud_panel, serve_page
from cloud_agent.ui.console import Chart, CloudConsole, DeviceSummary, quantile

__all__ = [
    "Chart",
    "CloudConsole",
    "DeviceSummary",
    "cloud_app",
    "quantile",
    "render_cloud_panel",
    "serve_page",
]
