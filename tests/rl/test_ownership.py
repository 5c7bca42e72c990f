"""The ownership target (KataGo's auxiliary target): who owns each point at a game's end, as
self-play records it, as the trainer teaches it, and as a bootstrap network grows a head for it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from imago.games.go import GoPosition
from imago.games.go.scoring import area_counts, area_owners
from imago.nn.dataset import read_shard
from imago.rl.config import smoke_config
from imago.rl.examples import ownership_for
from imago.rl.folder import RunFolder, read_infos
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play, train

# (position, owners: X black, O white, . neither)
AREA_OWNERS = [
    (
        """
        . X . O .
        . X . O .
        . X . O .
        . X . O .
        . X . O .
        """,
        """
        X X . O O
        X X . O O
        X X . O O
        X X . O O
        X X . O O
        """,
    ),
    (
        """
        . . . . .
        . . . . .
        . . X . .
        . . . . .
        . . . . .
        """,
        """
        X X X X X
        X X X X X
        X X X X X
        X X X X X
        X X X X X
        """,
    ),
    (
        """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
    ),
    (
        """
        X O . O .
        X O O O O
        . X X X X
        X . X . X
        . X . X .
        """,
        """
        X O O O O
        X O O O O
        X X X X X
        X X X X X
        X X X X X
        """,
    ),
]


@pytest.mark.parametrize(("diagram", "owners"), AREA_OWNERS)
def test_area_owners_are_stones_and_the_regions_one_colour_borders(
    diagram: str, owners: str
) -> None:
    position = GoPosition.from_diagram(diagram)
    expected = np.array(
        [[".XO".index(c) for c in line.split()] for line in owners.strip().splitlines()],
        dtype=np.int8,
    )
    found = area_owners(position)
    assert np.array_equal(found, expected)
    assert ((found == 1).sum(), (found == 2).sum()) == area_counts(position)


def test_ownership_is_seen_by_the_player_to_move() -> None:
    owners = np.array([0, 1, 2, 1], dtype=np.int8)
    assert ownership_for(owners, np.array([1, 2])).tolist() == [[0, 1, -1, 1], [0, -1, 1, -1]]


def _examples_and_games(folder: RunFolder) -> list[tuple[dict[str, object], np.ndarray]]:
    """``(game record, its examples' ownership rows)`` for every game of round 0."""
    found = []
    for holdout in (False, True):
        for path in folder.example_files(0, holdout):
            arrays = read_shard(path)
            assert arrays.ownership is not None
            for index, info in enumerate(read_infos(path)):
                found.append((info, arrays.ownership[arrays.game == index]))
    return found


@pytest.mark.parametrize(("game", "size"), [("go", 7), ("othello", 6)])
def test_self_play_examples_carry_the_final_ownership_that_gave_the_score(
    tmp_path: Path, game: str, size: int
) -> None:
    config = smoke_config(GameSpec(game, size))
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, worker="w")
    games = _examples_and_games(folder)
    assert games and any(len(rows) for _, rows in games)
    for info, rows in games:
        if not len(rows):
            continue
        # every example of a game sees one final board, from its own side
        first = rows[0]
        assert all(np.array_equal(row, first) or np.array_equal(row, -first) for row in rows)
        # the owners count to the game's score: Go by area with komi, every stone alive;
        # Othello by discs, the empty squares going to the winner
        lead = int((first == 1).sum()) - int((first == -1).sum())  # for example 0's player
        score = float(info["score"])  # Black's lead
        if game == "go":
            assert score + config.spec.komi in (lead, -lead)
        else:
            assert abs(score) >= abs(lead)


def test_a_run_with_ownership_grows_a_head_on_its_bootstrap_network_and_trains_it(
    tmp_path: Path,
) -> None:
    import torch

    from imago.nn.models import ResNetConfig
    from imago.nn.rl_train import initial_model
    from imago.nn.store import load_model

    plain = tmp_path / "plain.pt"
    initial_model(plain, game="go", size=7, arch="b1c8", features="legal4", seed=3)
    config = smoke_config(GameSpec("go", 7)).with_changes(
        {"bootstrap": str(plain), "train.ownership_weight": 1.5}
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    grown, start = load_model(folder.model_path(0)), load_model(plain)
    assert grown.net.has_ownership and not start.net.has_ownership
    assert isinstance(grown.spec.arch, ResNetConfig) and grown.spec.arch.ownership
    kept = start.net.state_dict()
    for name, tensor in grown.net.state_dict().items():
        if not name.startswith("ownership_out."):
            assert torch.equal(tensor, kept[name]), name
    self_play(folder, config, worker="w")
    assert train(folder, config) == 1
    row = folder.metrics("train")[-1]
    assert row["ownership_loss"] > 0
    after = load_model(folder.model_path(1)).net.state_dict()
    head = "ownership_out.weight"
    assert not torch.equal(after[head], grown.net.state_dict()[head])  # it learnt


def test_ownership_without_a_head_or_without_targets_is_refused(tmp_path: Path) -> None:
    from imago.nn.models import ModelError
    from imago.nn.rl_train import initial_model

    with pytest.raises(ModelError, match="ownership head"):
        initial_model(
            tmp_path / "dense.pt",
            game="go",
            size=7,
            arch="dense",
            features="legal4",
            seed=0,
            ownership=True,
        )
    config = smoke_config(GameSpec("go", 7))
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)  # no ownership head: the settings did not ask for one
    self_play(folder, config, worker="w")
    with pytest.raises(ValueError, match="no ownership head"):
        train(folder, config.with_changes({"train.ownership_weight": 1.0}))
