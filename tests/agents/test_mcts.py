"""The MCTS agent and its parts: rules, evaluators, tree reuse, limits, determinism."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from imago.agents import Limit, SearchResult, make_agent
from imago.agents.mcts import (
    MCTS,
    PUCT,
    UCT,
    ChildStats,
    Evaluation,
    MCTSAgent,
    MCTSConfig,
    MCTSOptions,
    RandomPlayoutEvaluator,
    RaveUCT,
    SearchGame,
    _OthelloGame,
)
from imago.core.move import Move
from imago.games import make
from imago.games.go import GoPosition
from imago.games.othello import OthelloState

# White to move; b1 takes the last corner region and wins, a1 is also legal.
_OTHELLO_ENDGAME = (
    "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--"  # FFO #1, black to move
)


def _random_game(game: str, seed: int, limit: Limit, **options: str) -> float:
    black = make_agent("mcts", game, options, seed=seed)
    white = make_agent("random", game, {}, seed=seed + 100)
    state = make(game) if game == "othello" else make(game, size=7)
    while not state.is_over():
        agent = black if state.to_play == 1 else white
        result = agent.select_move(state, limit)
        if result.move.is_resign:
            return -1.0
        assert result.move.is_pass or state.is_legal(result.move)
        state = state.play(result.move)
    outcome = state.outcome()
    assert outcome is not None
    return outcome.margin if outcome.winner == 1 else -outcome.margin


def test_othello_beats_random() -> None:
    assert _random_game("othello", 1, Limit(playouts=300)) > 0


@pytest.mark.parametrize("rave", ["true", "false"])
def test_go_beats_random(rave: str) -> None:
    assert _random_game("go", 2, Limit(playouts=300), rave=rave) > 0


def test_finds_the_ffo_best_move() -> None:
    # FFO #1: g8 wins by 18, every other move by 12 or less; the search should prefer g8
    # clearly with a few thousand playouts.
    state = OthelloState.from_board_string(_OTHELLO_ENDGAME, "X")
    agent = make_agent("mcts", "othello", {}, seed=3)
    result = agent.select_move(state, Limit(playouts=20000))
    assert state.is_legal(result.move)
    assert result.winrate is not None and result.winrate > 0.9


def test_go_capture() -> None:
    position = GoPosition.from_diagram(
        """
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
        """
    )
    result = make_agent("mcts", "go", {}, seed=1).select_move(position, Limit(playouts=3000))
    assert result.move == position.parse_move("D3")


def test_deterministic_for_a_seed() -> None:
    state = make("go", size=9)
    a = make_agent("mcts", "go", {}, seed=5).select_move(state, Limit(playouts=500))
    b = make_agent("mcts", "go", {}, seed=5).select_move(state, Limit(playouts=500))
    assert a.move == b.move
    assert [(c.move, c.visits) for c in a.candidates] == [(c.move, c.visits) for c in b.candidates]


def test_search_info_and_playout_limit() -> None:
    state = make("othello")
    infos: list[SearchResult] = []
    result = make_agent("mcts", "othello", {}, seed=1).select_move(
        state, Limit(playouts=1000), on_info=infos.append
    )
    assert result.nodes == 1000
    assert infos and infos[-1] == result
    assert sum(c.visits for c in result.candidates) == 1000
    assert result.candidates[0].move == result.move
    assert result.pv[0] == result.move and len(result.pv) > 1
    visits = [c.visits for c in result.candidates]
    assert visits == sorted(visits, reverse=True)
    assert all(0.0 <= (c.winrate or 0.0) <= 1.0 for c in result.candidates)


def test_time_limit_and_stop() -> None:
    state = make("go", size=9)
    agent = make_agent("mcts", "go", {}, seed=1)
    result = agent.select_move(state, Limit(time=0.2))
    assert result.seconds < 2.0 and result.nodes > 0
    stop = threading.Event()
    stop.set()
    stopped = agent.select_move(state, Limit(time=60), stop=stop)
    assert stopped.seconds < 5.0


def test_tree_reuse() -> None:
    agent = make_agent("mcts", "othello", {}, seed=1)
    assert isinstance(agent, MCTSAgent)
    state = make("othello")
    first = agent.select_move(state, Limit(playouts=2000))
    reply = first.pv[1]
    after = state.play(first.move).play(reply)
    second = agent.select_move(after, Limit(playouts=10))
    assert sum(c.visits for c in second.candidates) > 10  # the old subtree's visits are kept
    fresh = make_agent("mcts", "othello", {"reuse": "false"}, seed=1)
    third = fresh.select_move(after, Limit(playouts=10))
    assert sum(c.visits for c in third.candidates) == 10


@pytest.mark.parametrize("game", ["go", "othello"])
def test_threads_share_the_playouts_and_stay_deterministic(game: str) -> None:
    state = make(game, size=9) if game == "go" else make(game)
    results = [
        make_agent("mcts", game, {"threads": "2"}, seed=5).select_move(state, Limit(playouts=901))
        for _ in range(2)
    ]
    a, b = results
    assert a.nodes == 901 and sum(c.visits for c in a.candidates) == 901
    assert [(c.move, c.visits, c.winrate) for c in a.candidates] == [
        (c.move, c.visits, c.winrate) for c in b.candidates
    ]
    assert a.move == a.candidates[0].move and state.is_legal(a.move)
    visits = [c.visits for c in a.candidates]
    assert visits == sorted(visits, reverse=True)
    single = make_agent("mcts", game, {}, seed=5).select_move(state, Limit(playouts=901))
    assert [c.visits for c in single.candidates] != visits  # two trees, not one


def test_threads_keep_their_trees_and_obey_time_and_stop() -> None:
    agent = make_agent("mcts", "othello", {"threads": "2"}, seed=1)
    assert isinstance(agent, MCTSAgent)
    state = make("othello")
    for move in ("f5", "d6", "c3"):  # past the symmetric opening: both trees like one move
        state = state.play(state.parse_move(move))
    first = agent.select_move(state, Limit(playouts=20_000))
    after = state.play(first.move).play(first.pv[1])
    second = agent.select_move(after, Limit(playouts=10))
    assert len(agent._trees) == 2
    assert all(t.nf[t.root] > 5 for t in agent._trees)  # both old subtrees kept
    assert sum(c.visits for c in second.candidates) > 10
    infos: list[SearchResult] = []
    timed = agent.select_move(after, Limit(time=1.2), on_info=infos.append)
    assert 1.0 <= timed.seconds < 3.0 and timed.nodes > 0
    assert len(infos) >= 2 and infos[-1] == timed
    stop = threading.Event()
    stop.set()
    assert agent.select_move(after, Limit(time=60), stop=stop).seconds < 5.0


def test_resigns_a_lost_position() -> None:
    # White to move with one disc against a full black board but for a few squares: lost.
    board = "X" * 60 + "O---"
    state = OthelloState.from_board_string(board, "O")
    agent = make_agent("mcts", "othello", {"resign": "0.2"}, seed=1)
    result = agent.select_move(state, Limit(playouts=400))
    assert result.move in (Move.RESIGN, *state.legal_moves())
    lost = OthelloState.from_board_string("X" * 40 + "O" + "-" * 23, "O")
    if not lost.is_over():
        assert agent.select_move(lost, Limit(playouts=500)).move == Move.RESIGN


def test_selection_rules_agree_on_arrays() -> None:
    stats = ChildStats(
        n=np.array([0.0, 10.0, 5.0]),
        w=np.array([0.0, 6.0, 4.0]),
        amaf_n=np.array([4.0, 20.0, 0.0]),
        amaf_w=np.array([3.0, 10.0, 0.0]),
        prior=np.array([0.2, 0.5, 0.3]),
    )
    config = MCTSConfig(c=0.1)
    uct = UCT().scores(stats, 15, config)
    assert np.argmax(uct) == 0  # unvisited first
    rave = RaveUCT().scores(stats, 15, config)
    assert rave[0] == pytest.approx(0.75)  # unvisited: its AMAF value
    puct = PUCT().scores(stats, 15, config)
    assert puct.shape == (3,)


class _CountingEvaluator:
    """A non-playout evaluator: the search must take the generic (Python) path with it."""

    def __init__(self) -> None:
        self.calls = 0
        self.inner = RandomPlayoutEvaluator()

    def evaluate(self, game: SearchGame, sim: object, actions: np.ndarray) -> Evaluation:
        self.calls += 1
        result = self.inner.evaluate(game, sim, actions)
        priors = np.full(len(actions), 1.0 / len(actions))
        return Evaluation(result.value, priors, result.first)


@pytest.mark.parametrize("rule", [UCT(), RaveUCT(), PUCT()])
def test_generic_path_with_another_evaluator(rule: object) -> None:
    state = make("othello")
    game = _OthelloGame(state, seed=1)
    evaluator = _CountingEvaluator()
    search = MCTS(MCTSConfig(dirichlet_alpha=0.3), rule, evaluator, np.random.default_rng(1))  # type: ignore[arg-type]
    tree = search.new_tree(game)
    search.run(game, tree, 200)
    assert evaluator.calls >= 190
    root_visits = tree.ef[tree.edges(tree.root), 0]
    assert root_visits.sum() == 200  # virtual loss fully removed


def test_options_validation() -> None:
    with pytest.raises(ValueError):
        MCTSAgent(MCTSOptions(playouts=0), np.random.default_rng())
    with pytest.raises(ValueError, match="threads"):
        MCTSAgent(MCTSOptions(threads=0), np.random.default_rng())


# -- the heavy Go playout policy --------------------------------------------------------------
def _after(diagram: str, move: str) -> tuple[np.ndarray, int]:
    """The fastpath state after White plays ``move`` on ``diagram`` (Black to move then)."""
    from imago.core import Color
    from imago.games.go import fastpath as gf

    position = GoPosition.from_diagram(diagram, to_play=Color.WHITE)
    after = position.play(position.parse_move(move))
    return gf.to_arrays(after), after.size


@pytest.mark.parametrize(
    ("diagram", "white_move", "expected"),
    [
        # White's new stone on C3 is in atari: Black captures on C2.
        (
            """
            . . . . .
            . . X . .
            . X . X .
            . . . . .
            . . . . .
            """,
            "C3",
            "C2",
        ),
        # White's C5 ataris the two black stones C4-C3; extending on C2 gives them 3 liberties.
        (
            """
            . . . . .
            . O X O .
            . O X O .
            . . . . .
            . . . . .
            """,
            "C5",
            "C2",
        ),
        # White's D3 ataris C3; extending on C2 would leave one liberty (B2), so Black saves
        # C3 by capturing the white B3 stone next to it, itself in atari.
        (
            """
            . . . . .
            . X O . .
            X O X . .
            . . . O .
            . . O . .
            """,
            "D3",
            "B2",
        ),
    ],
)
def test_heavy_policy_answers_ataris(diagram: str, white_move: str, expected: str) -> None:
    from imago.agents import _go_playout_kernels as hk
    from imago.games.go import fastpath as gf

    s, size = _after(diagram, white_move)
    rng = gf.seed_rng(3)
    work = np.empty_like(s)
    move = hk.tactical_move(s, size, 1, False, rng, work)
    assert move == GoPosition.from_diagram(diagram).parse_move(expected).to_action(size)


def test_heavy_policy_avoids_self_atari_of_groups() -> None:
    from imago.agents import _go_playout_kernels as hk
    from imago.games.go import fastpath as gf

    position = GoPosition.from_diagram(
        """
        . O . . .
        X O . . .
        . O . . .
        O . . . .
        . . . . .
        """
    )
    s = gf.to_arrays(position)
    work = np.empty_like(s)
    a3 = position.parse_move("A3").to_action(5)  # A3-A4: one liberty (A5)
    a5 = position.parse_move("A5").to_action(5)  # A5-A4: one liberty (A3)
    e5 = position.parse_move("E5").to_action(5)  # a lone stone
    assert hk.self_atari(s, 5, a3, 1, False, work)
    assert hk.self_atari(s, 5, a5, 1, False, work)
    assert not hk.self_atari(s, 5, e5, 1, False, work)
    assert (s == gf.to_arrays(position)).all()  # the state is untouched


@pytest.mark.parametrize("policy", [0, 1])
def test_go_playouts_play_legal_moves_only(policy: int) -> None:
    from imago.agents import _go_playout_kernels as hk
    from imago.games.go import fastpath as gf

    rng = gf.seed_rng(11)
    for _ in range(20):
        s = gf.new_state(7)
        buf = np.empty(49, dtype=np.int64)
        work = np.empty_like(s)
        for _ in range(200):
            h = gf.header(7)
            if s[h + gf.F_PASSES] >= 2:
                break
            color = int(s[h + gf.F_TO_PLAY])
            if policy == 1:
                a = hk.heavy_move(s, 7, color, False, rng, buf, work)
            else:
                a = gf.random_move(s, 7, color, False, rng)
            assert gf.play(s, 7, a, color, False) == gf.OK


@pytest.mark.parametrize("policy", ["random", "heavy"])
def test_playout_policies_deterministic_and_legal(policy: str) -> None:
    state = make("go", size=9)
    options = {"playout_policy": policy}
    a = make_agent("mcts", "go", options, seed=7).select_move(state, Limit(playouts=300))
    b = make_agent("mcts", "go", options, seed=7).select_move(state, Limit(playouts=300))
    assert state.is_legal(a.move)
    assert [(c.move, c.visits) for c in a.candidates] == [(c.move, c.visits) for c in b.candidates]
    with pytest.raises(ValueError):
        make_agent("mcts", "go", {"playout_policy": "nope"}, seed=1)


# -- a prior oracle guiding the Go search -------------------------------------------------------
class _FavouriteOracle:
    """Puts nearly all the prior weight on one point; counts its calls."""

    size = 9

    def __init__(self, favourite: int) -> None:
        self.favourite = favourite
        self.calls = 0
        self.sizes: set[int] = set()

    def __call__(self, board: np.ndarray, to_play: int, actions: np.ndarray) -> np.ndarray:
        self.calls += 1
        self.sizes.add(len(board))
        return np.where(actions == self.favourite, 100.0, 1.0)


def _root_visits(agent: MCTSAgent, action: int) -> float:
    (tree,) = agent._trees
    sl = tree.edges(tree.root)
    hit = np.flatnonzero(tree.ei[sl, 0] == action)
    return float(tree.ef[sl.start + int(hit[0]), 0])


def test_prior_oracle_steers_the_go_search() -> None:
    state = make("go", size=9)
    favourite = Move.from_gtp("B2", 9).to_action(9)  # a poor second-line move nobody picks
    plain = MCTSAgent(MCTSOptions(), np.random.default_rng(3))
    plain.select_move(state, Limit(playouts=1500))
    oracle = _FavouriteOracle(favourite)
    guided = MCTSAgent(
        MCTSOptions(), np.random.default_rng(3), oracle, oracle_visits=4, oracle_bias=0.5
    )
    result = guided.select_move(state, Limit(playouts=1500))
    assert _root_visits(guided, favourite) > 5 * max(_root_visits(plain, favourite), 10)
    (tree,) = guided._trees
    used = int(tree.counts[0])
    guided_nodes = int(tree.ni[:used, 3].sum())
    visited = int((tree.nf[:used] >= 3).sum())  # passed through at least 4 times
    assert oracle.calls == guided_nodes and 1 <= guided_nodes <= visited + 1
    assert oracle.sizes == {81}
    assert result.move in state.legal_moves()


def test_no_oracle_means_the_plain_search() -> None:
    state = make("go", size=9).play(Move.from_gtp("E5", 9))
    a = MCTSAgent(MCTSOptions(), np.random.default_rng(5)).select_move(state, Limit(playouts=600))
    b = MCTSAgent(MCTSOptions(), np.random.default_rng(5), None, oracle_visits=2).select_move(
        state, Limit(playouts=600)
    )
    assert a.move == b.move and a.candidates == b.candidates


def test_an_oracle_answering_the_wrong_number_of_weights_is_an_error() -> None:
    class ShortOracle:
        size = 9

        def __call__(self, board: np.ndarray, to_play: int, actions: np.ndarray) -> np.ndarray:
            return np.ones(len(actions) - 1)

    agent = MCTSAgent(MCTSOptions(), np.random.default_rng(1), ShortOracle())
    with pytest.raises(ValueError, match=r"answered 81 weights for 82 moves"):
        agent.select_move(make("go", size=9), Limit(playouts=10))


def test_a_failing_search_thread_stops_the_other() -> None:
    class ShortInOneThread:
        size = 9

        def __call__(self, board: np.ndarray, to_play: int, actions: np.ndarray) -> np.ndarray:
            short = threading.current_thread().name.endswith("_0")
            return np.ones(len(actions) - short)

    # the error comes back at once, not after the healthy thread's minute
    threaded = MCTSAgent(MCTSOptions(threads=2), np.random.default_rng(1), ShortInOneThread())
    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"answered 81 weights for 82 moves"):
        threaded.select_move(make("go", size=9), Limit(time=60))
    assert time.perf_counter() - started < 10
