"""Terminal play driven directly: scripted input, output captured from a rich console."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

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
    console = Console(file=out, width=100, color_system=None, force_terminal=False)
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
    # The shortest game: after 9 moves neither side can move; Black has all 13 discs.
    moves = ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"]
    target = tmp_path / "short.sgf"
    terminal, text, outcome = play([*moves, str(target)], game="othello")
    assert str(outcome) == "B+13"
    assert "discs B 13 W 0" in text
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
    assert str(outcome) == "B+3"


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
