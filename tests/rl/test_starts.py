"""Start positions: self-play games that begin part-way through recorded games."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from imago.agents.mcts import UniformEvaluator
from imago.cli.app import app
from imago.core.color import Color
from imago.core.move import Move
from imago.games import make
from imago.rl.config import smoke_config
from imago.rl.folder import RunError, RunFolder
from imago.rl.selfplay import FinishedGame, GameSpec, SelfPlay, SelfPlayConfig
from imago.rl.stages import init, load_config
from imago.rl.starts import StartGame, legal_beginning, load_start_games, start_actions
from imago.train.sgf_source import read_sgf_game
from imago.train.sources import SourceGame

GO5 = GameSpec("go", 5, komi=0.5)


def _sgf(moves: str, size: int = 5, root: str = "") -> str:
    return f"(;GM[1]FF[4]SZ[{size}]KM[0.5]{root}{moves})"


def _random_game(spec: GameSpec, seed: int, moves: int) -> list[Move]:
    """Random legal moves (no passes) from the empty board, at most ``moves`` of them."""
    rng = np.random.default_rng(seed)
    options: dict[str, object] = {"size": spec.size}
    if spec.game == "go":
        options["rules"] = spec.go_rules()
    state = make(spec.game, **options)
    played: list[Move] = []
    while len(played) < moves and not state.is_over():
        plays = [move for move in state.legal_moves() if move.is_play]
        if not plays:
            state = state.play(Move.PASS)
            played.append(Move.PASS)
            continue
        move = plays[int(rng.integers(len(plays)))]
        state = state.play(move)
        played.append(move)
    return played


def _sgf_of(moves: list[Move], size: int) -> str:
    colors = "BW"
    body = "".join(f";{colors[i % 2]}[{m.to_sgf(size)}]" for i, m in enumerate(moves))
    return _sgf(body, size)


# 5x5, columns a-e, rows a-e from the top (SGF):
#
#     a b c d e
#   a . . . . .
#   b . . . . .
#   c . . X . .      B[cc] first, then as each case says
#   d . . . . .
#   e . . . . .
@pytest.mark.parametrize(
    ("moves", "root", "kept"),
    [
        (";B[cc];W[bb];B[dd]", "", 3),  # every move is legal: all kept
        (";B[cc];W[bb];B[];W[dd];B[ee]", "", 2),  # Go: up to the first pass
        (";B[cc];W[cc];B[dd]", "", 1),  # W[cc] is on a stone: up to it
        (";B[cc];B[bb];W[dd]", "", 1),  # Black twice: the move out of turn ends it
        (";B[cc];W[bb];B[dd];W[tt]", "", 3),  # FF[3]'s pass at the end
        (";B[cc];W[bb]", "AB[aa]", 0),  # setup stones: not a game from the empty board
        (";B[cc];W[bb]", "HA[2]AB[aa][ee]", 0),
    ],
)
def test_a_records_legal_beginning(moves: str, root: str, kept: int) -> None:
    game = read_sgf_game(_sgf(moves, root=root), "case.sgf")
    assert game is not None
    actions = legal_beginning(game, GO5)
    assert len(actions) == kept
    assert list(actions) == [m.to_action(5) for m in game.moves[:kept]]


def test_a_game_of_another_board_size_gives_nothing() -> None:
    game = read_sgf_game(_sgf(";B[cc];W[bb]", size=7), "seven.sgf")
    assert game is not None and legal_beginning(game, GO5) == ()


# A ko (5x5). Black takes at cb (move 9) and White retakes at once at bb (move 10), which
# the rules refuse:
#
#     a b c d e             a b c d e
#   a . X O . .           a . X O . .
#   b X O . O .   B[cb]   b X . X O .   W[bb]: ko
#   c . X O . .   ----->  c . X O . .
#   d . . . . .           d . . . . .
#   e . . . . X           e . . . . X
def test_a_ko_retake_the_rules_refuse_ends_the_beginning() -> None:
    moves = ";B[ba];W[ca];B[ab];W[bb];B[bc];W[cc];B[ee];W[db];B[cb];W[bb];B[aa]"
    game = read_sgf_game(_sgf(moves), "ko.sgf")
    assert game is not None
    state = make("go", size=5, rules=GO5.go_rules())
    for move in game.moves[:9]:
        state = state.play(move)
    assert not state.is_legal(game.moves[9])  # the case is what the diagram says
    assert len(legal_beginning(game, GO5)) == 9


@pytest.mark.parametrize("seed", range(6))
def test_othello_records_without_passes_get_their_forced_passes_back(seed: int) -> None:
    """WTHOR leaves out forced passes: the beginning puts them back, keeps every later move,
    and stops before the move that ends the game."""
    spec = GameSpec("othello", 6)
    played = _random_game(spec, seed, moves=200)
    without_passes = tuple(m for m in played if m.is_play)
    game = SourceGame(key=f"random{seed}", moves=without_passes, colors=None, size=6)
    actions = legal_beginning(game, spec)
    expected = [m.to_action(6) for m in played[: len(played) - 1]]
    while expected and expected[-1] == 36:
        expected.pop()
    assert list(actions) == expected
    state = make("othello", size=6)
    for action in actions:
        state = state.play(Move.from_action(action, 6))
    assert not state.is_over()


def _archive(path: Path, texts: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in texts.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_start_games_load_from_sgf_files_folders_and_archives(tmp_path: Path) -> None:
    games = {f"g{i}.sgf": _sgf_of(_random_game(GO5, i, 12), 5) for i in range(3)}
    (tmp_path / "folder").mkdir()
    for name, text in games.items():
        (tmp_path / "folder" / name).write_text(text)
    archive = _archive(tmp_path / "games.tar.gz", games)
    from_folder = load_start_games((str(tmp_path / "folder"),), GO5)
    from_archive = load_start_games((str(archive),), GO5)
    assert [g.actions for g in from_folder] == [g.actions for g in from_archive]
    assert [len(g.actions) for g in from_folder] == [12, 12, 12]


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (None, "no such file"),
        ("hello, not a record", "no game of go"),  # not SGF at all
        ("(;GM[1]SZ[5];W[cc];B[dd])", "no game of go"),  # White first: out of turn
        (_sgf(";B[cc];W[bb]", size=9), "no game of go"),  # a game of another board
    ],
)
def test_start_records_without_a_usable_game_are_refused(
    tmp_path: Path, write: str | None, message: str
) -> None:
    path = tmp_path / "starts.sgf"
    if write is not None:
        path.write_text(write)
    with pytest.raises(RunError, match=message):
        load_start_games((str(path),), GO5)


def _starts() -> list[StartGame]:
    return [StartGame(f"g{i}", legal_beginning_of(GO5, i)) for i in range(4)]


def legal_beginning_of(spec: GameSpec, seed: int) -> tuple[int, ...]:
    game = read_sgf_game(_sgf_of(_random_game(spec, seed, 10), spec.size), "g")
    assert game is not None
    return legal_beginning(game, spec)


def _replayed_legally(spec: GameSpec, record: FinishedGame) -> None:
    state = make("go", size=spec.size, rules=spec.go_rules())
    for action in record.actions:
        state = state.play(Move.from_action(action, spec.size))  # raises if illegal
    assert state.is_over()


@pytest.mark.parametrize("rule", ["gumbel", "puct"])
def test_self_play_from_start_positions_plays_on_and_teaches_only_its_own_moves(
    rule: str,
) -> None:
    starts = _starts()
    config = SelfPlayConfig(
        parallel=4, simulations=8, considered=4, rule=rule, max_moves=60, start_fraction=1.0
    )
    play = SelfPlay(GO5, UniformEvaluator(), config, seed=3, starts=starts)
    games: list[FinishedGame] = []
    play.play(8, games.append)
    by_key = {start.key: start.actions for start in starts}
    lengths = set()
    for record in games:
        beginning = by_key[record.start_key]
        assert 1 <= record.start_moves <= len(beginning)
        assert tuple(record.actions[: record.start_moves]) == beginning[: record.start_moves]
        assert min(record.example_moves) >= record.start_moves  # the record's moves teach nothing
        first = record.example_moves[0]
        assert record.to_play[0] == (Color.BLACK if first % 2 == 0 else Color.WHITE)
        assert record.full_searches + record.fast_searches == len(record.actions) - (
            record.start_moves
        )
        _replayed_legally(GO5, record)
        lengths.add(record.start_moves)
    assert len(lengths) > 1  # beginnings of many lengths


# How many of a 60-move record's moves a start replays, by ``start_turn_weight`` (KataGo's
# startPosesTurnWeightLambda, weight exp(-w k) for k moves):
#
#   k:     1 ............................ 50 ....... 60
#   w=0    |=============== uniform =================|    last ten: 1/6
#   w<0                                   |==========|    last ten: (1 - e^(10w)) / (1 - e^(60w))
#   w>0    |=====|                                        first ten: (1 - e^(-10w)) / (1 - e^(-60w))
@pytest.mark.parametrize(
    ("weight", "late"),
    [
        (0.0, 10 / 60),
        (-0.1, (1 - np.exp(-1.0)) / (1 - np.exp(-6.0))),
        (-0.3, (1 - np.exp(-3.0)) / (1 - np.exp(-18.0))),
        (0.1, (np.exp(-5.0) - np.exp(-6.0)) / (1 - np.exp(-6.0))),
    ],
)
def test_a_start_goes_into_its_record_as_the_turn_weight_says(weight: float, late: float) -> None:
    game = StartGame("sixty", tuple(range(60)))
    rng = np.random.default_rng(7)
    draws = 4000
    lengths = np.array([len(start_actions(game, rng, weight)) for _ in range(draws)])
    assert lengths.min() >= 1 and lengths.max() <= 60
    share = float(np.mean(lengths > 50))
    assert abs(share - late) < 4 * np.sqrt(late * (1 - late) / draws) + 0.005
    beginning = start_actions(game, rng, weight)
    assert beginning == game.actions[: len(beginning)]


def test_an_extreme_turn_weight_starts_at_one_end_of_the_record() -> None:
    game = StartGame("sixty", tuple(range(60)))
    rng = np.random.default_rng(1)
    assert {len(start_actions(game, rng, -10.0)) for _ in range(50)} == {60}
    assert {len(start_actions(game, rng, 10.0)) for _ in range(50)} == {1}
    with pytest.raises(ValueError, match="start_turn_weight must be in"):
        SelfPlayConfig(start_turn_weight=-11.0)


def test_a_turn_weight_without_start_games_is_refused_and_leaves_the_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="start_fraction is 0"):
        SelfPlayConfig(start_turn_weight=-0.1)
    assert SelfPlayConfig(start_fraction=0.3, start_turn_weight=-0.1).start_turn_weight == -0.1
    folder = RunFolder(tmp_path / "run")
    init(folder, smoke_config(GO5))
    before = folder.run_path.read_bytes()
    result = CliRunner().invoke(
        app, ["rl", "set", str(folder.root), "selfplay.start_turn_weight=-0.1"]
    )
    assert result.exit_code != 0 and "start_fraction is 0" in result.output
    assert folder.run_path.read_bytes() == before


def test_self_play_with_a_late_turn_weight_starts_near_its_records_ends() -> None:
    starts = _starts()
    config = SelfPlayConfig(
        parallel=4,
        simulations=8,
        considered=4,
        max_moves=60,
        start_fraction=1.0,
        start_turn_weight=-10.0,
    )
    play = SelfPlay(GO5, UniformEvaluator(), config, seed=5, starts=starts)
    games: list[FinishedGame] = []
    play.play(6, games.append)
    by_key = {start.key: start.actions for start in starts}
    assert games and all(record.start_moves == len(by_key[record.start_key]) for record in games)


def test_without_a_start_fraction_every_game_starts_from_the_empty_board() -> None:
    config = SelfPlayConfig(parallel=4, simulations=8, considered=4, max_moves=60)
    play = SelfPlay(GO5, UniformEvaluator(), config, seed=3, starts=_starts())
    games: list[FinishedGame] = []
    play.play(4, games.append)
    assert all(record.start_moves == 0 and record.start_key == "" for record in games)


def test_a_start_fraction_without_start_games_is_refused(tmp_path: Path) -> None:
    config = SelfPlayConfig(parallel=2, simulations=8, start_fraction=0.5)
    with pytest.raises(ValueError, match="start games"):
        SelfPlay(GO5, UniformEvaluator(), config)
    with pytest.raises(ValueError, match="start_fraction must be in"):
        SelfPlayConfig(start_fraction=1.5)
    folder = RunFolder(tmp_path / "run")
    init(folder, smoke_config(GO5))
    before = folder.run_path.read_bytes()
    result = CliRunner().invoke(app, ["rl", "set", str(folder.root), "selfplay.start_fraction=0.3"])
    assert result.exit_code != 0 and "needs start_records" in result.output
    assert folder.run_path.read_bytes() == before


def test_rl_set_checks_the_start_records_and_takes_one_path_alone(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    init(folder, smoke_config(GO5))
    broken = tmp_path / "broken.sgf"
    broken.write_text("hello, not a record")
    before = folder.run_path.read_bytes()
    args = ["rl", "set", str(folder.root), "selfplay.start_fraction=0.3"]
    result = CliRunner().invoke(app, [*args, f"start_records={broken}"])
    assert result.exit_code != 0 and "no game of go" in result.output
    assert folder.run_path.read_bytes() == before
    good = tmp_path / "good.sgf"
    good.write_text(_sgf_of(_random_game(GO5, 1, 8), 5))
    result = CliRunner().invoke(app, [*args, f"start_records={good}"])
    assert result.exit_code == 0, result.output
    config = load_config(folder)
    assert config.start_records == (str(good),) and config.selfplay.start_fraction == 0.3


def test_self_play_workers_start_in_the_runs_start_records(tmp_path: Path) -> None:
    """The workers of a pool (here in this process) read the run's start records too."""
    from imago.cluster import InlineExecutor
    from imago.rl.folder import read_infos
    from imago.rl.stages import bootstrap
    from imago.rl.workers import SelfPlayPool

    records = tmp_path / "starts.sgf"
    records.write_text(_sgf_of(_random_game(GO5, 2, 10), 5))
    config = smoke_config(GO5).with_changes(
        {
            "start_records": [str(records)],
            "selfplay.start_fraction": 1.0,
            "selfplay.parallel": 4,
            "holdout_fraction": 0.0,
        }
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    with InlineExecutor() as executor:
        pool = SelfPlayPool(executor, folder, config, 1, name="P", step_games=2)
        pool.play(games=4)
        pool.close()
    infos = [info for path in folder.example_files(0, False) for info in read_infos(path)]
    assert len(infos) >= 4
    assert all(info["start_key"] == "starts.sgf" and info["start_moves"] >= 1 for info in infos)


def test_a_runs_start_games_are_read_once_while_their_files_stay_the_same(
    tmp_path: Path,
) -> None:
    from imago.rl.starts import start_games

    records = tmp_path / "starts.sgf"
    records.write_text(_sgf_of(_random_game(GO5, 4, 6), 5))
    config = smoke_config(GO5).with_changes(
        {"start_records": [str(records)], "selfplay.start_fraction": 0.5}
    )
    first = start_games(config)
    assert start_games(config) is first  # the loop's next round reads nothing again
    records.write_text(_sgf_of(_random_game(GO5, 5, 9), 5))  # written again: read again
    assert [len(game.actions) for game in start_games(config)] == [9]
    assert start_games(smoke_config(GO5)) == ()  # no start fraction: no start games
