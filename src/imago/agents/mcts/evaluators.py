"""Leaf evaluators: what the search asks about the positions at the ends of its simulations.

The search gathers leaves in a :class:`LeafBatch` (the boards of each leaf and of the
positions before it, whose turn it is, the legal actions, and when asked the game state
itself) and gives them to an :class:`Evaluator` in one call, which answers with an
:class:`Evaluation`: a value per leaf (the win rate of the player to move there, in
``[0, 1]``) and, optionally, move probabilities (the priors of the leaf's children). A network
(:mod:`imago.nn.evaluator`), random playouts and a uniform stand-in all answer the same call,
so one tree and one selection serve them all.

:class:`RandomPlayoutEvaluator` is also recognised by the search, which then runs whole
simulations inside numba (the same algorithm without a batch round trip per playout).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(slots=True)
class LeafBatch:
    """Buffers for up to ``capacity`` leaves, filled by the search (the first ``count`` rows of
    each array are a batch's leaves).

    ``boards[b, k]`` is the board ``k`` moves before leaf ``b`` (0 empty, 1 black, 2 white;
    ``(capacity, history, size, size)``), ``to_play[b]`` its colour to move, ``legal[b]`` its
    legal actions (``size * size + 1``, pass last). ``states`` holds the game's own state of
    each leaf for evaluators that play on (empty otherwise), and ``play_out(count, out)``
    writes playout results for them.
    """

    game: str
    size: int
    history: int
    capacity: int
    max_depth: int
    state_shape: tuple[int, ...] = ()
    state_dtype: type = np.int64
    with_states: bool = False
    play_out: Callable[[int, FloatArray], None] | None = None
    node: IntArray = field(init=False)
    root: IntArray = field(init=False)
    path_n: IntArray = field(init=False)
    path_e: IntArray = field(init=False)
    depth: IntArray = field(init=False)
    boards: npt.NDArray[np.int8] = field(init=False)
    to_play: npt.NDArray[np.int8] = field(init=False)
    legal: npt.NDArray[np.bool_] = field(init=False)
    states: npt.NDArray[np.generic] = field(init=False)

    def __post_init__(self) -> None:
        n, nn = self.capacity, self.size * self.size
        self.node = np.zeros(n, dtype=np.int64)
        self.root = np.zeros(n, dtype=np.int64)
        self.path_n = np.zeros((n, self.max_depth), dtype=np.int64)
        self.path_e = np.zeros((n, self.max_depth), dtype=np.int64)
        self.depth = np.zeros(n, dtype=np.int64)
        self.boards = np.zeros((n, self.history, nn), dtype=np.int8)
        self.to_play = np.zeros(n, dtype=np.int8)
        self.legal = np.zeros((n, nn + 1), dtype=np.bool_)
        rows = n if self.with_states else 0
        self.states = np.zeros((rows, *self.state_shape), dtype=self.state_dtype)

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1

    def board_planes(self, count: int) -> npt.NDArray[np.int8]:
        """The boards of the first ``count`` leaves as ``(count, history, size, size)``."""
        return self.boards[:count].reshape(count, self.history, self.size, self.size)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An evaluator's answer for ``count`` leaves: ``values[b]`` in ``[0, 1]`` for the player
    to move at leaf ``b``; ``priors[b]`` move probabilities over the ``size * size + 1``
    actions (``None``: keep the search's own priors)."""

    values: FloatArray
    priors: npt.NDArray[np.floating] | None = None


@runtime_checkable
class Evaluator(Protocol):
    """Evaluates a batch of leaves: ``evaluate(leaves, count) -> Evaluation``.

    ``history`` is how many boards per leaf it reads (1: the leaf's own), ``needs_states``
    whether it needs the game states (playouts do). An evaluator whose values mix in the final
    margin (a network trained with ``score_weight``) says so with a ``score_weight``
    attribute, and the search values finished games in the tree on the same scale
    (:func:`imago.agents.mcts._tree.terminal_value`); without it, by their results.
    """

    @property
    def history(self) -> int: ...

    @property
    def needs_states(self) -> bool: ...

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation: ...


class RandomPlayoutEvaluator:
    """A playout to the end of the game from each leaf (Go: the search's playout policy);
    the win (1), draw (0.5) or loss (0). No priors.

    The search recognises this evaluator and runs whole simulations inside numba, with the
    all-moves-as-first statistics MC-RAVE needs; :meth:`evaluate` serves batched searches.
    """

    history = 1
    needs_states = True

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        if leaves.play_out is None or not leaves.with_states:
            raise ValueError("playouts need the leaves' game states")
        values = np.zeros(count, dtype=np.float64)
        leaves.play_out(count, values)
        return Evaluation(values)


class MixedEvaluator:
    """A network's values mixed with playouts, as AlphaGo mixed its value network with its
    rollouts (Silver et al., "Mastering the game of Go with deep neural networks and tree
    search", 2016: ``(1 - mix) * v + mix * z``, best at ``mix = 0.5`` there): each leaf is
    worth ``1 - mix`` of the network's value and ``mix`` of the result of one playout from it
    (the search game's playout policy: in Go, captures, ataris and 3x3 patterns). A playout
    sees captures and dead groups that a small network misjudges; the network sees what a
    playout cannot read. The network's priors are kept.

    With ``playout_thread``, each batch's playouts run on a second thread while the network
    evaluates the same batch on the calling one: one tree searched on two cores. The two
    read different buffers of the batch (the playouts its game states, the network its
    boards) and both run without the GIL (numba ``nogil`` kernels, ONNX Runtime or torch);
    the values are the same as without the thread, since the playouts draw from the same
    generator in the same order."""

    needs_states = True

    def __init__(self, network: Evaluator, mix: float, *, playout_thread: bool = False) -> None:
        if not 0.0 < mix <= 1.0:
            raise ValueError(f"the playouts' share of a value must be in (0, 1], not {mix}")
        self.network = network
        self.mix = mix
        self._playouts = (
            ThreadPoolExecutor(1, thread_name_prefix="imago-playouts") if playout_thread else None
        )

    @property
    def history(self) -> int:
        return self.network.history

    @property
    def score_weight(self) -> float:
        """The network's share of margin in its values (the search values finished games on
        the same scale)."""
        return float(getattr(self.network, "score_weight", 0.0))

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        if leaves.play_out is None or not leaves.with_states:
            raise ValueError("playouts need the leaves' game states")
        played = np.zeros(count, dtype=np.float64)
        if self._playouts is None:
            evaluation = self.network.evaluate(leaves, count)
            leaves.play_out(count, played)
        else:
            playing = self._playouts.submit(leaves.play_out, count, played)
            try:
                evaluation = self.network.evaluate(leaves, count)
            finally:
                playing.result()  # the batch is the search's again only once both are done
        values = (1.0 - self.mix) * np.asarray(evaluation.values, dtype=np.float64)
        return Evaluation(values + self.mix * played, evaluation.priors)

    def close(self) -> None:
        """End the playout thread (when there is one); later batches play out on the calling
        thread."""
        if self._playouts is not None:
            self._playouts.shutdown(wait=True)
            self._playouts = None


class UniformEvaluator:
    """A stand-in network: uniform priors over the legal moves and an even value (0.5).

    Searching with it is a breadth-first tree of equal values: useful for tests and as the
    dummy network of ``imago rl --test``-style dry runs."""

    history = 1
    needs_states = False

    def __init__(self) -> None:
        self.calls = 0
        self.positions = 0

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        self.calls += 1
        self.positions += count
        legal = leaves.legal[:count].astype(np.float32)
        totals = np.maximum(legal.sum(axis=1, keepdims=True), 1.0)
        return Evaluation(np.full(count, 0.5), legal / totals)
