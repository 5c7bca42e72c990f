"""Value-only examples (``SelfPlayConfig.value_only_empties``): the positions of fast searches
near the end of a game teach the value head (for Othello, the endgame solver's exact result)
and take no part in the policy's loss or figures.

    a 6x6 game, value_only_empties=8:   move  1 ... 24 | 25 26 27 28 29 30 31 32
                                        empties 32 ... 9 |  8  7  6  5  4  3  2  1
    full search (move target)               F     F    |  F           F
    fast search                            . . . . .   |     V  V  V     V  V  V   (value-only)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from imago.agents.mcts import UniformEvaluator
from imago.core.move import Move
from imago.games.othello import OthelloState
from imago.nn.dataset import ShardArrays
from imago.rl.selfplay import FinishedGame, GameSpec, SelfPlay, SelfPlayConfig

SPEC = GameSpec("othello", 6)


def _empties_before_each_move(record: FinishedGame) -> list[int]:
    """The empty squares of the position before each of the game's moves, by the rules."""
    state, empties = OthelloState(6), []
    for action in record.actions:
        empties.append(int(np.count_nonzero(np.asarray(state.board()) == 0)))
        state = state.play(Move.from_action(action, 6))
    return empties


def _games(value_only_empties: int, count: int = 6) -> tuple[list[FinishedGame], int]:
    config = SelfPlayConfig(
        parallel=4,
        simulations=16,
        fast_simulations=4,
        full_fraction=0.25,
        considered=4,
        value_only_empties=value_only_empties,
    )
    games: list[FinishedGame] = []
    stats = SelfPlay(SPEC, UniformEvaluator(), config, seed=5).play(count, games.append)
    return games, stats.value_only


def test_every_late_fast_search_is_a_value_only_example_and_no_other_is() -> None:
    games, counted = _games(value_only_empties=8)
    value_only = 0
    for record in games:
        empties = _empties_before_each_move(record)
        examples = list(zip(record.example_moves, record.targets, strict=True))
        with_target = {m for m, t in examples if t.any()}
        without = {m for m, t in examples if not t.any()}
        assert len(with_target) == record.full_searches
        late = {m for m, left in enumerate(empties) if left <= 8}
        assert without == late - with_target  # every late move is one or the other
        for move, chosen in zip(record.example_moves, record.example_actions, strict=True):
            assert chosen == record.actions[move]
        value_only += len(without)
    assert value_only > 0 and counted == value_only


def test_with_value_only_empties_at_zero_every_example_has_a_move_target() -> None:
    games, counted = _games(value_only_empties=0)
    assert counted == 0
    assert all(t.any() for record in games for t in record.targets)


def test_value_only_examples_without_fast_searches_are_refused() -> None:
    with pytest.raises(ValueError, match="set fast_simulations"):
        SelfPlayConfig(value_only_empties=20)  # every search full: nothing would be recorded


def test_a_game_without_its_value_only_examples_keeps_the_others_in_order() -> None:
    games, _ = _games(value_only_empties=8, count=2)
    record = games[0]
    kept = record.without_value_only()
    full = [i for i, t in enumerate(record.targets) if t.any()]
    assert kept.example_moves == [record.example_moves[i] for i in full]
    assert kept.values == [record.values[i] for i in full]
    assert all(np.array_equal(a, record.boards[i]) for a, i in zip(kept.boards, full, strict=True))
    assert kept.actions == record.actions and kept.winner == record.winner


def test_value_only_rows_take_no_part_in_the_policy_loss() -> None:
    torch = pytest.importorskip("torch")
    from imago.nn.supervised import distribution_loss

    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(6, 37, generator=generator, requires_grad=True)
    distribution = torch.softmax(torch.randn(6, 37, generator=generator), dim=1)
    distribution[[1, 4]] = 0  # two value-only rows
    loss = distribution_loss(distribution, logits)
    rows = [0, 2, 3, 5]
    alone = distribution_loss(distribution[rows], logits.detach()[rows])
    assert float(loss.detach()) == pytest.approx(float(alone), rel=1e-6)
    loss.backward()
    assert logits.grad is not None
    assert not logits.grad[[1, 4]].any() and logits.grad[rows].abs().sum() > 0


