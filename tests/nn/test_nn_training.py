"""Datasets from records, supervised training, resuming, the command line and the policy agent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from imago.agents.base import Limit
from imago.core import Color, Move
from imago.games import make
from imago.nn.dataset import Dataset, DatasetError
from imago.train.build import BuildConfig, GameFilter, SplitConfig, build_dataset, rank_value
from imago.train.sources import SourceError, read_wthor

torch = pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

from imago.cli.app import app  # noqa: E402


def random_games(count: int, seed: int = 0) -> list[tuple[list[str], str]]:
    """Random Othello games as (moves without passes, result)."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        state, moves = make("othello"), []
        while not state.is_over():
            legal = np.flatnonzero(state.legal_mask())
            state = state.play_action(int(rng.choice(legal)))
            if state.last_move is not None and state.last_move.is_play:
                moves.append(state.last_move.to_algebraic())
        games.append((moves, state.outcome().result()))
    return games


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    games = random_games(24)
    folder = tmp_path_factory.mktemp("records")
    lines = [f"{''.join(moves)} # {result}" for moves, result in games]
    (folder / "games.txt").write_text("# random games\n" + "\n".join(lines) + "\n")
    return folder / "games.txt", games


@pytest.fixture(scope="module")
def dataset(transcripts, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    out = tmp_path_factory.mktemp("data") / "ds"
    config = BuildConfig("othello", 8, "legal4", split=SplitConfig(val_fraction=0.25))
    build_dataset([transcripts[0]], out, config)
    return Dataset.open(out)


def test_dataset_holds_every_decision_split_by_game(dataset: Dataset, transcripts):
    _, games = transcripts
    assert dataset.games("train") + dataset.games("val") == len(games)
    assert dataset.games("val") > 0 and dataset.games("train") > 0
    assert dataset.count("train") + dataset.count("val") == sum(len(m) for m, _ in games)
    for split in ("train", "val"):
        arrays = dataset.load(split)
        batch = dataset.unpack(arrays)
        assert batch.legal[np.arange(len(arrays)), batch.policy].all()  # targets are legal
        # Every position of a game is in one split: game numbers are contiguous per shard.
        assert (np.diff(arrays.game) >= 0).all()
    assert np.isin(dataset.load("train").value, [-1, 0, 1]).all()


def test_rebuilding_resumes_and_skips_finished_units(dataset: Dataset, transcripts):
    before = (dataset.root / "manifest.json").read_text()
    config = BuildConfig("othello", 8, "legal4", split=SplitConfig(val_fraction=0.25))
    calls = []
    build_dataset([transcripts[0]], dataset.root, config, progress=calls.append)
    assert calls == [] and (dataset.root / "manifest.json").read_text() == before
    other = BuildConfig("othello", 8, "stones2")
    with pytest.raises(DatasetError, match="other settings"):
        build_dataset([transcripts[0]], dataset.root, other)


def test_missing_and_empty_sources_create_nothing(tmp_path: Path):
    config = BuildConfig("othello", 8)
    with pytest.raises(SourceError, match="no such file"):
        build_dataset([tmp_path / "missing"], tmp_path / "out", config)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no games"):
        build_dataset([tmp_path / "empty"], tmp_path / "out", config)
    (tmp_path / "short.txt").write_text("f5d6\n")
    with pytest.raises(DatasetError, match="no game survived"):
        build_dataset([tmp_path / "short.txt"], tmp_path / "out", config)
    assert not (tmp_path / "out").exists()


def test_wthor_positions_replay_with_implicit_passes(data_dir: Path, tmp_path: Path):
    source = data_dir / "wthor" / "WTH_1977.wtb"
    games = read_wthor(source)
    assert len(games) == 12 and games[0].moves[0] in (Move.from_algebraic("f5"),)
    config = BuildConfig("othello", 8, "stones2", filter=GameFilter(min_moves=1))
    manifest = build_dataset([source], tmp_path / "ds", config)
    assert manifest["rejected"] == {}
    assert sum(u["positions"] for u in manifest["units"]) == sum(len(g.moves) for g in games)


SGF = (
    "(;GM[1]SZ[9]RU[Japanese]BR[{br}]WR[3d]RE[{re}]{ha};B[ee];W[ce];B[gc];W[dc];B[cg];W[ge]{tail})"
)


def test_go_sgf_filters(tmp_path: Path):
    import imago.records.sgf  # noqa: F401  (fails loudly if it breaks)

    folder = tmp_path / "sgf"
    folder.mkdir()
    long_tail = ";B[fd];W[eg];B[fg];W[ff];B[gf];W[fh]"
    cases = {
        "good": dict(br="2d", re="B+R", ha="", tail=long_tail),
        "void": dict(br="2d", re="Void", ha="", tail=long_tail),
        "weak": dict(br="5k", re="W+3.5", ha="", tail=long_tail),
        "short": dict(br="2d", re="B+R", ha="", tail=""),
        "handicap": dict(br="2d", re="B+R", ha="HA[2]AB[cc][gg]", tail=long_tail),
    }
    for name, fields in cases.items():
        (folder / f"{name}.sgf").write_text(SGF.format(**fields))
    config = BuildConfig(
        "go", 9, "minigo17", filter=GameFilter(min_moves=8, min_rank="1d"), split=SplitConfig(0.0)
    )
    manifest = build_dataset([folder], tmp_path / "ds", config, sgf_reader=_reader())
    assert manifest["rejected"] == {"handicap": 1, "no result": 1, "rank": 1, "short": 1}
    data = Dataset.open(tmp_path / "ds")
    arrays = data.load("train")
    assert len(arrays) == 12 and arrays.value[0] == 1 and arrays.value[1] == -1
    assert rank_value("1d") == 1 and rank_value("1k") == 0 and rank_value("?") is None


def _reader():
    from imago.train.sgf_source import read_sgf_game

    return read_sgf_game


def tiny_config(**changes):
    from imago.nn.supervised import TrainConfig

    base = dict(model="b1c8", epochs=2, batch_size=32, lr=0.01, warmup_steps=2, threads=1)
    base.update(changes)
    return TrainConfig(**base)


def test_resume_continues_exactly(dataset: Dataset, tmp_path: Path):
    from imago.nn.supervised import train_supervised

    straight = train_supervised(dataset, tmp_path / "a", tiny_config())
    stopped = train_supervised(dataset, tmp_path / "b", tiny_config(), stop_after_steps=5)
    assert stopped == []
    resumed = train_supervised(dataset, tmp_path / "b", tiny_config(), resume=True)
    assert resumed == [
        dict(row, **{k: resumed[i][k] for k in _timing(row)}) for i, row in enumerate(straight)
    ]
    a = torch.load(tmp_path / "a" / "model.pt", weights_only=True)["state_dict"]
    b = torch.load(tmp_path / "b" / "model.pt", weights_only=True)["state_dict"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def words(text: str) -> str:
    return " ".join(text.split())


def _timing(row: dict) -> list[str]:
    return [k for k in row if k.endswith(("_per_s", "_seconds"))]


def test_cli_without_games_fails_and_creates_nothing(tmp_path: Path):
    runner = CliRunner()
    out = tmp_path / "run"
    args = ["train", "supervised", "--game", "othello", "--out", str(out), "--data"]
    result = runner.invoke(app, [*args, str(tmp_path / "missing")])
    assert result.exit_code != 0 and "does not exist" in words(result.output)
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, [*args, str(tmp_path / "empty")])
    assert result.exit_code != 0 and "holds no games" in words(result.output)
    assert not out.exists()


def test_cli_given_games_creates_a_model_that_plays(transcripts, tmp_path: Path):
    from imago.agents.registry import make_agent

    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["train", "supervised", "--game", "othello", "--data", str(transcripts[0]),
         "--model", "l2c8", "--out", str(out), "--epochs", "2", "--batch-size", "64",
         "--val-fraction", "0.25", "--threads", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "warm-up shortened from 200 to" in words(result.output)
    for name in ("model.pt", "checkpoint.pt", "metrics.jsonl", "curves.png", "config.json"):
        assert (out / name).is_file(), name
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [row["epoch"] for row in rows] == [1, 2] and "val_top1" in rows[0]
    again = CliRunner().invoke(
        app, ["train", "supervised", "--game", "othello", "--data", str(transcripts[0]),
              "--out", str(out)],
    )  # fmt: skip
    assert again.exit_code != 0 and "--resume" in words(again.output)

    try:
        import onnx  # noqa: F401
    except ImportError:
        pass
    else:
        exported = CliRunner().invoke(
            app, ["train", "export", str(out / "model.pt"), "--onnx", str(tmp_path / "m.onnx")]
        )
        assert exported.exit_code == 0 and (tmp_path / "m.onnx").stat().st_size > 1000

    agent = make_agent("policy", "othello", {"model": str(out / "model.pt"), "top": "3"})
    random = make_agent("random", "othello", seed=1)
    state = make("othello")
    while not state.is_over():
        player = agent if state.to_play is Color.BLACK else random
        result_ = player.select_move(state, Limit())
        assert state.is_legal(result_.move)
        if player is agent and result_.move.is_play:
            assert result_.candidates and result_.candidates[0].prior is not None
        state = state.play(result_.move)
    with pytest.raises(ValueError, match="is a model for 8x8 othello, not 9x9 go"):
        make_agent("policy", "go", {"model": str(out / "model.pt")})


@pytest.mark.parametrize(
    ("text", "lead"),
    [("B+3.5", 3.5), ("W+1.0 (upper bound: 1.0, lower: 1.0)", -1.0), ("0", 0.0), ("?", None)],
)
def test_parse_score(text: str, lead: float | None):
    from imago.train.label import parse_score

    assert parse_score(text) == lead


@pytest.mark.engine
def test_gnugo_labels_positions(gnugo: str, tmp_path: Path):
    import imago.records.sgf  # noqa: F401  (fails loudly if it breaks)
    from imago.gtp.client import GtpEngine
    from imago.train.label import GtpLabeller, LabelConfig

    folder = tmp_path / "sgf"
    folder.mkdir()
    tail = ";B[fd];W[eg];B[fg];W[ff];B[gf];W[fh]"
    (folder / "game.sgf").write_text(SGF.format(br="2d", re="B+R", ha="", tail=tail))
    config = BuildConfig("go", 9, "stones2", split=SplitConfig(0.0))
    with GtpEngine.popen([gnugo, "--mode", "gtp", "--level", "0"]) as engine:
        labeller = GtpLabeller(engine, LabelConfig(every=3))
        manifest = build_dataset(
            [folder], tmp_path / "ds", config, sgf_reader=_reader(), labeller=labeller,
            label_settings=labeller.settings(),
        )  # fmt: skip
    assert manifest["settings"]["labels"]["engine"].startswith("GNU Go")
    data = Dataset.open(tmp_path / "ds")
    batch = data.unpack(data.load("train"))
    assert len(batch.policy) == 4  # decisions 1, 4, 7, 10 of 12
    assert batch.legal[np.arange(4), batch.policy].all()
    assert set(batch.value.tolist()) <= {-1.0, 0.0, 1.0}
    # An empty-ish board: GNU Go's opening choice is a real point, not a pass.
    assert (batch.policy < 81).all()


def test_validation_can_require_a_rank():
    from imago.train.sources import SourceGame

    split = SplitConfig(val_fraction=1.0, val_min_rank="1d")
    dan = SourceGame("a", (), meta={"ranks": ("2d", "1d")})
    mixed = SourceGame("b", (), meta={"ranks": ("2d", "1k")})
    unknown = SourceGame("c", ())
    assert split.is_validation(dan)
    assert not split.is_validation(mixed) and not split.is_validation(unknown)


# -- the first hour with the training commands (issue 16) ---------------------------------------


def random_go_sgf(folder: Path, count: int, seed: int = 0) -> None:
    """Random 9x9 Go games as SGF files with a result."""
    from imago.agents.registry import make_agent
    from imago.records.sgf import write_file
    from imago.records.tree import game_from_moves, start_state

    agent = make_agent("random", "go", seed=seed)
    for index in range(count):
        state, moves = make("go", size=9), []
        while not state.is_over() and len(moves) < 60:
            move = agent.select_move(state, Limit()).move
            moves.append(move)
            state = state.play(move)
        game = game_from_moves(start_state("go", size=9), moves)
        game.set_text("RE", "B+R" if index % 2 else "W+R")
        write_file(folder / f"game{index}.sgf", game)


def test_dataset_reads_the_game_from_the_records(tmp_path: Path) -> None:
    folder = tmp_path / "go"
    folder.mkdir()
    random_go_sgf(folder, 4)
    out = tmp_path / "ds"
    result = CliRunner().invoke(app, ["train", "dataset", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "the records hold go games" in result.output
    assert json.loads((out / "manifest.json").read_text())["settings"]["game"] == "go"
    wrong = CliRunner().invoke(
        app, ["train", "dataset", str(folder), "--game", "othello", "--out", str(tmp_path / "x")]
    )
    assert wrong.exit_code == 1
    assert "4 other game" in words(wrong.output) and "try --game go" in words(wrong.output)


def test_dataset_reads_the_eothello_csv(tmp_path: Path) -> None:
    games = random_games(6, seed=5)
    rows = [
        f"g{n},{1 if r.startswith('B') else -1 if r.startswith('W') else 0},{''.join(m)}"
        for n, (m, r) in enumerate(games)
    ]
    csv = tmp_path / "othello_dataset.csv"
    csv.write_text("Othello_game_id,winner,game_moves\n" + "\n".join(rows) + "\n")
    out = tmp_path / "ds"
    result = CliRunner().invoke(app, ["train", "dataset", str(csv), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "the records hold othello games" in result.output
    assert "dataset" in result.output and "6 games" in words(result.output)


def test_evaluating_a_file_that_is_not_a_model_says_so_in_one_line(
    tmp_path: Path, dataset: Dataset
) -> None:
    text = tmp_path / "notes.pt"
    text.write_text("not a model")
    result = CliRunner().invoke(app, ["train", "evaluate", str(text), "--data", str(dataset.root)])
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0, result.output
    assert "notes.pt is not a model file" in result.output
    assert "weights_only" not in result.output and "Please" not in result.output


def test_a_short_run_still_reaches_its_learning_rate() -> None:
    from imago.nn.supervised import TrainConfig, lr_at, warmup_for

    config = TrainConfig(lr=0.1, warmup_steps=200)
    warmup = warmup_for(config, 32)
    assert warmup == 8
    assert max(lr_at(config, step, step / 32, warmup) for step in range(32)) == pytest.approx(0.1)
    assert warmup_for(config, 10_000) == 200
