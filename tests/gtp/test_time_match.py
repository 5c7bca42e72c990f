"""Time control in a controlled match: a searching agent under absolute time, told its clock by
``time_left`` before every move as a match controller does, never runs out."""

from __future__ import annotations

import time

import pytest
from gtp_helpers import ask

from imago.agents.registry import agent_specs, make_agent
from imago.gtp.engine import GtpServer
from imago.gtp.game_engine import EngineConfig, GameEngine

pytestmark = pytest.mark.skipif("mcts" not in agent_specs(), reason="no searching agent")


def test_never_loses_on_time_under_absolute_time():
    server = GtpServer(GameEngine(EngineConfig("go", 9), make_agent("mcts", "go", seed=1)))
    ask(server, "time_settings 3 0 0")
    clocks = {"b": 3.0, "w": 3.0}
    for number in range(40):
        color = "bw"[number % 2]
        ask(server, f"time_left {color} {clocks[color]:.3f} 0")
        started = time.monotonic()
        move = ask(server, f"genmove {color}")
        clocks[color] -= time.monotonic() - started
        assert clocks[color] > 0, f"{color} ran out of time at move {number + 1}"
        if move == "resign" or server.game.state.is_over():
            break
    assert len(server.game.moves()) >= 10
