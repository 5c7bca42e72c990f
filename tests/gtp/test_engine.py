"""The GTP engine command by command, on the real Go and Othello rules.

Includes the design's system tests of the engine interface: the available commands are listed;
a move updates the state; asking for a move (``reg_genmove``) suggests one without changing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gtp_helpers import AnalysingAgent, ask, make_server, refuse

from imago.agents.base import AgentError
from imago.agents.registry import make_agent
from imago.gtp.engine import COMMANDS, GtpServer
from imago.gtp.game_engine import EngineConfig, GameEngine

REQUIRED = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
]


def snapshot(server: GtpServer) -> tuple[object, ...]:
    game = server.game
    return (game.size, game.komi, game.rules, len(game.history), game.state.key, game.moves())


# -- the system tests of the design ---------------------------------------------------------
def test_list_commands_lists_the_available_commands(go: GtpServer, othello: GtpServer):
    listed = ask(go, "list_commands").split("\n")
    assert set(REQUIRED) <= set(listed)
    for name in ("undo", "final_score", "fixed_handicap", "kgs-genmove_cleanup", "lz-analyze"):
        assert name in listed
    assert "fixed_handicap" not in ask(othello, "list_commands").split("\n")
    for name in listed:
        assert ask(go, f"known_command {name}") == "true"
    assert ask(go, "known_command no_such_command") == "false"
    assert ask(othello, "known_command fixed_handicap") == "false"


def test_a_move_updates_the_state(go: GtpServer):
    ask(go, "play black D4")
    ask(go, "play white e5")
    assert ask(go, "list_stones black") == "D4"
    assert ask(go, "list_stones white") == "E5"
    assert go.game.state.to_play.name == "BLACK"


def test_reg_genmove_suggests_without_changing_the_state(go: GtpServer):
    ask(go, "play black D4")
    before = snapshot(go)
    for _ in range(5):
        move = ask(go, "reg_genmove black")
        assert ask(go, f"is_legal black {move}") == "1"
    assert snapshot(go) == before


# -- the protocol ------------------------------------------------------------------------------
def test_ids_are_echoed(go: GtpServer):
    assert go.handle("42 protocol_version") == "=42 2\n\n"
    assert go.handle("43 no_such_command") == "?43 unknown command\n\n"
    assert go.handle("# comment") == ""
    assert go.handle("   ") == ""
    assert go.handle("7") == "?7 syntax error\n\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("boardsize", "syntax error"),
        ("boardsize nine", "syntax error"),
        ("boardsize 1", "unacceptable size"),
        ("boardsize 26", "unacceptable size"),
        ("komi", "syntax error"),
        ("komi seven", "syntax error"),
        ("komi nan", "syntax error"),
        ("komi 0.3", "komi must be a multiple of 0.5, not 0.3"),
        ("play black", "syntax error"),
        ("play purple D4", "syntax error"),
        ("play black D0", "syntax error"),
        ("play black T19", "illegal move"),  # a vertex, but off this board
        ("play black I5", "syntax error"),  # GTP columns skip I
        ("play black resign", "syntax error"),
        ("genmove", "syntax error"),
        ("genmove purple", "syntax error"),
        ("undo", "cannot undo"),
        ("fixed_handicap 1", "invalid number of stones"),
        ("fixed_handicap 10", "invalid number of stones"),
        ("fixed_handicap x", "syntax error"),
        ("set_free_handicap D4", "invalid number of stones"),
        ("set_free_handicap D4 D4", "bad vertex list"),
        ("set_free_handicap D4 Z99", "bad vertex list"),
        ("final_status_list undecided", "syntax error"),
        ("time_settings 1 2", "syntax error"),
        ("time_left black x 0", "syntax error"),
        ("kgs-time_settings sudden_death 5", "syntax error"),
        ("kgs-rules chess", "unknown rules 'chess'"),
        ("lz-analyze b 10 bogus 3", "syntax error"),
        ("lz-genmove_analyze", "syntax error"),
    ],
)
def test_errors_are_canonical_and_change_nothing(go: GtpServer, line: str, message: str):
    before = snapshot(go)
    assert refuse(go, line) == message
    assert snapshot(go) == before


def test_illegal_moves(go: GtpServer):
    ask(go, "boardsize 5")
    for move in ("B5 white", "A4 white", "B4 black"):
        vertex, color = move.split()
        ask(go, f"play {color} {vertex}")
    before = snapshot(go)
    assert refuse(go, "play black B4") == "illegal move"  # occupied
    assert refuse(go, "play black A5") == "illegal move"  # suicide
    assert ask(go, "is_legal black A5") == "0"
    assert ask(go, "is_legal white A5") == "1"
    assert snapshot(go) == before


def test_board_size_komi_and_default_komi():
    server = make_server("go")
    assert ask(server, "final_score") == "W+7"  # empty 9x9: komi 7
    ask(server, "boardsize 19")
    assert ask(server, "final_score") == "W+7.5"
    ask(server, "komi 0")
    assert ask(server, "final_score") == "0"  # jigo is a real result with integer komi
    ask(server, "boardsize 9")
    assert ask(server, "final_score") == "0"  # komi, once set, stays


def test_komi_mid_game_keeps_the_game(go: GtpServer):
    ask(go, "play black E5")
    ask(go, "komi 0.5")
    assert ask(go, "list_stones black") == "E5"
    assert ask(go, "final_score") == "B+80.5"


def test_undo_and_clear_board(go: GtpServer):
    ask(go, "play black E5")
    ask(go, "play white D5")
    ask(go, "undo")
    assert ask(go, "list_stones white") == ""
    ask(go, "undo")
    assert refuse(go, "undo") == "cannot undo"
    ask(go, "play black A1")
    ask(go, "clear_board")
    assert ask(go, "list_stones black") == ""


def test_captures_and_showboard(go: GtpServer):
    for line in (
        "play b D5",
        "play w E5",
        "play b F5",
        "play w A1",
        "play b E6",
        "play w A2",
        "play b E4",
    ):
        ask(go, line)
    assert ask(go, "captures black") == "1"
    assert ask(go, "captures white") == "0"
    board = go.handle("showboard")
    assert board.startswith("=\n")
    assert "  5 . . . X . X . . . 5" in board
    assert "A B C D E F G H J" in board


def test_fixed_handicap_in_gtp_order():
    server = make_server("go", size=19)
    assert ask(server, "fixed_handicap 4") == "D4 Q16 D16 Q4"
    assert server.game.state.to_play.name == "WHITE"
    assert refuse(server, "fixed_handicap 2") == "board not empty"
    assert refuse(server, "undo") == "cannot undo"
    nine = make_server("go")
    assert ask(nine, "fixed_handicap 9") == "C3 G7 C7 G3 C5 G5 E3 E7 E5"


def test_free_handicap():
    server = make_server("go")
    stones = ask(server, "place_free_handicap 12").split()
    assert len(set(stones)) == 12
    assert sorted(ask(server, "list_stones black").split()) == sorted(stones)
    other = make_server("go")
    ask(other, "set_free_handicap A1 B2 C3")
    assert sorted(ask(other, "list_stones black").split()) == ["A1", "B2", "C3"]
    assert refuse(other, "set_free_handicap D4 E5") == "board not empty"


def test_rules_change_the_score():
    server = make_server("go")
    for line in ("play b C3", "play w G7", "play b pass", "play w pass"):
        ask(server, line)
    assert ask(server, "final_score") == "W+7"  # area: 1 stone each, the rest dame; komi 7
    ask(server, "kgs-rules japanese")
    assert server.game.state.rules.scoring.value == "territory"  # type: ignore[attr-defined]
    assert ask(server, "list_stones black") == "C3"
    assert ask(server, "final_score") == "W+6.5"  # no territory; the Japanese preset's komi
    ask(server, "komi 0")
    assert ask(server, "final_score") == "0"
    ask(server, "kgs-rules new_zealand")
    assert server.game.rules == "nz"


def test_final_status_list_after_a_capture_race(go: GtpServer):
    ask(go, "boardsize 5")
    ask(go, "komi 0")
    # Black walls off the bottom rows; a lone white stone inside is dead.
    for line in ("b A3", "b B3", "b C3", "b D3", "b E3", "w C1"):
        colour, vertex = line.split()
        ask(go, f"play {colour} {vertex}")
    assert ask(go, "final_status_list dead") == "C1"
    assert set(ask(go, "final_status_list alive").split()) == {"A3", "B3", "C3", "D3", "E3"}
    assert ask(go, "final_score") == "B+25"


def test_final_status_lists_and_score_come_from_the_count(go: GtpServer):
    # a seki without eyes on the left edge (A2-A8 against B1-B9, sharing A9 and A1), the rest
    # split between White (C, F) and Black (G); no dead stones
    ask(go, "komi 6.5")
    ask(go, "kgs-rules chinese")
    columns = {"B": "b", "C": "w", "F": "w", "G": "b"}
    for column, colour in columns.items():
        for row in range(1, 10):
            ask(go, f"play {colour} {column}{row}")
    for row in range(2, 9):
        ask(go, f"play w A{row}")
    seki = {f"A{row}" for row in range(2, 9)} | {f"B{row}" for row in range(1, 10)}
    assert set(ask(go, "final_status_list seki").split()) == seki
    assert ask(go, "final_status_list dead") == ""
    assert len(ask(go, "final_status_list alive").split()) == 27
    assert ask(go, "final_score") == "W+13.5"  # A9 and A1 are dame
    ask(go, "kgs-rules japanese")
    ask(go, "komi 6.5")
    assert ask(go, "final_score") == "W+6.5"  # seki points are no territory


def test_genmove_plays_and_resign_is_not_played(go: GtpServer):
    move = ask(go, "genmove black")
    assert ask(go, "list_stones black") == move
    ask(go, "genmove white")
    assert len(go.game.moves()) == 2


def test_time_settings_reach_the_agent():
    agent = AnalysingAgent(updates=1, pause=0)
    server = make_server("go", agent=agent)
    ask(server, "genmove b")
    assert agent.limits[-1].time == 2.0  # the default move time
    ask(server, "time_settings 60 0 0")
    ask(server, "time_left w 30 0")
    ask(server, "genmove w")
    assert 0 < (agent.limits[-1].time or 0) <= 30 / 5
    ask(server, "kgs-time_settings byoyomi 0 10 3")
    ask(server, "time_left b 10 3")
    ask(server, "genmove b")
    assert agent.limits[-1].time == pytest.approx(10 * 0.95 - 0.3)


def test_cleanup_does_not_pass_while_dead_stones_remain():
    server = make_server("go", agent=AnalysingAgent(updates=1, pause=0, passes=True))
    ask(server, "boardsize 5")
    for line in ("b A3", "b B3", "b C3", "b D3", "b E3", "w C1"):
        colour, vertex = line.split()
        ask(server, f"play {colour} {vertex}")
    assert ask(server, "reg_genmove black") == "pass"
    move = ask(server, "kgs-genmove_cleanup black")
    assert move in ("B1", "D1", "C2")
    assert ask(server, "list_stones white") == "C1"


# -- analysis ---------------------------------------------------------------------------------
def test_analysis_with_an_agent_without_search_information(go: GtpServer):
    assert "no search information" in refuse(go, "lz-analyze b 10")
    assert "no search information" in refuse(go, "kata-analyze 10")
    lines = ask(go, "lz-genmove_analyze b 10").split("\n")
    assert lines[-1].startswith("play ")
    assert len(go.game.moves()) == 1


def test_lz_analyze_lines():
    server = make_server("go", agent=AnalysingAgent(updates=3, pause=0))
    lines = ask(server, "lz-analyze b 0").split("\n")
    assert len(lines) == 3  # three updates; the final result equals the last one
    words = lines[-1].split()
    assert words[:11] == [
        "info",
        "move",
        "A9",
        "visits",
        "30",
        "winrate",
        "6000",
        "prior",
        "5000",
        "lcb",
        "6000",
    ]
    assert words.count("info") == 3
    assert server.game.moves() == []


def test_kata_analyze_lines():
    server = make_server("othello", agent=AnalysingAgent(updates=1, pause=0))
    text = ask(server, "kata-analyze 100")
    assert text.startswith("info move D3 visits 10 winrate 0.600000 prior 0.500000")


def test_genmove_analyze_plays():
    server = make_server("go", agent=AnalysingAgent(updates=2, pause=0))
    lines = ask(server, "lz-genmove_analyze w 0").split("\n")
    assert lines[-1] == "play A9"
    assert ask(server, "list_stones white") == "A9"


def test_gogui_analyze_commands(go: GtpServer):
    gogui_types = {"string", "plist", "var", "sboard", "dboard", "cboard", "gfx", "none"}
    for line in ask(go, "gogui-analyze_commands").split("\n"):
        kind, _label, command = line.split("/")
        assert kind in gogui_types
        assert command.split()[0] in COMMANDS.names("go")


# -- Othello the way gtp-rhino does it ---------------------------------------------------------
def test_othello_vertices_and_board(othello: GtpServer):
    assert refuse(othello, "boardsize 9") == "unacceptable size"
    ask(othello, "boardsize 8")
    ask(othello, "play black d3")
    assert sorted(ask(othello, "list_stones black").split()) == ["D3", "D4", "D5", "E4"]
    board = othello.handle("showboard")
    assert "  3 . . . X . . . ." in board and "Next move: White" in board
    assert ask(othello, "list_games") == "Othello"
    assert refuse(othello, "set_game Go") == "unsupported game"


def test_othello_pass_only_when_forced(othello: GtpServer):
    assert refuse(othello, "play black pass") == "illegal move"
    assert refuse(othello, "play white c4") == "illegal move"  # not White's turn
    assert ask(othello, "final_score") == "0"


def test_othello_forced_pass_and_implicit_pass():
    # The shortest possible game (9 moves, Maruo): Black owns all 13 discs and nobody can move;
    # the 51 empty squares count for the winner, as WTHOR and the FFO scores count them.
    server = make_server("othello")
    shortest = ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"]
    for index, vertex in enumerate(shortest):
        ask(server, f"play {'black' if index % 2 == 0 else 'white'} {vertex}")
    assert server.game.state.is_over()
    assert ask(server, "final_score") == "B+64"
    assert ask(server, "genmove white") == "pass"


def test_play_goes_on_after_two_passes(go: GtpServer):
    """Controllers may play on after two passes (KGS settles disputed dead stones so)."""
    for line in ("play b E5", "play w pass", "play b pass"):
        ask(go, line)
    assert go.game.state.is_over()
    ask(go, "play w D5")
    assert ask(go, "list_stones white") == "D5"
    assert ask(go, "list_stones black") == "E5"
    assert ask(go, "kgs-genmove_cleanup b") not in ("pass", "resign")
    ask(go, "undo")
    ask(go, "undo")
    assert go.game.state.is_over()


# -- boards the agent cannot play are refused at boardsize, never at genmove (issue 16) ---------


class NineOnly(AnalysingAgent):
    """Plays 9x9 only, as an agent with a 9x9 network does."""

    def prepare(self, game: str, size: int) -> None:
        if size != 9:
            raise AgentError(f"plays 9x9 only, not {size}x{size}")


def test_boardsize_the_agent_cannot_play_is_unacceptable_and_changes_nothing(tmp_path):
    server = make_server("go", NineOnly(), size=9)
    ask(server, "play black E5")
    before = snapshot(server)
    assert refuse(server, "boardsize 13") == "unacceptable size"
    assert snapshot(server) == before
    big = tmp_path / "big.sgf"
    big.write_text("(;GM[1]SZ[13];B[gg])")
    assert refuse(server, f"loadsgf {big}") == "cannot load file"
    assert snapshot(server) == before
    ask(server, "boardsize 9")
    assert ask(server, "genmove white") != ""


@pytest.mark.parametrize(
    ("agent", "six_by_six"),
    [("alphabeta", ""), ("mcts", ""), ("random", ""), ("policy", "unacceptable size")],
)
def test_othello_boards_are_refused_at_boardsize_by_an_agent_that_cannot_play_them(
    agent: str, six_by_six: str
) -> None:
    # gtp-rhino asks for 6x6 Othello; the shipped policy network is 8x8 only
    server = make_server("othello", agent)
    ask(server, "play black d3")
    before = snapshot(server)
    reply = server.handle("boardsize 6")
    assert reply.removeprefix("?").removeprefix("=").strip() == six_by_six
    if six_by_six:
        assert snapshot(server) == before
    else:
        assert server.game.size == 6


def test_an_engine_made_for_each_size_replaces_one_that_cannot_play_it():
    made: list[int] = []

    def agent_for(size: int) -> AnalysingAgent:
        made.append(size)
        return AnalysingAgent(name=f"agent{size}")

    server = GtpServer(GameEngine(EngineConfig("go", 9), NineOnly(), agent_for=agent_for))
    assert ask(server, "version").endswith("(analysing)")
    ask(server, "boardsize 19")
    assert made == [19] and ask(server, "version").endswith("(agent19)")
    assert ask(server, "genmove black") != ""


def test_an_external_engine_that_dies_is_reported_not_an_internal_error():
    fake = Path(__file__).resolve().parents[1] / "arena" / "fake_engine.py"
    agent = make_agent("gtp", "go", {"command": f"{sys.executable} {fake} --die-at 1"})
    server = make_server("go", agent)
    try:
        message = refuse(server, "genmove black")
    finally:
        agent.close()
    assert message.startswith("the engine behind the agent failed: 'genmove black': the engine")
    assert "internal error" not in message


@pytest.mark.parametrize(
    "command", ["loadsgf ~0", "loadsgf ~no-such-user/game.sgf 3", "printsgf ~0/x.sgf"]
)
def test_a_file_in_an_unknown_users_home_is_refused_and_changes_nothing(command: str):
    # found by test_fuzz: `~0` names user 0's home, which Path.expanduser cannot find
    server = make_server("go", size=9)
    ask(server, "play black E5")
    before = snapshot(server)
    assert refuse(server, command) in ("cannot load file", "cannot save file")
    assert snapshot(server) == before
