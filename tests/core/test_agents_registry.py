"""The agent registry: names, typed options, text specs."""

from __future__ import annotations

import pytest

from imago.agents.registry import agent_specs, make_agent, parse_agent_spec


def test_parse_agent_spec_with_quotes():
    name, options = parse_agent_spec('gtp:command="gnugo --mode gtp --level 10",timeout=5')
    assert name == "gtp"
    assert options == {"command": "gnugo --mode gtp --level 10", "timeout": "5"}
    assert parse_agent_spec("random") == ("random", {})


@pytest.mark.parametrize("bad", ["", ":x=1", "mcts:playouts", 'gtp:command="open'])
def test_bad_agent_specs(bad: str):
    with pytest.raises(ValueError):
        parse_agent_spec(bad)


def test_random_agent_registered_with_typed_options():
    spec = agent_specs()["random"]
    assert ("avoid_own_eyes", "bool", True) in spec.option_fields()
    with pytest.raises(ValueError, match="no option"):
        make_agent("random", "go", {"nonsense": "1"})
    with pytest.raises(ValueError, match=r"avoid_own_eyes='maybe' is not true or false"):
        make_agent("random", "go", {"avoid_own_eyes": "maybe"})
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nobody", "go")
