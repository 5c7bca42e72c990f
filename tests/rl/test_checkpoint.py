"""A run's compact checkpoint: written, restored on a "new machine" (another folder), and the
restored run trains on exactly the examples the original would have."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from imago.nn.dataset import read_shard, unpack, write_shard
from imago.nn.rl_train import draw_batch
from imago.rl import checkpoint
from imago.rl.config import LoopConfig, smoke_config
from imago.rl.folder import RunError, RunFolder, read_infos
from imago.rl.plots import anchor_curve, reference_elo
from imago.rl.selfplay import GameSpec
from imago.rl.stages import (
    anchor_generations,
    bootstrap,
    change_settings,
    compute_used,
    gather,
    init,
    load_config,
    load_listed,
    loop,
    references,
    self_play,
    train,
)


def _config(game: str, size: int, **changes: object) -> LoopConfig:
    config = smoke_config(GameSpec(game, size))
    return config.with_changes({"holdout_fraction": 0.25, **changes})


def _two_rounds(run: Path, config: LoopConfig) -> RunFolder:
    """A run with generation 1 trained and round 1 half played."""
    folder = RunFolder(run)
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, worker="first")
    assert train(folder, config) == 1
    self_play(folder, config, games=4, worker="second")
    return folder


def _next_batch(folder: RunFolder, config: LoopConfig, step: int) -> dict[str, np.ndarray]:
    """The batch the trainer of the next generation draws at ``step`` (as
    :func:`imago.nn.rl_train.train_steps` draws it), unpacked."""
    latest = folder.latest()
    assert latest is not None
    files, window = load_listed(lambda: gather(folder, config, latest))
    rng = np.random.default_rng([config.train.seed, latest + 1, step])
    batch = unpack(draw_batch(rng, window, config.train), 4, config.spec.size)  # legal4: 4 planes
    return {name: getattr(batch, name) for name in batch.__dataclass_fields__} | {
        "files": np.array([path.name for path in files])
    }


START_GAME = "(;GM[1]SZ[7];B[dd];W[cc];B[ee];W[ce];B[de];W[cd];B[dc];W[cb];B[db];W[bf])"
"""A 7x7 game whose beginnings a run's self-play may start from (``start_records``)."""


def _infos(folder: RunFolder) -> list[dict[str, object]]:
    """The game records of every example file of a run."""
    return [
        info
        for path in folder.root.rglob("*.npz")
        if "examples" in path.parts
        for info in read_infos(path)
    ]


@pytest.mark.parametrize(
    ("game", "size", "starts"), [("go", 7, False), ("othello", 6, False), ("go", 7, True)]
)
def test_a_restored_run_draws_the_same_next_training_batches(
    tmp_path: Path, game: str, size: int, starts: bool
) -> None:
    changes: dict[str, object] = {}
    if starts:  # games that begin part-way through a record replay from their first move
        (tmp_path / "start.sgf").write_text(START_GAME)
        changes = {"start_records": [str(tmp_path / "start.sgf")], "selfplay.start_fraction": 0.5}
    config = _config(game, size, **changes)
    original = _two_rounds(tmp_path / "run", config)
    written = checkpoint.write(original, tmp_path / "checkpoint")
    assert written.generation == 1 and written.rounds == (0, 1)
    assert written.games == original.games_in_round(0) + original.games_in_round(1)
    # the checkpoint is a fraction of the run's example files: 0.41-0.49 on these few short
    # games, where each file's fixed overhead weighs most (runs-of-record/go9x9: 3.6 MB for 21 MB)
    examples = sum(p.stat().st_size for p in (tmp_path / "run").rglob("*.npz"))
    window = sum(p.stat().st_size for p in (tmp_path / "checkpoint" / "window").iterdir())
    assert window < 0.6 * examples

    shutil.copytree(tmp_path / "checkpoint", tmp_path / "elsewhere")  # a new machine
    restored = RunFolder(tmp_path / "new")
    made = checkpoint.restore(tmp_path / "elsewhere", restored.root)
    assert (made.generation, made.games, made.examples) == (1, written.games, written.examples)
    assert restored.latest() == 1 and restored.best() == original.best()
    for round_ in (0, 1):
        assert restored.games_in_round(round_) == original.games_in_round(round_)
        for holdout in (False, True):
            names = [p.name for p in original.example_files(round_, holdout)]
            assert [p.name for p in restored.example_files(round_, holdout)] == names
    if starts:
        started = [info for info in _infos(restored) if info.get("start_moves")]
        assert started and all(info["start_key"] == "start.sgf" for info in started)
    for step in (0, 7):
        before, after = _next_batch(original, config, step), _next_batch(restored, config, step)
        assert before.keys() == after.keys()
        for name in before:
            assert np.array_equal(before[name], after[name]), name
    # the restored run goes on: its next generation trains from the kept network and trainer
    assert restored.checkpoint_path.is_file()
    assert train(restored, config) == 2
    assert {row["event"] for row in restored.metrics()} >= {"bootstrap", "train", "restore"}


