"""The planner backend: compound queries split into clauses and solved with tools, offline.

>>> from cloud_agent.planner import PlannerReasoner, make_plan
>>> [c.tool for c in make_plan("weather in Paris and Berlin").calls]
['get_weather', 'get_weather']
"""

from cloud_agent.planner.calls import Plan, PlannedCall
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.reasoner import PlannerReasoner

__all__ = ["Plan", "PlannedCall", "PlannerReasoner", "make_plan"]
