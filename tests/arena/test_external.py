"""The ``gtp`` agent: keeping a program's board in step, restarts, and real programs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from imago.agents.base import Limit
from imago.agents.registry import make_agent
from imago.arena.external import GtpAgent, GtpOptions, game_history
from imago.core.color import Color
from imago.core.move import Move
from imago.games import make
from imago.gtp.client import EngineTerminatedError, GtpEngine, ScriptedTransport

FAKE = Path(__file__).resolve().parent / "fake_engine.py"


def fake_command(*flags: str) -> str:
    return " ".join([sys.executable, str(FAKE), *flags])


def go(*moves: str, komi: float = 7.0):  # type: ignore[no-untyped-def]
    from imago.games.go import GoRules

    state = make("go", size=9, rules=GoRules.preset("chinese").with_komi(komi))
    for text in moves:
        state = state.play(state.parse_move(text))
    return state


def scripted_agent(transport: ScriptedTransport) -> GtpAgent:
    agent = GtpAgent(GtpOptions(command="unused"))
    agent.engine = GtpEngine(transport)
    return agent


def test_agent_sends_only_new_moves_and_replays_a_new_game() -> None:
    transport = ScriptedTransport()
    for command, answer in [
        ("boardsize 9", "="),
        ("clear_board", "="),
        ("komi 7", "="),
        ("play black E5", "="),
        ("genmove white", "= C3"),
        ("play black D4", "="),  # only the new move: C3 was the program's own
        ("genmove white", "= pass"),
        ("boardsize 9", "="),  # another game: start over
        ("clear_board", "="),
        ("komi 7", "="),
        ("play black A1", "="),
        ("genmove white", "= J9"),
    ]:
        transport.expect(command, answer)
    agent = scripted_agent(transport)
    state = go("E5")
    assert agent.select_move(state, Limit()).move == state.parse_move("C3")
    state = state.play(state.parse_move("C3")).play(state.parse_move("D4"))
    assert agent.select_move(state, Limit()).move == Move.PASS
    assert agent.select_move(go("A1"), Limit()).move == state.parse_move("J9")
    assert transport.done()


def test_time_limit_is_passed_on_when_the_program_knows_time_commands() -> None:
    transport = ScriptedTransport()
    for command, answer in [
        ("boardsize 9", "="),
        ("clear_board", "="),
        ("komi 6.5", "="),
        ("list_commands", "= time_settings\ntime_left\ngenmove"),
        ("time_settings 0 2 1", "="),
        ("time_left black 2 1", "="),
        ("genmove black", "= E5"),
    ]:
        transport.expect(command, answer)
    agent = scripted_agent(transport)
    assert agent.select_move(go(komi=6.5), Limit(time=2.5)).move.is_play
    assert transport.done()


def test_othello_passes_refused_by_the_program_are_skipped() -> None:
    state = make("othello")
    transport = ScriptedTransport()
    for command, answer in [
        ("boardsize 8", "="),
        ("clear_board", "="),
        ("play black F5", "="),
        ("play white pass", "? syntax error"),  # gtp-rhino passes by itself
        ("genmove black", "= D6"),
    ]:
        transport.expect(command, answer)
    agent = scripted_agent(transport)
    # Build a history with a white pass in it by setting up a state after black's move.
    after = state.play(state.parse_move("f5"))
    history_with_pass = _FakeHistory(after, Move.PASS)
    assert agent.select_move(history_with_pass, Limit()).move == state.parse_move("d6")
    assert transport.done()


class _FakeHistory:
    """A stand-in state whose last move is ``move`` played by the side to move of ``before``."""

    def __init__(self, before, move: Move) -> None:  # type: ignore[no-untyped-def]
        self.previous = before
        self.last_move = move
        self.game, self.size = before.game, before.size
        self.to_play = before.to_play.opponent

    def board(self) -> np.ndarray:
        return np.asarray(self.previous.board())


def test_game_history_colours_come_from_the_board() -> None:
    state = go("E5", "C3")
    state = state.play(Move.PASS).play(state.parse_move("D4"))
    assert game_history(state) == [
        (Color.BLACK, state.parse_move("E5")),
        (Color.WHITE, state.parse_move("C3")),
        (Color.BLACK, Move.PASS),
        (Color.WHITE, state.parse_move("D4")),
    ]


def test_dead_program_is_restarted_and_brought_up_to_date() -> None:
    agent = make_agent("gtp", "go", {"command": fake_command("--die-at", "2", "--first-free")})
    assert isinstance(agent, GtpAgent)
    try:
        state = go()
        first = agent.select_move(state, Limit()).move
        state = state.play(first).play(state.parse_move("E5"))
        with pytest.raises(EngineTerminatedError):
            agent.select_move(state, Limit())
        again = agent.select_move(state, Limit())  # a new process, given the whole game
        assert agent.restarts == 1
        assert again.move.is_play and state.is_legal(again.move)
    finally:
        agent.close()


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="command"):
        make_agent("gtp", "go", {})
    with pytest.raises(ValueError, match="notation"):
        make_agent("gtp", "go", {"command": "gnugo", "notation": "sgf"})


@pytest.mark.engine
def test_gnugo_plays_a_legal_game_as_an_agent(gnugo: str) -> None:
    command = f"{gnugo} --mode gtp --level 1 --chinese-rules --positional-superko"
    agent = make_agent("gtp", "go", {"command": command})
    random = make_agent("random", "go", seed=3)
    state = go()
    try:
        while not state.is_over() and state.move_number < 200:
            player = agent if state.to_play is Color.WHITE else random
            move = player.select_move(state, Limit()).move
            if move.is_resign:
                break
            state = state.play(move)  # raises if GNU Go's move were illegal here
        assert isinstance(agent, GtpAgent)
        score = agent.final_score(state)
        assert score is not None and score.winner is Color.WHITE
    finally:
        agent.close()


def test_a_program_run_from_its_own_folder_with_cwd(tmp_path: Path) -> None:
    """``cwd`` starts the program in its folder (as Pachi must be): a command relative to that
    folder starts there and nowhere else."""
    from imago.agents.base import AgentError

    script = tmp_path / "engine"
    script.write_text(f'#!/bin/sh\nexec {fake_command()} "$@"\n')
    script.chmod(0o755)
    agent = GtpAgent(GtpOptions(command="./engine", cwd=str(tmp_path)))
    try:
        agent.prepare("go", 9)
        state = go("E5")
        assert state.is_legal(agent.select_move(state, Limit()).move)
    finally:
        agent.close()
    elsewhere = GtpAgent(GtpOptions(command="./engine"))
    with pytest.raises(AgentError, match="cwd=FOLDER"):  # the error says what to do
        elsewhere.prepare("go", 9)


def test_a_cwd_that_is_no_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a folder"):
        GtpAgent(GtpOptions(command="gnugo --mode gtp", cwd=str(tmp_path / "missing")))
