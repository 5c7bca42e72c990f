"""Game clocks: ``--time-control`` syntax, clock bookkeeping, budgets, losses on time, GTP."""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import pytest

from imago.agents.base import Agent, InfoCallback, Limit, SearchResult, StopFlag
from imago.agents.registry import make_agent
from imago.arena.clock import GRACE, ClockKind, SideClock, TimeControl, move_budget
from imago.arena.external import GtpAgent, GtpOptions
from imago.arena.game import EndReason, GameSettings, play_game
from imago.arena.match import MatchFolder, MatchSettings, Pairing, Player, play_pairing
from imago.core.color import Color
from imago.core.game import GameState
from imago.games import make
from imago.gtp.client import GtpEngine, ScriptedTransport

FAKE = Path(__file__).resolve().parent / "fake_engine.py"

A, F, J, C = ClockKind.ABSOLUTE, ClockKind.FISCHER, ClockKind.BYOYOMI, ClockKind.CANADIAN


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("60", TimeControl(A, 60.0)),
        (" 90.5 ", TimeControl(A, 90.5)),
        ("60+5", TimeControl(F, 60.0, 5.0)),
        ("60+0", TimeControl(A, 60.0)),
        ("0.5+2.5", TimeControl(F, 0.5, 2.5)),
        ("300+30x5", TimeControl(J, 300.0, 30.0, 5)),
        ("0+10X3", TimeControl(J, 0.0, 10.0, 3)),
        ("300+300/25", TimeControl(C, 300.0, 300.0, 25)),
        ("0+60/10", TimeControl(C, 0.0, 60.0, 10)),
    ],
)
def test_time_control_syntax(text: str, expected: TimeControl) -> None:
    parsed = TimeControl.parse(text)
    assert parsed == expected
    assert TimeControl.parse(str(parsed)) == parsed


@pytest.mark.parametrize(
    "text",
    ["", "0", "-5", "5+", "+5", "60+5+1", "1m", "60+30x0", "60+0x5", "60+30/0", "60+0/10",
     "60 + 5", "0+2", "60+30x5x2", "abc", "inf", "1e3"],
)  # fmt: skip
def test_bad_time_controls_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"time control|byo-yomi|main time"):
        TimeControl.parse(text)


def test_settings_take_one_kind_of_time() -> None:
    assert GameSettings(time_control="60+5").clock == TimeControl(F, 60.0, 5.0)
    assert GameSettings().clock is None
    with pytest.raises(ValueError, match="not both"):
        GameSettings(time_per_move=1.0, time_control="60")
    with pytest.raises(ValueError, match="bad time control"):
        GameSettings(time_control="sixty")


# -- the clock ----------------------------------------------------------------------------------


def test_absolute_and_fischer_clocks() -> None:
    absolute = TimeControl(A, 10.0)
    clock = absolute.start().after(absolute, 4.0)
    assert clock == SideClock(6.0)
    assert clock.after(absolute, 6.0 + GRACE / 2) == SideClock(0.0)  # within the grace
    assert clock.after(absolute, 6.0 + 2 * GRACE).flagged
    fischer = TimeControl(F, 10.0, 2.0)
    clock = fischer.start().after(fischer, 4.0)
    assert clock == SideClock(8.0)
    assert clock.after(fischer, 9.0).flagged
    assert clock.available(fischer) == 8.0


def test_japanese_byoyomi_clock() -> None:
    control = TimeControl(J, 10.0, 5.0, 3)
    clock = control.start()
    assert clock.available(control) == 10.0 + 15.0
    clock = clock.after(control, 12.0)  # main time gone, 2 s into the first period
    assert clock == SideClock(5.0, 3)
    assert clock.after(control, 4.9) == SideClock(5.0, 3)  # within a period: not used up
    assert clock.after(control, 7.0) == SideClock(5.0, 2)  # one period used up
    clock = clock.after(control, 11.0)  # two used up: the last one is left
    assert clock == SideClock(5.0, 1)
    assert clock.available(control) == 5.0
    assert clock.after(control, 5.0 + GRACE / 2) == SideClock(5.0, 1)
    assert clock.after(control, 5.0 + 2 * GRACE).flagged
    assert control.start().after(control, 25.0 + 2 * GRACE).flagged


def test_canadian_clock() -> None:
    control = TimeControl(C, 10.0, 6.0, 3)
    clock = control.start().after(control, 12.0)  # 2 s into the period, 1 of 3 moves played
    assert clock == SideClock(4.0, 2)
    clock = clock.after(control, 1.0)
    assert clock == SideClock(3.0, 1)
    assert clock.after(control, 3.0) == SideClock(6.0, 3)  # the period is over: a new one
    assert clock.after(control, 3.0 + 2 * GRACE).flagged
    assert TimeControl(C, 0.0, 6.0, 3).start() == SideClock(6.0, 3)


