"""Terminal play driven directly: scripted input, output captured from a rich console."""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

from imago.agents.base import Agent, AgentError, SearchResult
from imago.agents.registry import make_agent
from imago.core.color import Color
from imago.core.move import Move
from imago.gtp.game_engine import EngineConfig, GameEngine, Placement
from imago.ui.board import render_board
from imago.ui.terminal import Seats, TerminalGame


class Script:
    """Answers prompts from a list, then raises EOFError (the person closed the input)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self.lines)
        except StopIteration:
            raise EOFError from None


def play(
    lines: list[str],
    game: str = "go",
    size: int | None = None,
    engine: GameEngine | None = None,
    **seats: str,
) -> tuple[TerminalGame, str, object]:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, force_terminal=False)
    agents = {
        color: make_agent(seats[color], game, seed=3) if color in seats else None
        for color in ("black", "white")
    }
    chosen = Seats(agents["black"], agents["white"], hint=make_agent("random", game, seed=4))
    engine = engine or GameEngine(EngineConfig(game, size))
    terminal = TerminalGame(engine, chosen, console, Script(lines))
    outcome = terminal.run()
    return terminal, out.getvalue(), outcome


def test_board_drawing_marks_the_last_move_and_coordinates():
    engine = GameEngine(EngineConfig("go", 5))
    engine.play(engine.parse_move("C3"))
    engine.play(engine.parse_move("A5"))
    console = Console(file=io.StringIO(), width=60, color_system=None)
    with console.capture() as capture:
        console.print(render_board(engine.state))
    assert capture.get().split("\n")[:7] == [
        "  A B C D E",
        "5(O). . . . 5",
        "4 . . . . . 4",
        "3 . . X . . 3",
        "2 . . . . . 2",
        "1 . . . . . 1",
        "  A B C D E",
    ]


def test_othello_board_marks_legal_moves():
    engine = GameEngine(EngineConfig("othello"))
    console = Console(file=io.StringIO(), width=60, color_system=None)
    with console.capture() as capture:
        console.print(render_board(engine.state))
    rows = capture.get().split("\n")
    assert rows[3] == "3 . . . * . . . . 3"
    assert rows[4] == "4 . . * O X . . . 4"
    assert rows[5] == "5 . . . X O * . . 5"


def test_a_game_between_people_to_the_end():
    terminal, text, outcome = play(["E5", "pass", "pass", ""], size=9)
    assert str(outcome) == "B+74"
    assert "Game over: B+74 (black wins)" in text
    assert terminal.read.prompts[-1].startswith("Save the game?")  # type: ignore[attr-defined]


def test_a_wrong_move_is_explained_and_changes_nothing():
    terminal, text, outcome = play(["E5", "E5", "Z9", "bogus", "resign"], size=9)
    assert "E5 is illegal: the point is occupied." in text
    assert "'Z9' is not a move or command here" in text
    assert "'bogus' is not a move or command here" in text
    assert [m for _, m in terminal.engine.moves()] == [terminal.engine.parse_move("E5")]
    assert str(outcome) == "B+R"  # white resigned at its turn


def test_quit_and_end_of_input_leave_the_game():
    _terminal, text, outcome = play(["quit"])
    assert outcome is None and "Bye" in text
    _, text, outcome = play([])
    assert outcome is None and "Bye" in text


def test_hint_does_not_change_the_game():
    terminal, text, _outcome = play(["E5", "hint", "hint", "quit"], size=9)
    assert text.count("hint: random would play ") == 2
    assert len(terminal.engine.moves()) == 1
    assert terminal.engine.state.to_play is Color.WHITE


def test_undo_against_an_agent_goes_back_to_the_persons_turn():
    terminal, text, _ = play(["E5", "undo", "quit"], size=9, white="random")
    assert "white (random) plays" in text
    assert terminal.engine.moves() == []
    terminal, text, _ = play(["undo", "quit"], size=9)
    assert "Nothing to undo." in text


def test_agents_play_a_whole_game():
    terminal, text, outcome = play([""], size=5, black="random", white="random")
    assert outcome is not None
    assert terminal.engine.state.is_over()
    assert f"Game over: {outcome.result()}" in text


def test_othello_forced_pass_is_announced(tmp_path: Path):
    # The shortest game: after 9 moves neither side can move; Black has all 13 discs, and the
    # 51 empty squares count for the winner (the WTHOR / FFO convention).
    moves = ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"]
    target = tmp_path / "short.sgf"
    terminal, text, outcome = play([*moves, str(target)], game="othello")
    assert str(outcome) == "B+64"
    assert "discs B 13 W 0" in text
    assert "discs: black 13, white 0, and the 51 empty squares count for the winner" in text
    assert target.read_text().count(";") == 10  # the root and nine moves
    again, _, _ = play([f"load {target}", "quit"], game="othello")
    assert again.engine.state.key == terminal.engine.state.key


def test_othello_player_without_moves_passes_automatically():
    # White to move with nothing to flank: White must pass; Black's c3 then ends the game.
    engine = GameEngine(EngineConfig("othello"))
    a1, b2, *centre = (Move.from_algebraic(w).point for w in ["a1", "b2", "d4", "e4", "d5", "e5"])
    assert a1 is not None and b2 is not None
    start = tuple(p for p in centre if p is not None)
    engine.load(8, [Placement(black=(a1,), white=(b2,), empty=start, to_play=Color.WHITE)])
    _terminal, text, outcome = play(["c3", ""], game="othello", engine=engine)
    assert "white has no legal move and passes." in text
    assert str(outcome) == "B+64"  # 3 discs and the 61 empty squares


def test_save_and_load(tmp_path: Path):
    target = tmp_path / "game.sgf"
    terminal, text, _ = play(["E5", "D4", f"save {target}", "save", "quit"], size=9)
    assert f"Saved {target}." in text
    assert "save needs a file name" in text
    sgf = target.read_text()
    assert "B[ee]" in sgf and "W[df]" in sgf  # D4 is column d, row f from the top
    again, text, _ = play([f"load {target}", "load /no/such/file.sgf", "quit"], size=9)
    assert again.engine.state.key == terminal.engine.state.key
    assert "cannot load /no/such/file.sgf" in text


# -- the first hour: mistakes, failures and surprises (issue 16) ---------------------------------

FAKE_ENGINE = Path(__file__).resolve().parents[1] / "arena" / "fake_engine.py"


class OnlyNineByNine(Agent):
    """An agent that plays 9x9 boards only (as a network trained for 9x9 does)."""

    name = "nine"

    def prepare(self, game: str, size: int) -> None:
        if size != 9:
            raise AgentError(f"plays 9x9 only, not {size}x{size}")

    def select_move(self, state, limit, *, on_info=None, stop=None):  # type: ignore[no-untyped-def]
        return SearchResult(next(m for m in state.legal_moves()))


def test_an_engine_that_dies_mid_game_is_reported_and_the_game_saved(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    command = f"{sys.executable} {FAKE_ENGINE} --die-at 2 --first-free"
    white = make_agent("gtp", "go", {"command": command})
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    terminal = TerminalGame(
        GameEngine(EngineConfig("go", 9)), Seats(None, white), console, Script(["E5", "D4"])
    )
    try:
        assert terminal.run() is None
    finally:
        white.close()
    text = out.getvalue()
    assert "white (gtp) cannot go on: 'genmove white': the engine closed its output" in text
    assert terminal.failure is not None and "Traceback" not in text
    (saved,) = tmp_path.glob("imago-go-*.sgf")
    assert f"The game so far is saved in {saved.name}" in text
    again, _, _ = play([f"load {saved}", "quit"], size=9)
    assert [move for _, move in again.engine.moves()] == [
        move for _, move in terminal.engine.moves()
    ]  # E5, the program's first move, D4


def test_a_file_name_is_never_quit_or_no(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for answer in ("quit", "q", "exit", "no", "n", ""):
        _, text, outcome = play(["pass", "pass", answer], size=5)
        assert outcome is not None and "Saved" not in text
    assert list(tmp_path.iterdir()) == []


def test_a_failed_save_at_the_end_asks_again(tmp_path: Path) -> None:
    target = tmp_path / "end.sgf"
    _, text, _ = play(["pass", "pass", str(tmp_path / "no" / "such" / "x.sgf"), str(target)])
    assert "cannot save" in text and "no such file or directory" in text
    assert target.is_file()


def test_save_goes_by_the_extension_as_records_do(tmp_path: Path) -> None:
    go_text = tmp_path / "go.txt"
    _, text, _ = play(["E5", f"save {go_text}", "quit"], size=9)
    assert f"cannot save {go_text}: go.txt: .txt is an Othello transcript" in text
    assert "write .sgf instead" in text and not go_text.exists()
    moves = ["f5", "d6", "c3"]
    othello_text = tmp_path / "othello.txt"
    first, text, _ = play([*moves, f"save {othello_text}", "quit"], game="othello")
    assert othello_text.read_text() == "f5d6c3\n"  # what `imago records` reads as a transcript
    again, text, _ = play([f"load {othello_text}", "quit"], game="othello")
    assert again.engine.state.key == first.engine.state.key
    _, text, _ = play([f"load {tmp_path / 'game.pdf'}", "quit"], size=9)
    assert ".pdf is not a record format; imago reads .sgf, .wtb, .txt, .ggf, .csv files" in text


def test_saved_files_follow_the_umask(tmp_path: Path) -> None:
    target = tmp_path / "game.sgf"
    old = os.umask(0o022)
    try:
        play(["E5", f"save {target}", "quit"], size=9)
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_loading_a_finished_game_says_it_was_over(tmp_path: Path) -> None:
    finished = tmp_path / "finished.sgf"
    finished.write_text("(;GM[1]SZ[9]KM[7]RU[Chinese];B[ee];W[];B[])")
    terminal, text, outcome = play([f"load {finished}", "undo", "quit"], size=9)
    flat = " ".join(text.split())  # the console wraps long lines
    assert "The game in" in flat and "was over (both players passed): B+74 (black wins)" in flat
    assert "Type undo to take moves back" in flat
    assert outcome is None  # the person looked, took a move back and left
    assert terminal.engine.moves()[-1][1].is_pass and not terminal.engine.state.is_over()


def test_two_people_get_hints_from_the_strongest_engine() -> None:
    asked: list[int] = []

    def strongest(size: int) -> Agent:
        asked.append(size)
        return make_agent("alphabeta", "othello", {"depth": "2"}, seed=1, size=size)

    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    seats = Seats(make_hint=strongest)
    terminal = TerminalGame(
        GameEngine(EngineConfig("othello")), seats, console, Script(["hint", "hint", "quit"])
    )
    terminal.run()
    assert out.getvalue().count("hint: alphabeta would play ") == 2
    assert asked == [8]  # made once, at the first hint


def test_a_board_an_agent_cannot_play_is_refused_at_load(tmp_path: Path) -> None:
    big = tmp_path / "big.sgf"
    big.write_text("(;GM[1]SZ[13];B[gg])")
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    engine = GameEngine(EngineConfig("go", 9))
    terminal = TerminalGame(
        engine, Seats(None, OnlyNineByNine()), console, Script([f"load {big}", "quit"])
    )
    terminal.run()
    text = out.getvalue()
    assert "cannot load" in text and "nine cannot play it: plays 9x9 only" in text
    assert engine.size == 9 and not engine.moves()
