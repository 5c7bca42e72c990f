"""Monte Carlo tree search for Go and Othello, built from parts a reader can find.

One search serves random playouts and neural networks (the shape of OpenSpiel's ``MCTSBot``
and minigo's ``mcts.py``):

===============================  ==============================================================
part                             module
===============================  ==============================================================
the numbers                      :mod:`~imago.agents.mcts.config` (:class:`MCTSConfig`, frozen)
the tree                         :mod:`~imago.agents.mcts.tree` (nodes and edges in arrays, one
                                 pool for one root or many; layout owned by ``_tree``)
selection rules                  :mod:`~imago.agents.mcts.selection` (UCT, MC-RAVE, PUCT,
                                 Gumbel), one numba kernel for all
leaf evaluators                  :mod:`~imago.agents.mcts.evaluators` (random playouts, a
                                 uniform stand-in; networks in :mod:`imago.nn.evaluator`)
the game as the search sees it   :mod:`~imago.agents.mcts.games` (roots are a batch of games
                                 from :mod:`imago.games`; kernels ``_go``, ``_othello``)
the search                       :mod:`~imago.agents.mcts.search` (:class:`MCTS`: fused playout
                                 simulations, or batched leaf evaluation with virtual loss;
                                 Dirichlet noise, Gumbel root, sequential halving)
the agents                       :mod:`~imago.agents.mcts.agent` (``mcts``; :class:`SearchAgent`
                                 for the network agents)
how much of a time limit to use  :mod:`~imago.agents.mcts.timing` (:class:`TimeUse`: Pachi's
                                 early stops, a time bank for fixed times a move)
===============================  ==============================================================

Values are win rates in ``[0, 1]`` for the player to move. Go playouts have three policies
(``random``, ``heavy``, ``pattern``) and new Go nodes get prior knowledge (captures, atari
escapes, patterns) as virtual AMAF visits, so MC-RAVE tries sensible moves first.
"""

from imago.agents.mcts.agent import MCTSAgent, MCTSOptions, SearchAgent, playout_config
from imago.agents.mcts.config import MCTSConfig
from imago.agents.mcts.evaluators import (
    Evaluation,
    Evaluator,
    LeafBatch,
    MixedEvaluator,
    RandomPlayoutEvaluator,
    UniformEvaluator,
)
from imago.agents.mcts.games import GoSearchGame, OthelloSearchGame, SearchGame, search_game
from imago.agents.mcts.search import MCTS, halving_schedule
from imago.agents.mcts.selection import PUCT, RULES, UCT, Gumbel, RaveUCT, SelectionRule
from imago.agents.mcts.timing import TimeOptions, TimeUse
from imago.agents.mcts.tree import ChildStats, Tree

__all__ = [
    "MCTS",
    "PUCT",
    "RULES",
    "UCT",
    "ChildStats",
    "Evaluation",
    "Evaluator",
    "GoSearchGame",
    "Gumbel",
    "LeafBatch",
    "MCTSAgent",
    "MCTSConfig",
    "MCTSOptions",
    "MixedEvaluator",
    "OthelloSearchGame",
    "RandomPlayoutEvaluator",
    "RaveUCT",
    "SearchAgent",
    "SearchGame",
    "SelectionRule",
    "TimeOptions",
    "TimeUse",
    "Tree",
    "UniformEvaluator",
    "halving_schedule",
    "playout_config",
    "search_game",
]