# -- budgets ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["60", "60+2", "60+10x3", "60+60/10"])
def test_budgets_shrink_as_the_clock_runs_down(text: str) -> None:
    control = TimeControl.parse(text)
    budgets = [move_budget(control, SideClock(left), 30) for left in (60, 40, 20, 10, 5, 1)]
    assert budgets == sorted(budgets, reverse=True)
    assert budgets[0] > budgets[-1]
    for left, budget in zip((60, 40, 20, 10, 5, 1), budgets, strict=True):
        assert 0 < budget <= SideClock(left).available(control)


def test_byoyomi_budget_uses_most_of_a_period() -> None:
    control = TimeControl.parse("0+10x3")
    budget = move_budget(control, control.start(), 30)
    assert 8.0 < budget < 10.0


# -- games under a clock ------------------------------------------------------------------------


class Sleeper(Agent):
    """The random agent, thinking ``fraction`` of its budget (or ``seconds``) per move."""

    name = "sleeper"

    def __init__(self, game: str, *, fraction: float = 0.0, seconds: float = 0.0) -> None:
        self.inner = make_agent("random", game, seed=1)
        self.fraction, self.seconds = fraction, seconds
        self.budgets: list[float] = []

    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        assert limit.time is not None
        self.budgets.append(limit.time)
        time.sleep(self.seconds or self.fraction * limit.time)
        return self.inner.select_move(state, Limit())


def test_a_slow_agent_loses_on_time() -> None:
    settings = GameSettings("othello", time_control="0.2")
    result = play_game(settings, Sleeper("othello"), Sleeper("othello", seconds=0.8))
    assert (result.result, result.reason) == ("B+T", EndReason.TIMEOUT)
    assert "lost on time" in result.detail and len(result.moves) == 1
    result = play_game(settings, Sleeper("othello", seconds=0.8), Sleeper("othello"))
    assert (result.result, result.reason) == ("W+T", EndReason.TIMEOUT)
    assert not result.moves


def test_an_agent_within_its_budgets_never_loses_on_time() -> None:
    settings = GameSettings("othello", time_control="1.5")
    black, white = Sleeper("othello", fraction=0.9), Sleeper("othello", fraction=0.9)
    result = play_game(settings, black, white)
    assert result.reason is EndReason.SCORE
    assert len(black.budgets) > 20
    assert 0.9 * sum(black.budgets) > 0.5 * 1.5  # it did spend most of its clock
    clocks = [m.clock for m in result.moves if m.color is Color.BLACK]
    assert all(c is not None and c > 0 for c in clocks)
    assert clocks == sorted(clocks, reverse=True)  # type: ignore[type-var]


def test_a_fast_agent_never_loses_under_a_short_control() -> None:
    settings = GameSettings("go", 9, time_control="0.5+0.01")
    result = play_game(settings, Sleeper("go"), Sleeper("go"))
    assert result.reason in (EndReason.SCORE, EndReason.ADJUDICATED)
    assert len(result.moves) > 50


# -- GTP programs -------------------------------------------------------------------------------


def scripted(*script: tuple[str, str]) -> tuple[GtpAgent, ScriptedTransport]:
    transport = ScriptedTransport()
    for command, answer in script:
        transport.expect(command, answer)
    agent = GtpAgent(GtpOptions(command="unused"))
    agent.engine = GtpEngine(transport)
    return agent, transport


def test_gtp_program_gets_time_settings_once_and_time_left_every_move() -> None:
    control = TimeControl.parse("60+5")
    agent, transport = scripted(
        ("boardsize 9", "="),
        ("clear_board", "="),
        ("komi 7", "="),  # the computer rules' komi on 9x9
        ("list_commands", "= time_settings\ntime_left\ngenmove"),
        ("time_settings 60 0 0", "="),  # GTP has no Fischer: absolute time, increments reported
        ("time_left black 60 0", "="),
        ("genmove black", "= E5"),
        ("play white C3", "="),
        ("time_left black 57 0", "="),
        ("genmove black", "= D4"),
    )
    state = make("go", size=9)
    agent.set_clock(control, control.start())
    move = agent.select_move(state, Limit(time=1.0)).move
    state = state.play(move).play(state.parse_move("C3"))
    agent.set_clock(control, SideClock(57.9))
    agent.select_move(state, Limit(time=1.0))
    assert transport.done()


