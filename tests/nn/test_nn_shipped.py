"""The networks shipped in ``imago/nn/data``: the agents use them when no model is given."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from imago.agents.base import Limit
from imago.agents.registry import make_agent
from imago.core.color import Color
from imago.games import make
from imago.nn.models import ModelError
from imago.nn.shipped import SHIPPED_MODELS, shipped_model
from imago.records import wthor


@pytest.mark.parametrize(("game", "size"), sorted(SHIPPED_MODELS))
def test_the_policy_agent_plays_a_whole_game_with_the_shipped_network(game: str, size: int) -> None:
    policy = make_agent("policy", game, {"top": "3"}, seed=1)
    random = make_agent("random", game, seed=2)
    state = make(game, size=size) if game == "go" else make(game)
    for _ in range(3 * size * size):
        if state.is_over():
            break
        player = policy if state.to_play is Color.BLACK else random
        result = player.select_move(state, Limit())
        assert state.is_legal(result.move)
        if player is policy and result.candidates:
            priors = [c.prior or 0.0 for c in result.candidates]
            assert priors == sorted(priors, reverse=True)
        state = state.play(result.move)
    assert state.is_over()


def test_no_shipped_network_for_other_boards_is_a_clear_error() -> None:
    with pytest.raises(ModelError, match=r"no network is shipped for go 7x7.*model=PATH"):
        shipped_model("go", 7)
    agent = make_agent("policy", "go", {}, seed=1)
    with pytest.raises(ModelError, match="go 7x7"):
        agent.select_move(make("go", size=7), Limit())


def test_the_shipped_othello_network_predicts_expert_moves(data_dir: Path) -> None:
    """Held-out games (2024 was not trained on): the network's top move is the expert's in
    about half the positions (0.52 over all of 2023-2025); far above the ~1/8 of chance."""
    path = data_dir / "wthor" / "WTH_2024.wtb"
    if not path.is_file():
        pytest.skip("WTHOR data missing")
    agent = make_agent("policy", "othello", {}, seed=1)
    hits = total = 0
    for record in wthor.read_games(path)[:20]:
        for node in record.to_game().mainline():
            if node.parent is None or node.move is None or node.move.is_pass:
                continue
            before = node.parent.state
            if len(before.legal_moves()) < 2:
                continue
            hits += agent.select_move(before, Limit()).move == node.move
            total += 1
    assert total > 800
    assert hits / total > 0.40


def test_az_plays_8x8_othello_with_the_network_self_play_improved() -> None:
    """The ``az`` default on 8x8 Othello is the self-play network (``othello8_b5c48_rl208.pt``,
    63.2 % against generation 22, which shipped before it and scored 61.8 % against the
    supervised network it started from, over 400 games each; its README), while ``policy``
    keeps the supervised one."""
    from imago.nn.shipped import az_model

    assert az_model("othello", 8).name == "othello8_b5c48_rl208.pt"
    assert shipped_model("othello", 8).name == "othello_policy_b5c48.pt"
    agent = make_agent("az", "othello", {"simulations": "16"}, seed=1)
    state = make("othello")
    assert state.is_legal(agent.select_move(state, Limit(playouts=16)).move)


def test_az_plays_9x9_go_with_the_network_self_play_improved() -> None:
    """The ``az`` default on 9x9 Go is the self-play network (``go9_b5c48_rl176.pt``, on the
    ``libs8`` inputs: 58.5 % against generation 152 in the default engine, which scored 72.8 %
    against generation 100, which scored 59.2 % against generation 56, and so on back to the
    supervised network, over 200 games each counted by GNU Go; its README), while ``policy``
    and ``nnmcts`` keep the supervised one."""
    from imago.nn.shipped import az_model

    assert az_model("go", 9).name == "go9_b5c48_rl176.pt"
    assert shipped_model("go", 9).name == "go9_policy_b5c48.pt"
    agent = make_agent("az", "go", {"simulations": "16"}, seed=1, size=9)
    state = make("go", size=9)
    assert state.is_legal(agent.select_move(state, Limit(playouts=16)).move)