def test_a_checkpoint_keeps_the_anchor_the_newest_and_the_promoted_networks(
    tmp_path: Path,
) -> None:
    import torch

    from imago.nn.store import load_model

    config = _config("othello", 6)
    folder = _two_rounds(tmp_path / "run", config)
    folder.promote(0, "a test: the promoted network is older than the newest")
    checkpoint.write(folder, tmp_path / "checkpoint")
    manifest = checkpoint.read_manifest(tmp_path / "checkpoint")
    assert manifest["models"] == [0, 1] and manifest["promoted"] == 0
    kept = load_model(tmp_path / "checkpoint" / "models" / "000001.pt")
    full = load_model(folder.model_path(1))
    for name, tensor in full.net.state_dict().items():
        if tensor.is_floating_point():  # float16 on disk, the original rounded
            assert torch.equal(kept.net.state_dict()[name], tensor.half().float()), name
    saved = torch.load(tmp_path / "checkpoint" / "trainer.pt", weights_only=True)
    momenta = [s["momentum_buffer"] for s in saved["optimizer"]["state"].values()]
    assert momenta and all(m.dtype == torch.float16 for m in momenta)


def _restored_at_generation_2(tmp_path: Path, config: LoopConfig) -> tuple[RunFolder, RunFolder]:
    """A run trained to generation 2, and the run restored from its checkpoint elsewhere."""
    original = _two_rounds(tmp_path / "run", config)
    assert train(original, config) == 2
    checkpoint.write(original, tmp_path / "checkpoint")
    restored = RunFolder(tmp_path / "new")
    checkpoint.restore(tmp_path / "checkpoint", restored.root)
    return original, restored


@pytest.mark.parametrize(
    ("anchors", "kept"),
    [
        ((0,), [0, 2]),  # generation 0 always: the Elo curve's anchor
        ((0, 1), [0, 1, 2]),  # an anchor between them: restored runs go on playing it
        ((0, 1, 7), [0, 1, 2]),  # an anchor the run has not reached yet: nothing to keep
    ],
)
def test_a_checkpoint_keeps_the_runs_anchor_networks_and_a_restored_run_holds_them(
    tmp_path: Path, anchors: tuple[int, ...], kept: list[int]
) -> None:
    config = _config("othello", 6, **{"references.anchors": list(anchors)})
    _, restored = _restored_at_generation_2(tmp_path, config)
    assert checkpoint.read_manifest(tmp_path / "checkpoint")["models"] == kept
    assert [g for g in range(3) if restored.model_path(g).is_file()] == kept
    played = [a for a in anchors if a < 2]
    assert anchor_generations(restored, config, 2) == played


def test_a_restored_run_plays_its_anchors_and_its_status_shows_every_reference(
    tmp_path: Path,
) -> None:
    from rich.console import Console

    from imago.cli.rl import status_table

    changes = {"references.anchors": [0, 1], "references.games": 2}
    config = _config("othello", 6, **changes, **{"references.opponents": ["rnd=random"]})
    _, restored = _restored_at_generation_2(tmp_path, config)
    played = references(restored, load_config(restored), 2)["scores"]
    assert list(played) == ["rnd", "gen0", "gen1"]
    assert all(score["games"] == 2 for score in played.values())

    shown = io.StringIO()  # wide enough for every column, whatever the terminal
    Console(file=shown, width=300, color_system=None).print(status_table(restored))
    lines = shown.getvalue().splitlines()
    header = next(line for line in lines if "vs " in line)
    assert [cell.strip() for cell in header.split("┃") if "vs " in cell] == [
        "vs rnd",
        "vs gen0",
        "vs gen1",
    ]
    row = next(line for line in lines if line.startswith("│ 2 "))
    assert row.count("of 2") == 3


def test_an_anchor_the_run_no_longer_holds_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """A restored run holds only its checkpoint's networks: an anchor set on one of the
    others would fail hours later, at the next reference match."""
    config = _config("othello", 6)
    original, restored = _restored_at_generation_2(tmp_path, config)
    before = restored.settings()
    with pytest.raises(RunError, match=r"no network of generation 1 .* those it holds: 0, 2"):
        change_settings(restored, {"references.anchors": [0, 1]})
    with pytest.raises(RunError, match="no network of generation 1"):  # the section whole
        change_settings(
            restored, {"references": {**before["config"]["references"], "anchors": [1]}}
        )
    assert restored.settings() == before
    change_settings(restored, {"references.games": 4})  # other changes need no anchor check
    with pytest.raises(RunError, match="no network of generation 1"):
        references(restored, config.with_changes({"references.anchors": [0, 1]}), 2)
    change_settings(original, {"references.anchors": [0, 1]})  # the original holds it
    assert load_config(original).references.anchors == (0, 1)


