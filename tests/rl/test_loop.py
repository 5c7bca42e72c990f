"""The loop and its run folder: end to end, interrupted, resumed, and refusing bad folders."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from imago.nn.dataset import read_shard
from imago.rl.config import LoopConfig, smoke_config
from imago.rl.folder import RunFolder, read_infos
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play, train

IMAGO = [sys.executable, "-m", "imago"]


def _imago(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*IMAGO, *args], capture_output=True, text=True, timeout=timeout)
    done.stderr = " ".join(done.stderr.split())  # as one line, however the console wrapped it
    return done


def _all_game_ids(folder: RunFolder, round_: int) -> list[str]:
    ids = []
    for holdout in (False, True):
        for path in folder.example_files(round_, holdout):
            ids += [f"{i['worker']}:{i['index']}" for i in read_infos(path)]
    return ids


@pytest.mark.slow
def test_the_test_loop_runs_end_to_end(tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = _imago("rl", "loop", str(run), "--test", "--game", "othello", "--size", "6")
    assert done.returncode == 0, done.stderr
    folder = RunFolder(run)
    assert folder.generations() == [0, 1, 2]
    assert folder.best() in (0, 1, 2)
    events = {row["event"] for row in folder.metrics()}
    assert {"bootstrap", "selfplay", "train", "validate", "evaluate", "references"} <= events
    assert (run / "models" / "000002.onnx").is_file()
    assert list((run / "games" / "000000").glob("*.sgf"))
    assert (run / "plots" / "training.png").is_file()
    status = _imago("rl", "status", str(run))
    assert status.returncode == 0 and "best generation" in status.stdout
    # the SGF of the self-play games reads back through the records layer
    from imago.records.sgf import read_file

    sgf = next((run / "games" / "000000").glob("*.sgf"))
    games = read_file(sgf)
    assert games and all(g.game_name == "othello" for g in games)
    from imago.records.transcript import read_transcript_file

    transcripts = read_transcript_file(sgf.with_suffix(".txt"), size=6)
    assert [t.mainline_moves() for t in transcripts] == [
        [m for m in g.mainline_moves() if m.is_play] for g in games
    ]


def _config(**changes: object) -> LoopConfig:
    config = smoke_config(GameSpec("othello", 6))
    return config.with_changes(dict(changes)) if changes else config


def test_selfplay_killed_with_sigkill_loses_no_finished_game(
    tmp_path: Path, kill_when: Any
) -> None:
    run = tmp_path / "run"
    folder = RunFolder(run)
    init(folder, _config(**{"selfplay.parallel": 4, "holdout_fraction": 0.2}))
    bootstrap(folder, _config())
    command = [*IMAGO, "rl", "selfplay", str(run), "--games", "100000", "--worker", "killed"]
    kill_when(command, lambda: folder.games_in_round(0) >= 12, timeout=120)
    before = folder.games_in_round(0)
    assert before >= 12
    ids = _all_game_ids(folder, 0)
    assert len(ids) == len(set(ids)) == before  # each finished game once
    # a new run of the stage goes on; the files left unmerged stay counted, once
    stats = self_play(folder, _config(**{"selfplay.parallel": 4}), games=5, worker="again")
    assert stats.games >= 5
    ids = _all_game_ids(folder, 0)
    assert len(ids) == len(set(ids)) == before + stats.games


def test_training_interrupted_resumes_to_the_same_network(tmp_path: Path) -> None:
    import torch

    from imago.nn.store import load_model

    class StopAfter:
        def __init__(self) -> None:
            self.steps = 0

        def is_set(self) -> bool:
            self.steps += 1
            return self.steps > 12

    results = []
    for interrupted in (False, True):
        folder = RunFolder(tmp_path / f"run{interrupted}")
        config = _config(**{"train.steps": 30, "train.checkpoint_every": 5})
        init(folder, config)
        bootstrap(folder, config)
        self_play(folder, config, worker="w")
        if interrupted:
            assert train(folder, config, stop=StopAfter()) is None
            assert folder.latest() == 0 and folder.checkpoint_path.is_file()
        assert train(folder, config) == 1
        results.append(load_model(folder.model_path(1)).net.state_dict())
    plain, resumed = results
    for key in plain:
        assert torch.equal(plain[key], resumed[key]), key


def test_bad_folders_and_models_get_one_clear_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "run.json").write_text("{not json")
    done = _imago("rl", "loop", str(broken))
    assert done.returncode == 1
    assert "unreadable" in done.stderr and "Traceback" not in done.stderr
    missing = _imago("rl", "status", str(tmp_path / "nothing"))
    assert missing.returncode == 1 and "imago rl init" in missing.stderr
    # an Othello network cannot start a Go run
    from imago.nn.models import parse_arch
    from imago.nn.store import ModelSpec, save_model

    model = tmp_path / "othello.pt"
    spec = ModelSpec("othello", 8, "legal4", parse_arch("b1c8"))
    save_model(model, spec.build(), spec)
    run = tmp_path / "go"
    done = _imago("rl", "init", str(run), "--game", "go", "--bootstrap", str(model))
    assert done.returncode == 1 and "othello, not go" in done.stderr  # at init, not hours later
    assert "Traceback" not in done.stderr and not (run / "run.json").exists()
    policy_only = tmp_path / "policy.pt"
    spec = ModelSpec("go", 9, "legal4", parse_arch("l2c8"))
    save_model(policy_only, spec.build(), spec)
    run2 = tmp_path / "go2"
    done = _imago("rl", "init", str(run2), "--game", "go", "--bootstrap", str(policy_only))
    assert done.returncode == 1 and "value head" in done.stderr
    assert _imago("rl", "init", str(run2), "--game", "go").returncode == 0
    taken = _imago("rl", "init", str(run2), "--game", "go")
    assert taken.returncode == 1 and "already holds a run" in taken.stderr


def test_settings_round_trip_and_refuse_unknown_names() -> None:
    config = _config()
    assert LoopConfig.from_json(json.loads(json.dumps(config.to_json()))) == config
    changed = config.with_changes({"selfplay.simulations": 64, "records": ["a.wtb"]})
    assert changed.selfplay.simulations == 64 and changed.records == ("a.wtb",)
    with pytest.raises(ValueError, match="unknown setting"):
        config.with_changes({"selfplay.nothing": 1})


def test_training_keeps_pace_with_the_new_data() -> None:
    from imago.nn.rl_train import StepsConfig

    fixed = StepsConfig(steps=300)
    assert fixed.steps_for(10) == fixed.steps_for(10**6) == 300
    paced = StepsConfig(steps=600, samples_per_position=4, batch_size=256)
    assert paced.steps_for(3200) == 50  # each new position shown about four times
    assert paced.steps_for(10**6) == 600  # at most the cap
    assert paced.steps_for(0) == 1


def test_examples_keep_each_games_margin_and_the_trainer_blends_it_in(tmp_path: Path) -> None:
    import numpy as np

    from imago.nn.dataset import ShardArrays, unpack
    from imago.nn.rl_train import load_window, value_targets

    folder = RunFolder(tmp_path / "run")
    config = _config(**{"selfplay.parallel": 4, "selfplay.max_moves": 0})
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=4, worker="w")
    window = load_window(folder.example_files(0))
    assert window.margin is not None and len(window.margin) == len(window)
    margin, result = window.margin.astype(np.float32), window.value.astype(np.float32)
    assert (np.sign(margin) == result).all() and (np.abs(margin) <= 1).all()
    batch = unpack(window, 4, 6)  # legal4 planes on 6x6
    assert value_targets(batch, 0.0) is batch  # AlphaZero's target: the result alone
    blended = value_targets(batch, 0.25).value
    assert blended == pytest.approx(0.75 * result + 0.25 * margin)
    # a window reaching back before margins were kept has none
    old = ShardArrays(window.planes, window.legal, window.policy, window.value, window.game,
                      window.target)  # fmt: skip
    assert ShardArrays.concat([old, window]).margin is None
    assert ShardArrays.concat([window, window]).margin is not None


def test_examples_keep_the_searchs_values_and_the_trainer_blends_them_in(
    tmp_path: Path,
) -> None:
    import numpy as np

    from imago.nn.dataset import ShardArrays, unpack
    from imago.nn.rl_train import load_window, value_targets

    folder = RunFolder(tmp_path / "run")
    config = _config(**{"selfplay.parallel": 4, "selfplay.max_moves": 0})
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=4, worker="w")
    files = folder.example_files(0)
    window = load_window(files)
    assert window.searched is not None and len(window.searched) == len(window)
    # each example's searched value is its search's recorded win rate, mapped onto [-1, 1]
    rates = [v for path in files for info in read_infos(path) for v in info["values"]]
    searched = window.searched.astype(np.float32)
    assert searched == pytest.approx(2 * np.array(rates) - 1, abs=2e-3)
    assert len(set(np.round(searched, 2))) > 3  # one per position, not one per game
    batch = unpack(window, 4, 6)
    result, margin = batch.value, batch.margin
    assert value_targets(batch, 0.0, 0.0) is batch
    assert value_targets(batch, 0.0, 0.5).value == pytest.approx(0.5 * result + 0.5 * searched)
    both = value_targets(batch, 0.5, 0.25).value
    assert both == pytest.approx(0.75 * (0.5 * result + 0.5 * margin) + 0.25 * searched)
    # a window reaching back before the search's values were kept has none
    old = ShardArrays(window.planes, window.legal, window.policy, window.value, window.game,
                      window.target, window.margin)  # fmt: skip
    assert ShardArrays.concat([old, window]).searched is None
    assert ShardArrays.concat([window, window]).searched is not None


def test_networks_say_how_their_values_count_finished_games(tmp_path: Path) -> None:
    from imago.nn.evaluator import NetworkEvaluator
    from imago.nn.rl_train import initial_model

    folder = RunFolder(tmp_path / "run")
    config = _config(**{"train.score_weight": 0.5, "train.steps": 4, "selfplay.parallel": 4})
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=4, worker="w")
    assert train(folder, config) == 1

    def weight(path: Path) -> float:
        return NetworkEvaluator.load(path, backend="torch").score_weight

    assert weight(folder.model_path(0)) == weight(folder.model_path(1)) == 0.5
    # a network started from another keeps the meaning its values were trained with
    kept = tmp_path / "kept.pt"
    initial_model(kept, game="othello", size=6, arch="b1c8", features="legal4", seed=0,
                  start=folder.model_path(1), score_weight=0.0)  # fmt: skip
    assert weight(kept) == 0.5
    plain = tmp_path / "plain.pt"
    initial_model(plain, game="othello", size=6, arch="b1c8", features="legal4", seed=0)
    assert weight(plain) == 0.0


def test_value_weights_without_their_targets_or_out_of_range_are_refused(tmp_path: Path) -> None:
    from imago.nn.dataset import ShardArrays
    from imago.nn.rl_train import StepsConfig, load_window, train_steps

    with pytest.raises(ValueError, match="score_weight is a share"):
        _config(**{"train.score_weight": 1.5})
    folder = RunFolder(tmp_path / "run")
    config = _config(**{"selfplay.parallel": 4})
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=4, worker="w")
    window = load_window(folder.example_files(0))
    old = ShardArrays(window.planes, window.legal, window.policy, window.value, window.game,
                      window.target)  # fmt: skip
    out = tmp_path / "next.pt"
    with pytest.raises(ValueError, match="final margins"):
        train_steps(folder.model_path(0), old, out, tmp_path / "ckpt.pt",
                    StepsConfig(steps=2, batch_size=8, score_weight=0.5), tag=1)  # fmt: skip
    with pytest.raises(ValueError, match="search's values"):
        train_steps(folder.model_path(0), old, out, tmp_path / "ckpt.pt",
                    StepsConfig(steps=2, batch_size=8, search_weight=0.5), tag=1)  # fmt: skip
    assert not out.exists()  # refused before any step
    with pytest.raises(ValueError, match="search_weight is a share"):
        _config(**{"train.search_weight": -0.1})


def test_a_window_is_listed_again_when_a_worker_merges_under_it(tmp_path: Path) -> None:
    # Found by the test below: the trainer listed a following worker's game file, the worker
    # merged it into a chunk, and reading the listed file failed. Reading lists again.
    from imago.rl.stages import load_listed

    folder = RunFolder(tmp_path / "run")
    init(folder, _config(**{"selfplay.parallel": 4}))
    bootstrap(folder, _config())
    self_play(folder, _config(**{"selfplay.parallel": 4}), games=4, worker="w")
    real = folder.example_files(0)
    merged_away = [real[0].with_name("g-follower-0000021.npz")]  # listed, then gone
    listings = [merged_away, real]
    files, window = load_listed(lambda: listings.pop(0))
    assert files == real and listings == []
    assert len(window) == sum(len(read_shard(path)) for path in real)


@pytest.mark.slow
def test_a_trainer_and_a_following_worker_share_a_folder(tmp_path: Path) -> None:
    from imago.rl.stages import loop

    run = tmp_path / "run"
    folder = RunFolder(run)
    config = _config()
    init(folder, config)
    bootstrap(folder, config)
    said = (tmp_path / "worker.out").open("w")
    worker = subprocess.Popen(
        [*IMAGO, "rl", "selfplay", str(run), "--follow", "--worker", "follower"],
        stdout=said,
        stderr=subprocess.PIPE,
    )
    try:
        latest = loop(folder, config, rounds=1, selfplay=False)  # trains on the worker's games
        assert latest == 1
        deadline = time.time() + 120
        while time.time() < deadline and folder.games_in_round(1) == 0:
            time.sleep(0.5)
        assert folder.games_in_round(1) > 0  # the worker moved on to the new round by itself
    finally:
        worker.send_signal(signal.SIGINT)  # a worker stops at its next safe point
        _, err = worker.communicate(timeout=120)
    said.close()
    assert worker.returncode == 0, err
    assert "runs until stopped" in " ".join((tmp_path / "worker.out").read_text().split())
    rows = [r for r in folder.metrics("selfplay") if r["worker"] == "follower"]
    assert {r["round"] for r in rows} >= {0, 1}


@pytest.mark.slow
def test_selfplay_on_the_command_line_with_a_shared_network(tmp_path: Path) -> None:
    run = tmp_path / "run"
    folder = RunFolder(run)
    init(folder, _config(**{"selfplay.parallel": 4}))
    bootstrap(folder, _config())
    done = _imago(
        "rl", "selfplay", str(run), "--games", "4", "--workers", "2", "--inference-device", "cpu"
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "one network per node on cpu" in said
    assert "no GPU here: the shared network runs on one CPU" in said  # --inference-device cpu
    assert folder.games_in_round(0) >= 4
    bad = _imago("rl", "selfplay", str(run), "--games", "1", "--inference-device", "tpu")
    assert bad.returncode != 0 and "unknown device 'tpu'" in bad.stderr
    assert folder.games_in_round(0) >= 4  # nothing lost to the refused run