@pytest.mark.slow
def test_a_run_trains_on_exact_value_only_examples_and_holds_none_out(tmp_path: Path) -> None:
    """Two rounds with exact targets and value-only examples at 8 empties: the training files
    have value-only rows, all with the solver's result; held-out games have none; the policy
    figures of the holdout do not count them; a checkpoint gives the same examples back."""
    pytest.importorskip("torch")
    from small_runs import small_config

    from imago.nn.rl_train import evaluate_examples, load_window
    from imago.rl import checkpoint
    from imago.rl.folder import RunFolder, iter_round_files, read_infos
    from imago.rl.stages import bootstrap, init, self_play, train

    config = small_config().with_changes(
        {
            "exact_targets": 8,
            "selfplay.fast_simulations": 4,
            "selfplay.full_fraction": 0.25,
            "selfplay.value_only_empties": 8,
            "holdout_fraction": 0.5,
        }
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, worker="w0")
    train_files = list(iter_round_files(folder, [0], holdout=False))
    holdout_files = list(iter_round_files(folder, [0], holdout=True))
    assert train_files and holdout_files
    window, held = load_window(train_files), load_window(holdout_files)
    assert window.target is not None and held.target is not None
    value_only = window.target.astype(np.float32).sum(axis=1) == 0
    assert value_only.any()
    assert (held.target.astype(np.float32).sum(axis=1) > 0).all()
    infos = [info for path in train_files for info in read_infos(path)]
    assert sum(info["exact_examples"] for info in infos) >= int(value_only.sum())
    assert set(np.unique(window.searched[value_only])) <= {-1.0, 0.0, 1.0}  # type: ignore[index]

    full = window.take(np.flatnonzero(~value_only))
    with_rows = evaluate_examples(folder.model_path(0), window)
    without = evaluate_examples(folder.model_path(0), full)
    assert with_rows["moves"] == without["moves"] == len(full) < with_rows["positions"]
    for name in ("policy_loss", "top1"):
        assert with_rows[name] == pytest.approx(without[name], rel=1e-5)

    _a_step_counts_only_the_rows_with_moves(folder.model_path(0), window, value_only)

    assert train(folder, config) == 1
    (trained,) = folder.metrics("train")
    assert 0 < trained["move_top1"] <= 1
    self_play(folder, config, worker="w1")
    checkpoint.write(folder, tmp_path / "checkpoint")
    restored = RunFolder(tmp_path / "restored")
    checkpoint.restore(tmp_path / "checkpoint", restored.root)
    again = load_window(list(iter_round_files(restored, [1, 0], holdout=False)))
    original = load_window(list(iter_round_files(folder, [1, 0], holdout=False)))
    assert again.target is not None and original.target is not None
    assert np.array_equal(again.target, original.target)
    assert np.array_equal(again.value, original.value)


def _a_step_counts_only_the_rows_with_moves(
    model: Path, window: ShardArrays, value_only: np.ndarray
) -> None:
    """One training step on rows with value-only examples measures the same policy loss and
    move agreement as a step on the rows with moves alone."""
    import torch

    from imago.nn.dataset import unpack
    from imago.nn.rl_train import StepsConfig
    from imago.nn.store import load_model
    from imago.nn.supervised import _optimizer, _train_step

    rows = np.arange(min(len(window), 256))
    chosen = window.take(rows)
    moves_only = window.take(rows[~value_only[rows]])
    train_config = StepsConfig().train_config()
    measured = []
    for arrays in (chosen, moves_only):
        net = load_model(model).net
        net.eval()  # batch norm's running statistics: each row's logits independent of the others
        batch = unpack(arrays, 4, 6)
        step = _train_step(
            net, _optimizer(net, train_config), None, batch, 0, 6, torch.device("cpu"), None,
            train_config,
        )  # fmt: skip
        measured.append(step)
    with_rows, alone = measured
    assert with_rows.moves == alone.moves == len(moves_only) < len(chosen)
    assert with_rows.correct == alone.correct
    assert with_rows.policy_loss == pytest.approx(alone.policy_loss, rel=1e-5)
