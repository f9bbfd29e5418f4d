"""A follow-up that goes to the cloud takes its context along: the rewritten request is
what the cloud plans, and the first step it gets names the words said and the entities."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from edge_agent.agent import EdgeAgent
from edge_agent.cloud_link import CloudLink
from edgeloop.v1 import agent_pb2 as pb
from examples.demo import load_router
from sync.store import MemoryStore


def test_a_follow_up_to_the_cloud_carries_its_context(make_cloud: Any, tmp_path: Path) -> None:
    cloud = make_cloud()
    link = CloudLink(cloud.target, deadline_s=20, retries=0)
    try:
        with MemoryStore(tmp_path / "edge.db") as memory:
            agent = EdgeAgent(memory, load_router()[0], cloud=link)
            list(agent.ask("what's the weather in london today"))
            steps = list(agent.ask("and in Paris?"))
            first = steps[0]
            assert first.step_type == pb.STEP_TYPE_THOUGHT
            assert first.metadata["followup_of"] == "and in Paris?"
            assert json.loads(first.metadata["context"])["city"] == "london"
            assert "Paris" in steps[-1].content  # planned as the weather in Paris today
    finally:
        link.close()
