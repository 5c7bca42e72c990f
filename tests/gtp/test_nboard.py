"""``imago nboard``: the NBoard protocol line by line, as its specification lists the commands
(C. Welty, *NBoard Protocol*), and the specification's example session over real pipes."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import pytest

from imago.agents import make_agent
from imago.core.move import Move
from imago.games.othello import OthelloState, new_game
from imago.gtp.game_engine import EngineConfig, GameEngine
from imago.gtp.nboard import NboardServer

# The game of the specification's example session (NBoard to Edax).
EXAMPLE_GAME = (
    "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]"
    "TY[8]BO[8 ---------------------------O*------*O--------------------------- *]"
    "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)"
)
EXAMPLE_MOVES = ("f5", "f6", "d3", "c5", "e6", "f7", "e7", "f4")


def _after(moves: tuple[str, ...]) -> OthelloState:
    state = new_game()
    for text in moves:
        state = state.play(state.parse_move(text))
    return state


def _server() -> tuple[NboardServer, io.StringIO]:
    errors = io.StringIO()
    agent = make_agent("alphabeta", "othello", {"endgame_empties": "14"})
    server = NboardServer(GameEngine(EngineConfig("othello"), agent), errors=errors)
    return server, errors


def _start(server: NboardServer) -> None:
    assert server.handle("nboard 2") == []
    assert server.handle("set depth 4") == ["set myname imago4"]
    assert server.handle(f"set game {EXAMPLE_GAME}") == []


def test_set_game_takes_the_position_at_its_end() -> None:
    server, _ = _server()
    _start(server)
    assert server.game.state == _after(EXAMPLE_MOVES)
    assert server.version == 2 and server.depth == 4


def test_ping_pong_and_learn() -> None:
    server, _ = _server()
    assert server.handle("ping 17") == ["pong 17"]
    assert server.handle("learn") == ["learned"]


def test_go_names_a_legal_move_without_playing_it() -> None:
    server, _ = _server()
    _start(server)
    before = server.game.state
    lines = server.handle("go")
    assert lines[0] == "status imago is thinking" and lines[-1] == "status"
    assert lines[1].startswith("nodestats ")
    nodes, seconds = lines[1].split()[1:]
    assert int(nodes) > 0 and float(seconds) >= 0
    reply = lines[2]
    assert reply.startswith("=== ")
    move, value, used = reply[4:].split("/")
    assert before.is_legal(before.parse_move(move.lower()))
    float(value), float(used)
    assert server.game.state == before  # the GUI sends "move" if it wants the move played


def test_hint_gives_the_best_moves_with_their_lines() -> None:
    server, _ = _server()
    _start(server)
    state = server.game.state
    lines = server.handle("hint 3")
    searches = [line.split() for line in lines if line.startswith("search ")]
    assert len(searches) == 3
    firsts = set()
    for _, pv, value, zero, depth in searches:
        moves = pv.split("-")
        assert state.is_legal(state.parse_move(moves[0].lower()))
        firsts.add(moves[0])
        float(value)
        assert zero == "0" and int(depth) == 4
    assert len(firsts) == 3
    values = [float(words[2]) for words in searches]
    assert values == sorted(values, reverse=True)  # best first
    assert lines[-2].startswith("nodestats ") and lines[-1] == "status"


def test_move_with_eval_and_time_and_version_one_moves() -> None:
    server, _ = _server()
    _start(server)
    assert server.handle("move D6/-1.00/2.5") == []
    assert server.handle("C4") == []  # protocol version 1: the bare move
    assert server.game.state == _after((*EXAMPLE_MOVES, "d6", "c4"))


def test_a_forced_pass_is_PA() -> None:
    server, _ = _server()
    # White to move has no move; Black has (a7): the GUI sends PA for White's pass.
    board = "X" * 40 + "O" * 8 + "-" + "X" * 15
    state = OthelloState.from_board_string(board, "O")
    assert [m for m in state.legal_moves()] == [Move.PASS]
    ggf = "(;GM[Othello]BO[8 " + board.replace("X", "*") + " O];)"
    assert server.handle(f"set game {ggf}") == []
    reply = next(line for line in server.handle("go") if line.startswith("==="))
    assert reply.startswith("=== PA")
    assert server.handle("move PA") == []
    assert server.game.state.to_play == 1


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ("move A1", "illegal"),
        ("move Z9", "Z9"),
        ("set game (;GM[Othello]B[A1];)", "illegal"),
        ("set game nonsense", "no game"),
        ("set depth zero", "invalid literal"),
        ("set depth 0", "1..60"),
        ("hint -2", "at least 1"),
        ("frobnicate 3", "ignored"),
    ],
)
def test_bad_lines_change_nothing(line: str, complaint: str) -> None:
    server, errors = _server()
    _start(server)
    before = server.game.state
    assert server.handle(line) == []
    assert server.game.state == before and server.depth == 4
    assert complaint in errors.getvalue()


def test_quit_ends_the_session() -> None:
    server, _ = _server()
    server.run(io.StringIO("ping 1\nquit\nping 2\n"), out := io.StringIO())
    assert out.getvalue() == "pong 1\n"


def test_the_specification_example_session_over_pipes() -> None:
    """The example session of the specification, to ``imago nboard`` as NBoard runs it."""
    command = [sys.executable, "-m", "imago", "nboard", "--agent", "alphabeta"]
    session = ["nboard 2", f"set game {EXAMPLE_GAME}", "set depth 6", "ping 1", "go", "quit"]
    done = subprocess.run(
        command, input="\n".join(session) + "\n", capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["set myname imago6", "pong 1"]
    assert lines[2] == "status imago is thinking"
    assert lines[3].startswith("nodestats ")
    move = lines[4][4:].split("/")[0]
    state = _after(EXAMPLE_MOVES)
    assert lines[4].startswith("=== ") and state.is_legal(state.parse_move(move.lower()))
    assert lines[5:] == ["status"]
    assert done.stderr == ""


def test_a_line_arriving_during_a_search_stops_it() -> None:
    """NBoard sends ``ping`` when the position is about to change: a long hint stops at once
    (its lines still come first), then the pong."""
    command = [sys.executable, "-m", "imago", "nboard", "--agent", "alphabeta:endgame_empties=0"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for line in ("nboard 2", "set depth 40", f"set game {EXAMPLE_GAME}", "hint 1"):
            process.stdin.write(line + "\n")
        process.stdin.flush()
        assert process.stdout.readline().strip() == "set myname imago40"
        assert process.stdout.readline().strip() == "status imago is thinking"
        time.sleep(1.0)
        sent = time.monotonic()
        process.stdin.write("ping 5\n")
        process.stdin.flush()
        replies = []
        while not replies or replies[-1] != "pong 5":
            replies.append(process.stdout.readline().strip())
        assert time.monotonic() - sent < 30  # depth 40 would take far longer than this
        assert replies[0].startswith("search ") and replies[-2:] == ["status", "pong 5"]
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
