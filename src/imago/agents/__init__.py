"""Agents: anything that chooses a move for a position under a limit.

One interface (:class:`~imago.agents.base.Agent`) serves the GTP engine, terminal play, matches
and neural networks; a registry (:mod:`imago.agents.registry`) makes agents by name with typed
options.
"""

from imago.agents.base import Agent, Candidate, Limit, SearchResult
from imago.agents.registry import AgentSpec, agent_specs, make_agent, parse_agent_spec

__all__ = [
    "Agent",
    "AgentSpec",
    "Candidate",
    "Limit",
    "SearchResult",
    "agent_specs",
    "make_agent",
    "parse_agent_spec",
]
