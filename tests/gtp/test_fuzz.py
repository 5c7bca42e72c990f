"""Fuzzing the engine with malformed and random lines: every command line gets exactly one
well-formed answer, never a traceback, and the game stays consistent (a failed command changes
nothing; the positions always equal a fresh replay of the moves)."""

from __future__ import annotations

import re

from gtp_helpers import make_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from imago.gtp.engine import COMMANDS, GtpServer
from imago.gtp.game_engine import EngineConfig, GameEngine
from imago.gtp.protocol import parse_command

RESPONSE = re.compile(r"\A[=?](\d+)?(( [^\n]*)?(\n[^\n]+)*)?\n\n\Z")
NAMES = [*COMMANDS.names("go"), "", "Play", "genmove_black", "lz-analyze", "quit"]
WORDS = [
    "b",
    "w",
    "black",
    "white",
    "pass",
    "D4",
    "a1",
    "J9",
    "T19",
    "I5",
    "0",
    "1",
    "9",
    "-3",
    "7.5",
    "0.3",
    "nan",
    "inf",
    "1e400",
    "dead",
    "alive",
    "japanese",
    "none",
    "byoyomi",
    "absolute",
    "canadian",
    "interval",
    "maxmoves",
    "\t",
    "#",
    "\x00",
    "\r",
    "é",
]

lines = st.one_of(
    st.builds(
        lambda cid, name, args, tail: f"{cid}{name} {' '.join(args)}{tail}",
        st.sampled_from(["", "1 ", "42 ", "x ", "007 "]),
        st.sampled_from(NAMES),
        st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), max_size=4),
        st.sampled_from(["", "\n", "\r\n", " # comment", "\x7f"]),
    ),
    st.text(max_size=40),
)


def snapshot(server: GtpServer) -> tuple[object, ...]:
    game = server.game
    return (
        game.size,
        game.komi,
        game.rules,
        game.state.key,
        tuple(game.moves()),
        game.handicap_stones(),
        game.time_settings,
    )


def replayed_key(game: GameEngine) -> int:
    fresh = GameEngine(EngineConfig("go", game.size, game.komi, game.rules))
    if game.handicap_stones():
        fresh.set_handicap(game.handicap_stones())
    for color, move in game.moves():
        fresh.play(move, color)
    return fresh.state.key


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, min_size=1, max_size=25))
def test_every_line_is_answered_and_the_game_stays_consistent(script: list[str]):
    server = make_server("go", size=7)
    for line in script:
        before = snapshot(server)
        response = server.handle(line)
        if parse_command(line) is None:
            assert response == ""
            continue
        assert RESPONSE.match(response), (line, response)
        assert "internal error" not in response and "Traceback" not in response, (line, response)
        if response.startswith("?"):
            assert snapshot(server) == before, line
        assert server.game.state.key == replayed_key(server.game)


@settings(max_examples=40, deadline=None)
@given(st.lists(lines, min_size=1, max_size=15))
def test_othello_never_fails_badly(script: list[str]):
    server = make_server("othello")
    for line in script:
        response = server.handle(line)
        if parse_command(line) is not None:
            assert RESPONSE.match(response), (line, response)
            assert "internal error" not in response, (line, response)
