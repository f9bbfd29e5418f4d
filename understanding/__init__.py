"""What both sides understand the same way: the shared understanding layer.

The device's agent (``edge_agent``) and the cloud's reasoner (``cloud_agent``) both read
people's requests; everything they must read alike lives here, once:

- ``understanding.router`` and its decision types (``RouteDecision``, ``ToolCall``): the
  INT8 model runtime both sides load (``encoder``, ``intents``, ``slu``) and the route
  decision it makes;
- ``understanding.arguments``: the slot and argument readers (numbers, durations, dates,
  places, devices, free text);
- ``understanding.gazetteer``: the gazetteer (every GeoNames city over 15,000 people);
- ``understanding.tools``: the built-in tools, with the catalogue
  (``understanding.tools.catalogue``): one table from which every list of tools is derived;
- ``understanding.settings``, ``forecast``, ``answers``, ``requests``, ``structure``: the
  device settings, the forecast cache, the answer templates and the request readers.

It imports neither agent; both agents import it (import-linter keeps it so).
"""
