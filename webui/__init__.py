"""The web plumbing both pages share: access rules, the server, event streams, live sessions.

The device's page (``edge_agent.ui``) and the cloud's (``cloud_agent.ui``) are built on
these; neither agent imports the other's page. Loopback unless told otherwise, a bearer
token beyond it (:class:`UiAccess`).

Modules: ``access`` (who may load a page), ``server`` (uvicorn behind the access guard),
``events`` (server-sent events), ``live`` (sessions as they run), ``pages`` (templates),
``routes`` (routes both pages serve), ``memory_view`` (memory as a page shows it). The
package itself imports nothing, so a light module (``webui.access``) costs no web stack.
"""
