"""How much of a record's positions one board keeps: a stated budget, checked when a record is
read and held while it is walked.

A position knows the one before it (Go's superko, Othello's history), so keeping a node's
position keeps its whole path from the root: a record's cost is its longest line times the
size of one position (about 10 KB on 9x9, 48 KB on 19x19), not its size on disk. So:

* a record whose longest line would not fit :data:`POSITION_BUDGET` is refused when read, and
  so is one with more than :data:`MAX_TREE_NODES` nodes (:func:`check_tree`);
* a tree small enough for all its positions to fit is replayed when read, which finds its
  illegal moves at once (:func:`replay_when_read`); a larger one is read without positions;
* while a board is shown, :class:`Positions` keeps the positions of the line in use and of
  the nodes used most recently, and drops the oldest others, so that memory follows what is
  shown, not the file.

So a board holds :data:`POSITION_BUDGET` of positions (twice at the very most, for a moment)
and :data:`MAX_UPLOAD_NODES` nodes: about 300 MiB, 430 MiB at most, and a server of 16 boards
(``max_sessions``) under 7 GiB whatever is uploaded, where the 160 KB file of 20,000 passes
alone took 1.1 GB before and the 8 MiB upload limit allowed some 2 million such nodes.
"""

from __future__ import annotations

import functools
from collections import OrderedDict

from imago.core.game import GameState
from imago.games.go.position import GoPosition
from imago.records.tree import GameNode

POSITION_BUDGET = 128 << 20
"""The bytes of positions one board may keep (its record's longest line, or the nodes used
most recently); :class:`Positions` holds at most about twice this at any time."""
MAX_TREE_NODES = 100_000
"""The most nodes one game of an upload may have (a node costs about 0.85 KB without its
position)."""
MAX_UPLOAD_NODES = 200_000
"""The most nodes one upload may have, all its games together."""
OTHELLO_POSITION_BYTES = 1 << 10
"""What one Othello position costs, at most (two bitboards and a few numbers)."""


def position_bytes(game: str, size: int) -> int:
    """The bytes one position of ``game`` on a ``size`` board costs, rounded up (Go: its kernel
    array, plus half again for the superko keys a long game adds)."""
    if game != "go":
        return OTHELLO_POSITION_BYTES
    return _go_position_bytes(size)


@functools.lru_cache(maxsize=32)
def _go_position_bytes(size: int) -> int:
    return int(GoPosition.empty(size).arrays().nbytes * 3 // 2) + 512


def max_line(game: str, size: int) -> int:
    """The longest line a ``game`` record on a ``size`` board may have here."""
    return POSITION_BUDGET // position_bytes(game, size)


def line_refusal(game: str, size: int, longest: int) -> str | None:
    """Why a record whose longest line has ``longest`` nodes is refused, or ``None``."""
    limit = max_line(game, size)
    if longest <= limit:
        return None
    kb = position_bytes(game, size) / 1024
    return (
        f"its longest line has {longest:,} moves; a {size}x{size} {_title(game)} board here "
        f"keeps at most {limit:,} ({kb:.0f} KB a position, {POSITION_BUDGET >> 20} MiB a board)"
    )


def node_refusal(nodes: int) -> str | None:
    """Why a game tree of ``nodes`` nodes is refused, or ``None``."""
    if nodes <= MAX_TREE_NODES:
        return None
    return f"it has {nodes:,} nodes; a game here has at most {MAX_TREE_NODES:,}"


def replay_when_read(game: str, size: int, nodes: int) -> bool:
    """Whether every position of a tree of ``nodes`` nodes fits the budget, so that it can be
    replayed (and its illegal moves found) when read."""
    return nodes * position_bytes(game, size) <= POSITION_BUDGET


def _title(game: str) -> str:
    return "Go" if game == "go" else "Othello"


def line_depths(parents: list[int]) -> int:
    """The longest line (nodes after the root) of a tree given as each node's parent index
    (parents before their children, -1 for the root)."""
    depth = [0] * len(parents)
    longest = 0
    for index, parent in enumerate(parents):
        if parent >= 0:
            d = depth[parent] + 1
            depth[index] = d
            if d > longest:
                longest = d
    return longest


class Positions:
    """The positions a board keeps: the line in use and the ``capacity`` nodes used most
    recently; the oldest others are dropped (and computed again when next asked for).

    Only nodes whose positions this object asked for are tracked; a tree replayed when read
    fits the budget whole (:func:`replay_when_read`).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = max(capacity, 1)
        self._held: OrderedDict[GameNode, None] = OrderedDict()

    @classmethod
    def for_board(cls, game: str, size: int) -> Positions:
        """A store with the budget's capacity for ``game`` on a ``size`` board."""
        return cls(max_line(game, size))

    def __len__(self) -> int:
        return len(self._held)

    def state(self, node: GameNode) -> GameState:
        """``node``'s position (raises as :attr:`GameNode.state` does)."""
        state = node.state
        held = self._held
        walk: GameNode | None = node
        while walk is not None and walk.parent is not None and walk not in held:
            held[walk] = None  # computed with it and kept by the tree
            walk = walk.parent
        return state

    def keep(self, node: GameNode) -> None:
        """Mark the line to ``node`` as in use, then drop the oldest others beyond capacity."""
        held = self._held
        path = node.path()
        for item in path:
            if item in held:
                held.move_to_end(item)
        protected = len([item for item in path if item in held])
        while len(held) > max(self.capacity, protected):
            oldest = next(iter(held))
            self._drop(oldest)

    def _drop(self, top: GameNode) -> None:
        """Forget the positions of ``top`` and of the nodes below it this store holds (they
        refer to it, so it would otherwise stay in memory)."""
        held = self._held
        stack = [top]
        while stack:
            node = stack.pop()
            if held.pop(node, 0) is None:
                node.forget_state()
                stack.extend(child for child in node.children if child in held)

    def clear(self) -> None:
        """Forget every tracked node (a new game replaced the tree)."""
        self._held.clear()
