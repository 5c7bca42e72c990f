"""Agents: anything that chooses a move for a position under a limit.

One interface (:class:`~imago.agents.base.Agent`) serves the GTP engine, terminal play, matches
and neural networks; a registry (:mod:`imago.agents.registry`) makes agents by name with typed
options.
"""

from imago.agents.base import Agent, AgentError, Candidate, Limit, SearchResult
from imago.agents.registry import (
    AgentSpec,
    agent_from_spec,
    agent_specs,
    make_agent,
    parse_agent_spec,
)

__all__ = [
    "Agent",
    "AgentError",
    "AgentSpec",
    "Candidate",
    "Limit",
    "SearchResult",
    "agent_from_spec",
    "agent_specs",
    "make_agent",
    "parse_agent_spec",
]
