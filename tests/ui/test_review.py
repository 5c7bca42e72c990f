"""Whole-game review (``imago.ui.review``) and ``imago analyze``: values, losses, the annotated
SGF read back with imago's records, resuming, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from imago.agents.base import Agent, Limit, SearchResult
from imago.agents.registry import make_agent
from imago.cli.app import app
from imago.core.color import Color
from imago.core.game import GameState
from imago.core.move import Move, Point
from imago.nn.shipped import strongest_agent
from imago.records import sgf, wthor
from imago.ui import review as reviewing

runner = CliRunner()

GAME = "(;GM[1]FF[4]SZ[7]KM[7.5]PB[b]PW[w];B[dd];W[cc];B[aa];W[dc];B[ba];W[cd])"


class Scripted(Agent):
    """An agent whose view of each position is given: win rate by move number, best move D4."""

    name = "scripted"

    def __init__(self, winrates: dict[int, float]) -> None:
        self.winrates = winrates

    def select_move(
        self, state: GameState, limit: Limit, *, on_info=None, stop=None
    ) -> SearchResult:
        best = Move.play(Point(3, 3)) if state.is_legal(Move.play(Point(3, 3))) else Move.PASS
        return SearchResult(best, winrate=self.winrates[state.move_number], pv=(best,))


def test_losses_are_measured_for_the_mover_against_the_engines_choice():
    game = sgf.read_game(GAME)
    nodes = reviewing.line_of(game.end())
    # Black's win rate seen by each position's mover: B 0.5, W 0.5, B 0.55, W 0.1 (Black 0.9)...
    agent = Scripted({0: 0.5, 1: 0.5, 2: 0.55, 3: 0.1, 4: 0.8, 5: 0.2, 6: 0.5})
    review = reviewing.review_line(nodes, agent, Limit(time=1), engine="scripted")
    assert review.black_values() == pytest.approx([0.5, 0.5, 0.55, 0.9, 0.8, 0.8, 0.5])
    losses = {m.number: round(m.loss, 3) for m in review.moves}
    # move 1 is D4, the engine's own choice: no loss. Move 3 (B A7) went from 0.55 to 0.9: none.
    # Move 4 (W D5): White 0.1 -> 0.2 none; move 5 (B B7): Black 0.8 -> 0.8 none;
    # move 2 (W C5): White 0.5 -> 0.45: 0.05; move 6 (W C4): White 0.2 -> 0.5: none.
    assert losses == {1: 0.0, 2: 0.05, 3: 0.0, 4: 0.0, 5: 0.0, 6: 0.0}
    assert [m.number for m in review.mistakes()] == [2]
    assert review.moves[1].grade() == "inaccuracy"
    assert review.moves[1].better == Move.PASS  # D4 is taken: the script passes


def test_a_finished_game_is_worth_its_result():
    othello = sgf.read_game("(;GM[2]SZ[4];B[bd];W[ad];B[ac];W[cd])")  # not finished: searched
    end = othello.end().state
    evaluation = reviewing._final(end) if end.is_over() else None
    assert evaluation is None
    finished = sgf.read_game("(;GM[1]SZ[5]KM[0.5];B[cc];W[];B[])")
    value = reviewing.evaluate(Scripted({}), finished.end().state, Limit(time=1))
    assert value.final and value.unit == reviewing.WINRATE
    assert value.for_color(Color.BLACK) == 1.0  # 25 to 0.5
    # counted as a referee counts (GTP's final_score): the white stone on A3 is dead, so Black
    # wins by 4.5 where Tromp-Taylor (every stone alive) gives White 1.5
    dead_inside = sgf.read_game(
        "(;GM[1]SZ[5]KM[0.5]RU[Chinese]AB[ba][bb][bc][bd][be][ca][cb][cc][cd][ce]"
        "AW[da][db][dc][dd][de][ac];B[];W[])"
    )
    end = dead_inside.end().state
    outcome = end.outcome()
    assert outcome is not None and outcome.result() == "W+1.5"
    assert reviewing._final(end).for_color(Color.BLACK) == 1.0


def test_analyze_writes_an_annotated_sgf_read_back_by_the_records(tmp_path: Path):
    source = tmp_path / "game.sgf"
    source.write_text(GAME, encoding="utf-8")
    result = runner.invoke(app, ["analyze", str(source), "--playouts", "200", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "biggest mistakes" in result.output and "wrote" in result.output
    annotated = sgf.read_file(tmp_path / "game-analyzed.sgf")[0]
    assert annotated.mainline_moves() == sgf.read_game(GAME).mainline_moves()
    main = [annotated, *annotated.mainline()]
    assert all(node.get("V") for node in main)
    engine = strongest_agent("go", 7)  # the default: the strongest for the board
    assert f"Reviewed by {engine}: 6 moves." in annotated.comment
    assert all(f"{engine}: " in node.comment for node in main[1:])
    marked = [n for n in main if n.get("BM") or n.get("DO")]
    for node in marked:  # every marked mistake has the engine's better line beside it
        siblings = node.parent.children  # type: ignore[union-attr]
        assert len(siblings) >= 2 or "best:" not in node.comment
    assert not (tmp_path / "game-analyzed.sgf.partial.json").exists()


def test_analyze_an_othello_game_of_a_wthor_file_in_discs(tmp_path: Path, data_dir: Path):
    path = data_dir / "wthor" / "WTH_1980.wtb"
    out = tmp_path / "wthor.sgf"
    result = runner.invoke(
        app,
        ["analyze", str(path), "--index", "4", "--agent", "alphabeta:depth=2", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    annotated = sgf.read_file(out)[0]
    record = wthor.read_games(path)[3]
    assert [m.to_algebraic() for m in annotated.mainline_moves()] == [
        m.to_algebraic() for m in record.moves
    ]
    final = [annotated, *annotated.mainline()][-1]
    # The last position is the end of the game: Black's value is the disc difference.
    assert float(final.get("V")[0]) == 2 * record.black_score - 64
    assert "discs" in annotated.comment


def test_an_interrupted_analysis_resumes_where_it_stopped(tmp_path: Path):
    source = tmp_path / "game.sgf"
    source.write_text(GAME, encoding="utf-8")
    out = tmp_path / "game-analyzed.sgf"
    checkpoint = tmp_path / "game-analyzed.sgf.partial.json"
    game = sgf.read_game(GAME)
    nodes = reviewing.line_of(game.end())
    limit = Limit(playouts=100)
    key = reviewing.checkpoint_key(nodes, "mcts", limit)
    agent = make_agent("mcts", "go", seed=3)
    done = [reviewing.evaluate(agent, node.state, limit) for node in nodes[:4]]
    marked = [reviewing.PositionEval(e.to_play, 0.123, e.unit, e.best, e.pv) for e in done]
    reviewing.save_checkpoint(checkpoint, key, 7, marked)
    result = runner.invoke(app, ["analyze", str(source), "--playouts", "100", "--agent", "mcts"])
    assert result.exit_code == 0, result.output
    assert "resuming: 4 of 7 positions" in result.output
    annotated = sgf.read_file(out)[0]
    values = [node.get("V")[0] for node in [annotated, *annotated.mainline()]]
    assert values[0] == "12.3"  # Black's 0.123, kept from the checkpoint, not searched again
    assert not checkpoint.exists()
    reviewing.save_checkpoint(checkpoint, "another review", 7, marked)
    result = runner.invoke(app, ["analyze", str(source), "--playouts", "100", "--agent", "mcts"])
    assert "resuming" not in result.output  # another game or engine: started afresh


def test_analyze_explains_bad_input(tmp_path: Path):
    missing = runner.invoke(app, ["analyze", str(tmp_path / "nothing.sgf")])
    assert missing.exit_code == 1 and "cannot read" in missing.output
    broken = tmp_path / "broken.sgf"
    broken.write_text("no sgf here", encoding="utf-8")
    assert "no game in" in runner.invoke(app, ["analyze", str(broken)]).output
    good = tmp_path / "good.sgf"
    good.write_text(GAME, encoding="utf-8")
    assert (
        "--index must be 1..1" in runner.invoke(app, ["analyze", str(good), "--index", "2"]).output
    )
    assert "unknown agent" in runner.invoke(app, ["analyze", str(good), "--agent", "zz"]).output
    assert (
        "--seconds must be positive"
        in runner.invoke(app, ["analyze", str(good), "--seconds", "0"]).output
    )
    assert not (tmp_path / "good-analyzed.sgf").exists()


# -- issue 43 item 7: the first search, and searches too small to judge ---------------------------


class ColdStart(Agent):
    """An agent whose first search in the process is spent compiling: one playout, and a win
    rate of 1.0 for a move other than the one played (what ``mcts`` gave under
    ``--seconds 0.3``); every later search is a sound one (500 playouts, 50 %)."""

    name = "cold"

    def __init__(self, playouts_after: int = 500) -> None:
        self.calls = 0
        self.playouts_after = playouts_after

    def select_move(
        self, state: GameState, limit: Limit, *, on_info=None, stop=None
    ) -> SearchResult:
        self.calls += 1
        other = Move.play(Point(0, 6))
        if self.calls == 1:
            return SearchResult(other, winrate=1.0, pv=(other,), nodes=1)
        return SearchResult(other, winrate=0.5, pv=(other,), nodes=self.playouts_after)


def test_the_first_search_warms_up_before_the_clock_and_move_1_is_no_blunder():
    nodes = reviewing.line_of(sgf.read_game(GAME).end())
    agent = ColdStart()
    review = reviewing.review_line(nodes, agent, Limit(time=0.3), engine="cold")
    assert agent.calls == len(nodes) + 1  # the warm-up, then one search a position
    assert all(p.nodes == 500 for p in review.positions)
    assert review.mistakes() == [] and review.moves[0].loss == 0.0


def test_a_move_judged_on_a_handful_of_playouts_is_never_a_mistake():
    nodes = reviewing.line_of(sgf.read_game(GAME).end())
    before = reviewing.PositionEval(Color.BLACK, 1.0, reviewing.WINRATE, Move.PASS, nodes=1)
    after = reviewing.PositionEval(Color.WHITE, 1.0, reviewing.WINRATE, Move.PASS, nodes=400)
    move = reviewing.MoveReview(1, Color.BLACK, Move.play(Point(3, 3)), before, after)
    assert move.loss == 1.0 and not move.judged and move.grade() == ""
    sound = reviewing.PositionEval(Color.BLACK, 1.0, reviewing.WINRATE, Move.PASS, nodes=16)
    assert reviewing.MoveReview(1, Color.BLACK, move.move, sound, after).grade() == "blunder"
    # A whole review on searches of 2 playouts: losses measured, nothing graded, and said so.
    review = reviewing.review_line(nodes, ColdStart(playouts_after=2), Limit(time=0.3))
    reviewing.annotate(nodes, review)
    assert review.mistakes() == []
    assert all(not n.get("BM") and not n.get("DO") for n in nodes)
    assert "a search of 2 playouts is too few to judge a move" in nodes[1].comment
    assert reviewing.PositionEval.from_json(review.positions[1].to_json(7), 7).nodes == 2


def test_analyze_in_a_fresh_process_calls_no_first_move_a_blunder(tmp_path: Path):
    """``imago analyze GAME.sgf --seconds 0.3`` in its own process (the kernels loaded or
    compiled by the first search): move 1, the engine's own kind of opening, is no blunder."""
    import subprocess
    import sys

    source = tmp_path / "game.sgf"
    source.write_text("(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg])", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "imago", "analyze", str(source), "--seconds", "0.3"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    first = sgf.read_file(tmp_path / "game-analyzed.sgf")[0].children[0]
    assert first.get("BM") == [] or first.get("BM") is None, first.comment
    assert "Blunder" not in first.comment