def test_a_damaged_or_foreign_checkpoint_is_refused_and_makes_no_run(tmp_path: Path) -> None:
    config = _config("othello", 6)
    folder = _two_rounds(tmp_path / "run", config)
    target = tmp_path / "checkpoint"
    checkpoint.write(folder, target)
    window = sorted((target / "window").iterdir())[0]
    data = bytearray(window.read_bytes())
    data[len(data) // 2] ^= 0xFF
    window.write_bytes(bytes(data))
    with pytest.raises(checkpoint.CheckpointError, match="damaged"):
        checkpoint.restore(target, tmp_path / "new")
    assert not (tmp_path / "new").exists()
    with pytest.raises(checkpoint.CheckpointError, match="no checkpoint"):
        checkpoint.restore(tmp_path / "run", tmp_path / "new")
    manifest = json.loads((target / "checkpoint.json").read_text())
    (target / "checkpoint.json").write_text(json.dumps({**manifest, "format": "other"}))
    with pytest.raises(checkpoint.CheckpointError, match="not an imago run checkpoint"):
        checkpoint.restore(target, tmp_path / "new")
    assert not (tmp_path / "new").exists()


def test_a_run_restored_with_more_input_features_plays_as_before_and_trains_on_them(
    tmp_path: Path,
) -> None:
    """legal4 -> libs8 (liberty planes and colour added): the examples are made with the new
    features, their first planes as before; the next generation reads them and plays as the
    newest did; training goes on from it."""
    import torch

    from imago.nn.features import feature_set
    from imago.nn.store import load_model

    config = _config("go", 7)
    original = _two_rounds(tmp_path / "run", config)
    checkpoint.write(original, tmp_path / "checkpoint")
    same = RunFolder(tmp_path / "same")
    checkpoint.restore(tmp_path / "checkpoint", same.root)
    grown = RunFolder(tmp_path / "grown")
    made = checkpoint.restore(tmp_path / "checkpoint", grown.root, features="libs8")
    assert (made.generation, made.best, made.grown_to) == (2, 2, "libs8") and grown.best() == 2
    assert json.loads((grown.root / "run.json").read_text())["config"]["features"] == "libs8"
    assert not grown.checkpoint_path.exists()  # the old optimiser state fits no more
    size, libs8 = config.spec.size, feature_set("libs8")
    for old_file, new_file in zip(same.example_files(0), grown.example_files(0), strict=True):
        old = unpack(read_shard(old_file), 4, size)
        new = unpack(read_shard(new_file), libs8.planes, size)
        assert np.array_equal(new.planes[:, :4], old.planes)
        assert new.planes[:, 4:7].any()  # groups with few liberties, in real games
        assert np.array_equal(new.policy, old.policy) and np.array_equal(new.value, old.value)
    before, after = load_model(grown.model_path(1)), load_model(grown.model_path(2))
    assert after.spec.features == "libs8" and after.spec.arch == before.spec.arch
    x = torch.from_numpy(new.planes.astype(np.float32))
    with torch.no_grad():
        (p1, v1), (p2, v2) = before.net(x[:, :4]), after.net(x)
    assert torch.allclose(p1, p2, atol=1e-5) and torch.allclose(v1, v2, atol=1e-5)
    assert train(grown, config) == 3
    assert load_model(grown.model_path(3)).spec.features == "libs8"


@pytest.mark.parametrize(
    ("game", "size", "features", "message"),
    [
        ("go", 7, "nope", "unknown feature set"),
        ("go", 7, "history11", "does not begin with"),
        ("othello", 6, "libs8", "for go, not othello"),
    ],
)
def test_a_restore_to_features_the_network_cannot_grow_into_makes_no_run(
    tmp_path: Path, game: str, size: int, features: str, message: str
) -> None:
    config = _config(game, size)
    checkpoint.write(_two_rounds(tmp_path / "run", config), tmp_path / "checkpoint")
    with pytest.raises(checkpoint.CheckpointError, match=message):
        checkpoint.restore(tmp_path / "checkpoint", tmp_path / "new", features=features)
    assert not (tmp_path / "new").exists()


def test_examples_that_replaying_does_not_give_back_are_not_checkpointed(
    tmp_path: Path,
) -> None:
    config = _config("go", 7)
    folder = _two_rounds(tmp_path / "run", config)
    target = tmp_path / "checkpoint"
    checkpoint.write(folder, target)
    before = (target / "checkpoint.json").read_bytes()
    path = folder.example_files(0)[0]
    arrays = read_shard(path)
    arrays.planes[0, 0] ^= 1  # a stone that the game's moves do not put there
    with np.load(path) as data:
        extras = {key: data[key] for key in data.files if key in ("infos", "sources")}
    write_shard(path, arrays, extras)
    with pytest.raises(checkpoint.CheckpointError, match="does not give its examples back"):
        checkpoint.write(folder, target)
    assert (target / "checkpoint.json").read_bytes() == before  # the old checkpoint stands
    assert {p.name for p in tmp_path.iterdir()} == {"run", "checkpoint"}  # no staging left


def test_the_loop_without_a_gate_promotes_measures_against_the_anchor_and_checkpoints(
    tmp_path: Path,
) -> None:
    config = _config(
        "othello", 6, **{"evaluation.games": 0, "references.anchors": [0], "references.games": 2}
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    assert loop(folder, config, rounds=2, checkpoint=tmp_path / "checkpoint") == 2
    assert folder.best() == 2
    assert [row["gated"] for row in folder.metrics("evaluate")] == [False, False]
    anchored = [row["scores"]["gen0"] for row in folder.metrics("references")]
    assert len(anchored) == 2 and all(s["games"] == 2 for s in anchored)
    assert all({"wins", "draws", "elo", "elo_low", "elo_high"} <= s.keys() for s in anchored)
    assert reference_elo(folder)[0][0] == 0.0  # generation 0 is the Elo curve's anchor
    used = compute_used(folder)
    assert used["cpu_hours"] > 0 and used["wall_hours"] > 0
    assert len(anchor_curve(folder)) == 2
    assert checkpoint.read_manifest(tmp_path / "checkpoint")["generation"] == 2


def test_a_negative_number_of_gating_games_is_refused() -> None:
    with pytest.raises(ValueError, match=r"evaluation\.games"):
        _config("othello", 6, **{"evaluation.games": -1})


@pytest.mark.parametrize(
    ("name", "value", "refusal"),
    [
        ("references.anchors", [-1], "list of generations"),
        ("references.anchors", [0, 1.5], "list of generations"),
        ("references.anchors", [True], "list of generations"),
        ("references.anchors", "0", "list of generations"),
        ("references.games", 0, r"references\.games must be >= 1"),
    ],
)
def test_reference_settings_that_name_no_generation_or_no_game_are_refused(
    name: str, value: object, refusal: str
) -> None:
    with pytest.raises(ValueError, match=refusal):
        _config("othello", 6, **{name: value})


def test_a_training_stopped_midway_keeps_its_network_in_the_checkpoint(tmp_path: Path) -> None:
    import torch

    class StopAfter:
        def __init__(self, calls: int) -> None:
            self.calls = calls

        def is_set(self) -> bool:
            self.calls -= 1
            return self.calls < 0

    config = _config("othello", 6, **{"train.checkpoint_every": 5})
    folder = _two_rounds(tmp_path / "run", config)
    self_play(folder, config, worker="third")
    finished = torch.load(folder.checkpoint_path, weights_only=True)
    checkpoint.write(folder, tmp_path / "between")  # after generation 1: no network in it
    assert "model" in finished and "model" not in torch.load(
        tmp_path / "between" / "trainer.pt", weights_only=True
    )
    assert train(folder, config, stop=StopAfter(12)) is None  # generation 2 half trained
    checkpoint.write(folder, tmp_path / "midway")
    saved = torch.load(tmp_path / "midway" / "trainer.pt", weights_only=True)
    assert (saved["tag"], saved["step"]) == (2, 12) and "model" in saved
    restored = RunFolder(tmp_path / "new")
    checkpoint.restore(tmp_path / "midway", restored.root)
    assert train(restored, config) == 2


def test_a_checkpoint_never_replaces_the_run_or_a_folder_that_is_not_a_checkpoint(
    tmp_path: Path,
) -> None:
    config = _config("othello", 6)
    folder = _two_rounds(tmp_path / "run", config)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    for target in (tmp_path / "run", tmp_path / "run" / "ckpt", tmp_path, other):
        with pytest.raises(checkpoint.CheckpointError):
            checkpoint.write(folder, target)
    assert folder.latest() == 1 and (other / "keep.txt").read_text() == "mine"
    checkpoint.write(folder, tmp_path / "ckpt")
    checkpoint.write(folder, tmp_path / "ckpt")  # an earlier checkpoint is replaced


def test_growing_a_run_into_another_games_features_is_refused_and_adds_no_generation(
    tmp_path: Path,
) -> None:
    from imago.rl.stages import RunError, grow_features

    folder = _two_rounds(tmp_path / "run", _config("othello", 6))
    newest = folder.latest()
    with pytest.raises(RunError, match="for go, not othello"):
        grow_features(folder, "libs8")
    assert folder.latest() == newest
