"""The batched (network) search: many roots, virtual loss, noise once per search, Gumbel."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pytest

from imago.agents.mcts import (
    MCTS,
    PUCT,
    Evaluation,
    Gumbel,
    LeafBatch,
    MCTSConfig,
    MixedEvaluator,
    UniformEvaluator,
    halving_schedule,
    search_game,
)
from imago.agents.mcts import _tree as kt
from imago.core import Color
from imago.core.move import Move
from imago.games.go import GoPosition
from imago.games.go.batch import GoBatch
from imago.games.othello.batch import OthelloBatch


class _Table:
    """A fake network: fixed priors and values per action of the move that led to a leaf
    (read from the boards: what changed against the board before)."""

    needs_states = False

    def __init__(self, history: int = 2, favourite: int = -1, bonus: float = 0.0) -> None:
        self.history = history
        self.favourite = favourite
        self.bonus = bonus
        self.calls = 0
        self.sizes: list[int] = []

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        self.calls += 1
        self.sizes.append(count)
        priors = leaves.legal[:count].astype(np.float64)
        priors /= np.maximum(priors.sum(axis=1, keepdims=True), 1)
        values = np.full(count, 0.5)
        if self.favourite >= 0:
            # the player who just played on the favourite point is winning
            moved = (
                leaves.boards[:count, 0, self.favourite] != leaves.boards[:count, 1, self.favourite]
            )
            values = np.where(moved, 0.5 - self.bonus, 0.5)
        return Evaluation(values, priors)


def test_sequential_halving_schedule_as_mctx_builds_it() -> None:
    assert list(halving_schedule(4, 8)) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert list(halving_schedule(1, 5)) == [0, 1, 2, 3, 4]
    schedule = halving_schedule(16, 200)
    assert len(schedule) == 200 and list(schedule[:16]) == [0] * 16


@pytest.mark.parametrize("per_root", [1, 4, 16])
def test_many_roots_each_get_their_simulations(per_root: int) -> None:
    batch = OthelloBatch(6, 6)
    config = MCTSConfig()
    game = search_game(batch, config, seed=1)
    evaluator = UniformEvaluator()
    search = MCTS(config, PUCT(), evaluator, np.random.default_rng(1), per_root=per_root)
    tree = search.new_tree(game)
    search.begin(tree, game, 50)
    assert search.run(game, tree, 50) == 6 * 50
    for g in range(6):
        root = int(tree.roots[g])
        assert tree.ef[tree.edges(root), kt.E_N].sum() == 50
        assert tree.value(root) == 0.5
    assert max(evaluator.positions // max(evaluator.calls, 1), 1) > 1  # batched calls
    assert not (tree.ni[: tree.nodes_used, kt.N_FLAGS] & kt.PENDING).any()


def test_identical_roots_grow_identical_trees() -> None:
    batch = GoBatch(3, 5)
    config = MCTSConfig()
    game = search_game(batch, config, seed=1, ended="area")
    search = MCTS(config, PUCT(), _Table(), np.random.default_rng(1))
    tree = search.new_tree(game)
    search.begin(tree, game, 40)
    search.run(game, tree, 40)
    visits = [tree.ef[tree.edges(int(r)), kt.E_N] for r in tree.roots]
    assert all((v == visits[0]).all() for v in visits)


def test_the_network_value_steers_puct_to_the_winning_move() -> None:
    # a fake network that says whoever takes the centre wins: the search must find it
    batch = GoBatch(1, 5)
    config = MCTSConfig(c=1.0)
    game = search_game(batch, config, seed=1, ended="area")
    search = MCTS(config, PUCT(), _Table(favourite=12, bonus=0.4), np.random.default_rng(1))
    tree = search.new_tree(game)
    search.begin(tree, game, 200)
    search.run(game, tree, 200)
    root = tree.root
    visits = tree.ef[tree.edges(root), kt.E_N]
    assert tree.actions(root)[int(np.argmax(visits))] == 12


def test_dirichlet_noise_is_added_once_and_leaves_the_priors_alone() -> None:
    batch = OthelloBatch(1, 8)
    config = MCTSConfig(dirichlet_alpha=0.3)
    game = search_game(batch, config, seed=1)
    search = MCTS(config, PUCT(), UniformEvaluator(), np.random.default_rng(3))
    tree = search.new_tree(game)
    search.begin(tree, game, 100)
    search.run(game, tree, 100)
    priors = tree.ef[tree.edges(tree.root), kt.E_PRIOR]
    assert priors == pytest.approx(np.full(4, 0.25))  # the network's, not mixed in place
    first = search._noise[0, :4].copy()
    search.run(game, tree, 100)  # the same search goes on: the same noise
    assert (search._noise[0, :4] == first).all()
    search.begin(tree, game, 100)  # a new search: new noise
    assert not (search._noise[0, :4] == first).all()


def test_virtual_loss_spreads_a_batch_over_the_tree() -> None:
    batch = GoBatch(1, 7)
    config = MCTSConfig()
    game = search_game(batch, config, seed=1)
    evaluator = _Table()
    search = MCTS(config, PUCT(), evaluator, np.random.default_rng(1), per_root=16)
    tree = search.new_tree(game)
    search.begin(tree, game, 160)
    search.run(game, tree, 160)
    assert max(evaluator.sizes) == 16  # sixteen different leaves in one call
    edges = tree.ef[: tree.edges_used]
    assert (edges[:, kt.E_N] >= 0).all() and edges[:, kt.E_N].sum() > 0


def test_gumbel_prefers_the_move_with_the_better_value() -> None:
    batch = GoBatch(1, 5)
    config = MCTSConfig(gumbel_considered=32)  # every move: the priors are all equal
    game = search_game(batch, config, seed=1, ended="area")
    search = MCTS(config, Gumbel(), _Table(favourite=12, bonus=0.4), np.random.default_rng(1))
    tree = search.new_tree(game)
    search.begin(tree, game, 64)
    search.run(game, tree, 64)
    actions, policy = search.improved_policy(tree, 0)
    assert actions[int(np.argmax(policy))] == 12
    assert policy.sum() == pytest.approx(1.0)
    assert search.gumbel_choice(tree, 0) == 12
    # the improved policy puts more weight on it than the network's uniform prior
    assert policy[list(actions).index(12)] > 2.0 / len(actions)


def test_a_finished_game_in_the_tree_is_scored_not_evaluated() -> None:
    # Black to move and passing after White's pass ends a won game: the tree values it exactly
    position = GoPosition.from_diagram(
        """
        X X X X X
        X X X X X
        X X . X X
        X X X X X
        X X X X .
        """,
        to_play=Color.WHITE,
    ).play(Move.PASS)
    batch = GoBatch.from_positions([position])
    config = MCTSConfig()
    game = search_game(batch, config, seed=1, ended="area")
    search = MCTS(config, PUCT(), UniformEvaluator(), np.random.default_rng(1))
    tree = search.new_tree(game)
    search.begin(tree, game, 30)
    search.run(game, tree, 30)
    root = tree.root
    passed = tree.child(root, 25)
    assert passed >= 0 and tree.ni[passed, kt.N_COUNT] == 0  # the game is over there
    sl = tree.edges(root)
    wins = dict(
        zip(
            tree.actions(root),
            tree.ef[sl, kt.E_W] / np.maximum(tree.ef[sl, kt.E_N], 1),
            strict=True,
        )
    )
    assert wins[25] == 1.0  # Black wins the count


# -- a network's values mixed with playouts (AlphaGo's mixing) -----------------------------------


class _Constant:
    """A fake network: uniform priors over the legal moves, the same value everywhere."""

    history = 1
    needs_states = False
    score_weight = 0.0

    def __init__(self, value: float) -> None:
        self.value = value

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        priors = leaves.legal[:count].astype(np.float64)
        priors /= priors.sum(axis=1, keepdims=True)
        return Evaluation(np.full(count, self.value), priors)


@pytest.mark.parametrize(
    ("network", "playout", "mix", "value"),
    [
        (0.2, 1.0, 0.25, 0.4),  # a quarter of the playout's win, three quarters the network's 0.2
        (0.2, 0.0, 0.5, 0.1),
        (0.9, 0.5, 1.0, 0.5),  # the playouts alone
    ],
)
def test_a_mixed_value_weighs_the_network_and_the_playout(
    network: float, playout: float, mix: float, value: float
) -> None:
    leaves = LeafBatch("go", 5, 1, 3, 8, state_shape=(4,), with_states=True)
    leaves.legal[:] = True
    leaves.play_out = lambda count, out: out.__setitem__(slice(0, count), playout)
    inner = _Constant(network)
    evaluation = MixedEvaluator(inner, mix).evaluate(leaves, 3)
    assert evaluation.values == pytest.approx([value] * 3)
    assert evaluation.priors == pytest.approx(inner.evaluate(leaves, 3).priors)


def test_a_mixed_evaluator_refuses_a_share_out_of_range_and_leaves_without_states() -> None:
    for mix in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="share"):
            MixedEvaluator(_Constant(0.5), mix)
    leaves = LeafBatch("go", 5, 1, 2, 8)  # no game states: nothing to play out
    with pytest.raises(ValueError, match="game states"):
        MixedEvaluator(_Constant(0.5), 0.5).evaluate(leaves, 2)


def test_playouts_show_the_search_a_capture_its_network_cannot_see() -> None:
    # Black captures four stones at d3 (action 13); a network that finds every position even
    # gives the search no reason to prefer it; with playouts mixed in, it does
    position = GoPosition.from_diagram(
        """
        . . X . .
        . X O X .
        X O O . .
        . X O X .
        . . X . .
        """,
        to_play=Color.BLACK,
    )
    chosen = {}
    for mix in (None, 0.5):
        batch = GoBatch.from_positions([position])
        config = MCTSConfig(c=1.0)
        game = search_game(batch, config, seed=1, ended="area")
        evaluator = _Constant(0.5) if mix is None else MixedEvaluator(_Constant(0.5), mix)
        search = MCTS(config, PUCT(), evaluator, np.random.default_rng(1))
        tree = search.new_tree(game)
        search.begin(tree, game, 400)
        search.run(game, tree, 400)
        visits = tree.ef[tree.edges(tree.root), kt.E_N]
        chosen[mix] = (tree.actions(tree.root)[int(np.argmax(visits))], visits.max() / 400)
    assert chosen[0.5][0] == 13 and chosen[0.5][1] > 0.2  # the capture, well ahead
    assert chosen[None][1] < 0.1  # an even network spreads the visits over every move


class _ThreadRecorder:
    """A fake network that notes the thread of each call (and the playouts', through
    :meth:`watch`), waiting a little in each so that the two calls overlap if they can."""

    history = 1
    needs_states = False
    score_weight = 0.0

    def __init__(self) -> None:
        self.network_threads: set[int] = set()
        self.playout_threads: set[int] = set()
        self.overlapped = False
        self._playing = threading.Event()

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        self.network_threads.add(threading.get_ident())
        self.overlapped |= self._playing.wait(timeout=1.0)
        return _Constant(0.5).evaluate(leaves, count)

    def watch(self, play_out: Callable[[int, np.ndarray], None]) -> Callable[..., None]:
        def watched(count: int, out: np.ndarray) -> None:
            self.playout_threads.add(threading.get_ident())
            self._playing.set()
            play_out(count, out)

        return watched


def test_a_playout_thread_plays_the_batch_while_the_network_evaluates_it() -> None:
    leaves = LeafBatch("go", 5, 1, 3, 8, state_shape=(4,), with_states=True)
    leaves.legal[:] = True
    network = _ThreadRecorder()
    leaves.play_out = network.watch(lambda count, out: out.__setitem__(slice(0, count), 1.0))
    evaluation = MixedEvaluator(network, 0.5, playout_thread=True).evaluate(leaves, 3)
    assert evaluation.values == pytest.approx([0.75] * 3)
    assert network.overlapped  # the playouts ran while the network's call was under way
    assert network.playout_threads.isdisjoint(network.network_threads)
    assert network.network_threads == {threading.get_ident()}


def test_closing_ends_the_playout_thread_and_later_batches_play_out_here() -> None:
    leaves = LeafBatch("go", 5, 1, 2, 8, state_shape=(4,), with_states=True)
    leaves.legal[:] = True
    network = _ThreadRecorder()
    leaves.play_out = network.watch(lambda count, out: out.__setitem__(slice(0, count), 1.0))
    evaluator = MixedEvaluator(network, 0.5, playout_thread=True)
    evaluator.evaluate(leaves, 2)
    (worker,) = network.playout_threads
    evaluator.close()
    assert not any(t.ident == worker and t.is_alive() for t in threading.enumerate())
    network.playout_threads.clear()
    assert evaluator.evaluate(leaves, 2).values == pytest.approx([0.75] * 2)
    assert network.playout_threads == {threading.get_ident()}


def test_a_playout_error_reaches_the_search() -> None:
    leaves = LeafBatch("go", 5, 1, 2, 8, state_shape=(4,), with_states=True)
    leaves.legal[:] = True

    def broken(count: int, out: np.ndarray) -> None:
        raise RuntimeError("playout failed")

    leaves.play_out = broken
    with pytest.raises(RuntimeError, match="playout failed"):
        MixedEvaluator(_Constant(0.5), 0.5, playout_thread=True).evaluate(leaves, 2)


@pytest.mark.parametrize("game", ["go", "othello"])
def test_a_search_with_a_playout_thread_is_the_same_search(game: str) -> None:
    # the same seed, the same simulations: the playouts draw the same numbers in the same order
    # on their thread, so the trees match visit for visit
    visits = []
    for thread in (False, True):
        batch: GoBatch | OthelloBatch = (
            GoBatch.from_positions([GoPosition.empty(7)]) if game == "go" else OthelloBatch(1, 8)
        )
        config = MCTSConfig(c=1.0)
        sgame = search_game(batch, config, seed=5, ended="area")
        evaluator = MixedEvaluator(_Constant(0.5), 0.5, playout_thread=thread)
        search = MCTS(config, PUCT(), evaluator, np.random.default_rng(5), per_root=8)
        tree = search.new_tree(sgame)
        search.begin(tree, sgame, 300)
        search.run(sgame, tree, 300)
        visits.append(tree.ef[tree.edges(tree.root), kt.E_N].copy())
    assert visits[0].sum() >= 299
    np.testing.assert_array_equal(visits[0], visits[1])
