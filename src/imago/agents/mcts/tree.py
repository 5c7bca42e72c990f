"""The search tree: nodes and edges in preallocated arrays, one pool for one or many roots.

The layout is owned by :mod:`imago.agents.mcts._tree` (see there); a :class:`Tree` holds the
arrays, grows them by doubling, and keeps the subtree of a move played (tree reuse) by copying
it into a fresh pool, which also frees what the rest of the old tree held. Many games searched
together (self-play) share one pool with one root each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.agents.mcts import _tree as kt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class ChildStats:
    """A node's children's statistics, as arrays (views into the tree's pool)."""

    n: FloatArray
    w: FloatArray
    amaf_n: FloatArray
    amaf_w: FloatArray
    prior: FloatArray


class Tree:
    """Nodes and edges of one or more search trees (``roots``, one per game searched)."""

    def __init__(self, num_actions: int, nodes: int = 4096, roots: int = 1) -> None:
        self.num_actions = num_actions
        self.ni = np.zeros((nodes, 4), dtype=np.int64)
        self.nf = np.zeros((nodes, 2), dtype=np.float64)
        edges = nodes * min(num_actions, 32)
        self.ei = np.zeros((edges, 2), dtype=np.int64)
        self.ef = np.zeros((edges, 5), dtype=np.float64)
        self.counts = np.zeros(2, dtype=np.int64)
        self.roots = np.full(roots, -1, dtype=np.int64)

    # -- the root of a single search ---------------------------------------------------------------
    @property
    def root(self) -> int:
        """The first root (the only one of a single game's search)."""
        return int(self.roots[0])

    @root.setter
    def root(self, node: int) -> None:
        self.roots[0] = node

    # -- room --------------------------------------------------------------------------------------
    @property
    def nodes_used(self) -> int:
        return int(self.counts[0])

    @property
    def edges_used(self) -> int:
        return int(self.counts[1])

    def grow(self) -> None:
        """Double the pool, keeping everything in it. The new arrays are filled before they
        replace the old ones, so a reader in another thread sees a valid tree throughout."""
        self.ni = _grown(self.ni)
        self.nf = _grown(self.nf)
        self.ei = _grown(self.ei)
        self.ef = _grown(self.ef)

    def ensure_room(self, nodes: int = 2, edges: int | None = None) -> None:
        """Grow until ``nodes`` more nodes with ``edges`` more edges (default: a full node's
        worth each) fit."""
        edges = nodes * self.num_actions if edges is None else edges
        while self.counts[0] + nodes >= len(self.nf) or self.counts[1] + edges >= len(self.ei):
            self.grow()

    def add(self, color: int, actions: IntArray) -> int:
        """A new node for ``color`` to move with one edge per action (uniform priors)."""
        self.ensure_room(2, len(actions) + 1)
        return int(
            kt.add_node(
                color, actions, len(actions), self.ni, self.nf, self.ef, self.ei, self.counts
            )
        )

    def keep(self, roots: IntArray) -> None:
        """Keep only the subtrees below ``roots`` (one per root slot; -1 leaves a slot empty),
        which become the roots; everything else is freed."""
        wanted = np.asarray(roots, dtype=np.int64)
        nodes = edges = 0
        for root in wanted:
            if root >= 0:
                n, e = kt.subtree_size(int(root), self.ni, self.ei)
                nodes, edges = nodes + n, edges + e
        # The next search needs about the room this one grew to: start there rather than grow
        # (copying the whole pool each time) again during it.
        capacity = max(4096, 2 * nodes, len(self.nf))
        fresh = Tree(self.num_actions, capacity, len(wanted))
        fresh.ensure_room(2, edges + 2 * self.num_actions)
        ok = kt.copy_subtrees(
            wanted,
            self.ni,
            self.nf,
            self.ei,
            self.ef,
            fresh.ni,
            fresh.nf,
            fresh.ei,
            fresh.ef,
            fresh.counts,
            fresh.roots,
        )
        if not ok:  # sized above, so this is a bug
            raise RuntimeError("tree compaction ran out of room")
        self.ni, self.nf, self.ei, self.ef = fresh.ni, fresh.nf, fresh.ei, fresh.ef
        self.counts, self.roots = fresh.counts, fresh.roots

    # -- reading -----------------------------------------------------------------------------------
    def edges(self, node: int) -> slice:
        first, count = int(self.ni[node, kt.N_FIRST]), int(self.ni[node, kt.N_COUNT])
        return slice(first, first + count)

    def stats(self, node: int) -> ChildStats:
        e = self.ef[self.edges(node)]
        return ChildStats(e[:, 0], e[:, 1], e[:, 2], e[:, 3], e[:, 4])

    def actions(self, node: int) -> IntArray:
        return self.ei[self.edges(node), kt.E_ACTION]

    def children(self, node: int) -> int:
        """How many children ``node`` has (0 until it is expanded)."""
        return int(self.ni[node, kt.N_COUNT])

    def visits(self, node: int) -> float:
        return float(self.nf[node, kt.NF_VISITS])

    def value(self, node: int) -> float | None:
        """The evaluator's value of ``node`` for its player to move (None when unevaluated)."""
        value = float(self.nf[node, kt.NF_VALUE])
        return None if np.isnan(value) else value

    def child(self, node: int, action: int) -> int:
        """The child node reached by ``action`` (-1 when not in the tree)."""
        sl = self.edges(node)
        hits = np.flatnonzero(self.ei[sl, kt.E_ACTION] == action)
        return int(self.ei[sl.start + int(hits[0]), kt.E_CHILD]) if hits.size else -1

    def principal_variation(self, edge: int, limit: int = 20) -> list[int]:
        """The actions from ``edge`` on, following the most visited child."""
        actions = [int(self.ei[edge, kt.E_ACTION])]
        node = int(self.ei[edge, kt.E_CHILD])
        while node >= 0 and self.ni[node, kt.N_COUNT] > 0 and len(actions) < limit:
            sl = self.edges(node)
            i = int(np.argmax(self.ef[sl, kt.E_N]))
            if self.ef[sl.start + i, kt.E_N] == 0:
                break
            actions.append(int(self.ei[sl.start + i, kt.E_ACTION]))
            node = int(self.ei[sl.start + i, kt.E_CHILD])
        return actions


def _grown(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    bigger = np.zeros((2 * array.shape[0], *array.shape[1:]), dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger
