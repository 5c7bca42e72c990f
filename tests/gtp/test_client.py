"""The GTP client: wire format over a scripted transport, then real programs over pipes."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from imago.core.color import Color
from imago.core.move import Move, Point
from imago.gtp.client import (
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    GtpEngine,
    Notation,
    PopenTransport,
    Score,
    ScriptedTransport,
    parse_analysis,
)

FAKE = Path(__file__).resolve().parents[1] / "arena" / "fake_engine.py"


def fake(*flags: str) -> list[str]:
    return [sys.executable, str(FAKE), *flags]


def scripted(*pairs: tuple[str, str]) -> tuple[GtpEngine, ScriptedTransport]:
    transport = ScriptedTransport()
    for command, answer in pairs:
        transport.expect(command, answer)
    return GtpEngine(transport, size=9), transport


# -- wire format ---------------------------------------------------------------------------------


def test_commands_are_numbered_and_answers_typed() -> None:
    engine, transport = scripted(
        ("protocol_version", "= 2"),
        ("genmove black", "= d4"),
        ("list_commands", "= name\nplay\ngenmove"),
    )
    assert engine.protocol_version() == 2
    assert engine.genmove(Color.BLACK).move == Move.from_gtp("D4", 9)
    assert engine.list_commands() == {"name", "play", "genmove"}
    assert engine.known_command("play") and not engine.known_command("undo")
    assert transport.sent == ["1 protocol_version", "2 genmove black", "3 list_commands"]


def test_error_answer_raises_engine_error_with_message() -> None:
    engine, _ = scripted(("play black A1", "? illegal move"), ("name", "= still here"))
    with pytest.raises(EngineError, match="illegal move") as info:
        engine.play(Color.BLACK, Move.from_gtp("A1", 9))
    assert info.value.message == "illegal move"
    assert info.value.command == "play black A1"
    assert engine.name() == "still here"  # an error answer leaves the engine usable


def test_request_returns_failures_without_raising() -> None:
    engine, _ = scripted(("undo", "? cannot undo"))
    response = engine.request("undo")
    assert not response.ok and response.text == "cannot undo" and response.id == 2 - 1


def test_chatter_and_stale_answers_are_skipped() -> None:
    transport = ScriptedTransport().expect("name", "= fake")
    engine = GtpEngine(transport)
    transport._pending.extend(["some debug output", "=0 stale", ""])
    assert engine.name() == "fake"


def test_multiline_answer_keeps_its_lines() -> None:
    engine, _ = scripted(("showboard", "=\n   A B\n 2 . .\n 1 . ."))
    assert engine.showboard().splitlines() == ["A B", " 2 . .", " 1 . ."]


@pytest.mark.parametrize("bad", ["play black\nquit", "", "genmove\tb", "  # comment"])
def test_malformed_commands_are_refused_before_sending(bad: str) -> None:
    engine, transport = scripted()
    with pytest.raises(ValueError):
        engine.send(bad)
    assert transport.sent == []


def test_timeout_makes_the_engine_unusable() -> None:
    transport = ScriptedTransport().expect_hang("genmove white")
    engine = GtpEngine(transport, size=9)
    with pytest.raises(EngineTimeoutError):
        engine.genmove(Color.WHITE, timeout=0.01)
    assert not engine.usable
    with pytest.raises(EngineError, match="unusable"):
        engine.name()


def test_death_raises_terminated() -> None:
    transport = ScriptedTransport().expect_death("genmove black")
    engine = GtpEngine(transport, size=9)
    with pytest.raises(EngineTerminatedError):
        engine.genmove(Color.BLACK)
    engine.quit()  # nothing to say to a dead engine, and no error
    assert transport.closed


def test_context_manager_quits() -> None:
    transport = ScriptedTransport().expect("quit")
    with GtpEngine(transport) as engine:
        assert engine.usable
    assert transport.done() and transport.closed
    with pytest.raises(EngineTerminatedError):
        engine.name()


@pytest.mark.parametrize(
    ("text", "winner", "margin", "resigned", "result"),
    [
        ("B+3.5", Color.BLACK, 3.5, False, "B+3.5"),
        ("W+12", Color.WHITE, 12.0, False, "W+12"),
        ("w+R", Color.WHITE, 0.0, True, "W+R"),
        ("B+Resign", Color.BLACK, 0.0, True, "B+R"),
        ("0", None, 0.0, False, "0"),
        ("Draw", None, 0.0, False, "0"),
    ],
)
def test_score_parse(
    text: str, winner: Color | None, margin: float, resigned: bool, result: str
) -> None:
    score = Score.parse(text)
    assert (score.winner, score.margin, score.by_resignation) == (winner, margin, resigned)
    assert score.result() == result


@pytest.mark.parametrize("text", ["", "B+", "X+3", "B+three", "resign"])
def test_score_parse_rejects(text: str) -> None:
    with pytest.raises(EngineError):
        Score.parse(text)


def test_othello_notation_counts_rows_from_the_top() -> None:
    engine, transport = scripted(("genmove black", "= F5"), ("play white D6", "="))
    engine.notation = Notation.OTHELLO
    engine.size = 8
    assert engine.genmove(Color.BLACK).move == Move.play(Point(4, 5))
    engine.play(Color.WHITE, Move.play(Point(5, 3)))
    assert transport.done()


def test_genmove_analyze_reads_leela_zero_info() -> None:
    info = (
        "info move D5 visits 12 winrate 5500 prior 2500 order 0 pv D5 E5 "
        "info move E5 visits 3 winrate 4000 prior 1000 order 1 pv E5"
    )
    engine, _ = scripted(("lz-genmove_analyze black 100", f"=\n{info}\nplay D5"))
    result = engine.genmove_analyze(Color.BLACK)
    assert result.move == Move.from_gtp("D5", 9)
    first, second = result.analysis
    assert (first.visits, first.winrate, first.prior) == (12, 0.55, 0.25)
    assert first.pv == (Move.from_gtp("D5", 9), Move.from_gtp("E5", 9))
    assert second.move == Move.from_gtp("E5", 9) and second.winrate == 0.4


def test_parse_analysis_reads_katago_fractions() -> None:
    line = "info move C3 visits 40 winrate 0.61 scoreLead 2.5 prior 0.3 pv C3 pass"
    (info,) = parse_analysis(line, 9)
    assert (info.winrate, info.prior, info.score_lead) == (0.61, 0.3, 2.5)
    assert info.pv == (Move.from_gtp("C3", 9), Move.PASS)


def test_genmove_with_garbage_is_an_engine_error() -> None:
    engine, _ = scripted(("genmove black", "= Z99"))
    with pytest.raises(EngineError, match="not a move"):
        engine.genmove(Color.BLACK)


# -- real processes ------------------------------------------------------------------------------


def _reaped(pid: int) -> bool:
    """Whether ``pid`` is gone (not even a zombie waiting for us)."""
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == pid


def test_popen_runs_a_fake_program_and_reaps_it() -> None:
    with GtpEngine.popen(fake()) as engine:
        assert engine.name() == "fake"
        assert isinstance(engine.transport, PopenTransport)
        pid = engine.transport.pid
    assert _reaped(pid)


def test_program_ignoring_quit_and_sigterm_is_killed() -> None:
    engine = GtpEngine.popen(fake("--ignore-quit", "--ignore-term"))
    assert isinstance(engine.transport, PopenTransport)
    process = engine.transport.process
    started = time.monotonic()
    engine.quit(timeout=0.3)
    assert process.returncode == -9  # SIGKILL, after quit and SIGTERM were ignored
    assert time.monotonic() - started < 5
    assert _reaped(process.pid)


def test_program_that_dies_mid_game() -> None:
    with GtpEngine.popen(fake("--die-at", "1")) as engine:
        engine.boardsize(9)
        with pytest.raises(EngineTerminatedError, match="exit status 3"):
            engine.genmove(Color.BLACK)
        assert not engine.usable


def test_program_that_hangs_times_out() -> None:
    with GtpEngine.popen(fake("--hang-at", "1")) as engine:
        engine.boardsize(9)
        with pytest.raises(EngineTimeoutError):
            engine.genmove(Color.BLACK, timeout=0.5)
        pid = engine.transport.pid  # type: ignore[attr-defined]
    assert _reaped(pid)


def test_missing_program_is_terminated_error() -> None:
    with pytest.raises(EngineTerminatedError, match="cannot start"):
        GtpEngine.popen("/nonexistent/engine --mode gtp")


def test_program_that_is_not_gtp() -> None:
    with pytest.raises(EngineTerminatedError):
        GtpEngine.popen([sys.executable, "-c", "print('hello')"], timeout=5)


@pytest.mark.engine
def test_gnugo_plays_scores_and_refuses(gnugo: str) -> None:
    command = [gnugo, "--mode", "gtp", "--level", "1", "--chinese-rules"]
    with GtpEngine.popen(command) as engine:
        assert engine.protocol_version() == 2
        assert engine.name() == "GNU Go"
        engine.boardsize(9)
        engine.clear_board()
        engine.komi(7)
        engine.play(Color.BLACK, Move.from_gtp("E5", 9))
        with pytest.raises(EngineError, match="illegal move"):
            engine.play(Color.WHITE, Move.from_gtp("E5", 9))
        with pytest.raises(EngineError, match="unknown command"):
            engine.send("no_such_command")
        reply = engine.genmove(Color.WHITE, timeout=30)
        assert reply.move.is_play and reply.move != Move.from_gtp("E5", 9)
        assert engine.final_score().winner in (Color.BLACK, Color.WHITE)
        handicap = GtpEngine.popen(command)
        with handicap:
            handicap.boardsize(9)
            assert len(handicap.fixed_handicap(2)) == 2


@pytest.mark.engine
def test_gnugo_counts_a_known_position(gnugo: str) -> None:
    # Black walls off the left five columns, White the right four: B 45 - W (36 + 7) = B+2.
    with GtpEngine.popen([gnugo, "--mode", "gtp", "--chinese-rules"]) as engine:
        engine.boardsize(9)
        engine.komi(7)
        for row in range(1, 10):
            engine.play(Color.BLACK, Move.from_gtp(f"E{row}", 9))
            engine.play(Color.WHITE, Move.from_gtp(f"F{row}", 9))
        score = engine.final_score()
        assert (score.winner, score.margin) == (Color.BLACK, 2.0)
        assert engine.final_status_list("dead") == []


@pytest.mark.engine
def test_gtp_rhino_othello_quirks(gtp_rhino: str) -> None:
    with GtpEngine.popen([gtp_rhino, "--level", "1"], notation=Notation.OTHELLO) as engine:
        engine.boardsize(8)
        engine.clear_board()
        reply = engine.genmove(Color.BLACK)
        # Black's four legal first moves, in Othello notation (row 1 at the top).
        assert reply.move.to_algebraic() in {"d3", "c4", "f5", "e6"}
        with pytest.raises(EngineError, match="syntax error"):
            engine.play(Color.WHITE, Move.PASS)  # it rejects passes: it passes by itself
        engine.play(Color.WHITE, _first_white_reply(reply.move))
        assert "Next move: Black" in engine.showboard()


def _first_white_reply(black: Move) -> Move:
    # The standard replies (perpendicular openings) to each of Black's first moves.
    replies = {"d3": "c3", "c4": "c3", "f5": "f4", "e6": "f6"}
    return Move.from_algebraic(replies[black.to_algebraic()])