def test_gtp_program_gets_kgs_byoyomi_settings_and_periods_left() -> None:
    control = TimeControl.parse("300+30x5")
    agent, transport = scripted(
        ("boardsize 9", "="),
        ("clear_board", "="),
        ("komi 7", "="),  # the computer rules' komi on 9x9
        ("list_commands", "= kgs-time_settings\ntime_settings\ntime_left\ngenmove"),
        ("kgs-time_settings byoyomi 300 30 5", "="),
        ("time_left black 30 4", "="),  # in byo-yomi: a period's seconds, periods left
        ("genmove black", "= E5"),
    )
    agent.set_clock(control, SideClock(30.0, 4))
    agent.select_move(make("go", size=9), Limit(time=1.0))
    assert transport.done()


def test_canadian_time_settings_without_kgs() -> None:
    control = TimeControl.parse("0+60/10")
    agent, transport = scripted(
        ("boardsize 9", "="),
        ("clear_board", "="),
        ("komi 7", "="),  # the computer rules' komi on 9x9
        ("list_commands", "= time_settings\ntime_left\ngenmove"),
        ("time_settings 0 60 10", "="),
        ("time_left black 60 10", "="),
        ("genmove black", "= E5"),
    )
    agent.set_clock(control, control.start())
    agent.select_move(make("go", size=9), Limit(time=1.0))
    assert transport.done()


def fake_player(label: str, *flags: str) -> Player:
    command = " ".join([sys.executable, str(FAKE), *flags])
    return Player.parse(f'{label}=gtp:command="{command}",move_timeout=1,timeout=5')


def test_a_match_game_tells_the_program_its_clock(tmp_path: Path) -> None:
    log = tmp_path / "commands.log"
    fake = fake_player("fake", "--first-free", "--time-commands", "--log", str(log))
    settings = MatchSettings(GameSettings("go", 9, max_moves=12, time_control="30+2"))
    record = play_pairing(settings, Pairing(0, fake, Player.parse("random")), tmp_path)
    assert record.reason == "adjudicated"
    commands = log.read_text().splitlines()
    assert commands.count("time_settings 30 0 0") == 1
    left = [int(c.split()[2]) for c in commands if c.startswith("time_left black")]
    assert len(left) == 6 and left[0] == 30
    assert all(0 <= b - a <= 2 for a, b in itertools.pairwise(left))  # +2 s a move
    sgf = MatchFolder(tmp_path).game_path(0, ".sgf").read_text()
    assert "OT[30+2 (Fischer +2 s per move)]" in sgf and "TM[30]" in sgf
    assert "BL[" in sgf and "WL[" in sgf


def test_a_hung_program_loses_on_time_without_waiting_for_the_move_timeout() -> None:
    fake = fake_player("fake", "--hang-at", "1")
    agent = fake.make("go", 0)
    try:
        started = time.monotonic()
        settings = GameSettings("go", 9, time_control="0.5")
        result = play_game(settings, agent, Sleeper("go"))
    finally:
        agent.close()
    assert (result.result, result.reason) == ("W+T", EndReason.TIMEOUT)
    assert time.monotonic() - started < 0.5 + GRACE + 3.0


def test_settings_without_a_clock_keep_their_old_json() -> None:
    plain = MatchSettings(GameSettings("othello"))
    assert "time_control" not in plain.to_json()["game"]  # old match folders still resume
    timed = MatchSettings(GameSettings("othello", time_control="300+30x5"))
    assert MatchSettings.from_json(timed.to_json()) == timed
    assert MatchSettings.from_json(plain.to_json()) == plain


def test_gnugo_plays_under_a_clock(gnugo: str) -> None:
    command = f"{gnugo} --mode gtp --level 1 --chinese-rules"
    player = Player.parse(f'gnugo=gtp:command="{command}"')
    settings = GameSettings("go", 9, max_moves=16, time_control="3+1x1")  # as time_settings 3 1 1
    black, white = player.make("go", 0), Sleeper("go")
    try:
        result = play_game(settings, black, white)
    finally:
        black.close()
    assert result.reason is EndReason.ADJUDICATED
    clocks = [m.clock for m in result.moves if m.color is Color.BLACK]
    assert len(clocks) == 8 and all(c is not None and 0 < c <= 3 for c in clocks)


def test_sgf_carries_time_left_and_overtime() -> None:
    from imago.arena._sgf import game_to_sgf
    from imago.arena.game import PlayedMove

    state = make("go", size=9)
    black, white = state.parse_move("E5"), state.parse_move("C3")
    moves = [
        PlayedMove(Color.BLACK, black, 1.5, "", 58.5),
        PlayedMove(Color.WHITE, white, 12.0, "", 30.0, 4),
    ]
    sgf = game_to_sgf(state.play(black).play(white), moves, root={})
    assert "BL[58.50]" in sgf and "OB" not in sgf
    assert "WL[30.00]" in sgf and "OW[4]" in sgf
