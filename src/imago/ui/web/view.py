"""What the page draws, as JSON-ready values: pure functions of positions, trees and searches.

Like python-chess's ``svg.py`` the drawing itself lives elsewhere (the page's ``board.js``);
these functions only say what there is to draw. Points travel as ``[row, col]`` with row 0 at
the top, as :class:`imago.core.Point` has them; moves as the game's own notation (Go: GTP
vertex, ``D4``; Othello: ``f5``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from imago.agents.base import Candidate, SearchResult
from imago.core.color import Color
from imago.core.game import GameState, Outcome
from imago.core.move import Move, Point
from imago.records.tree import Game, GameNode

Json = dict[str, Any]


class NodeIds:
    """Stable integer ids for the nodes of one tree, so the page can name them."""

    def __init__(self) -> None:
        self._ids: dict[GameNode, int] = {}
        self._nodes: dict[int, GameNode] = {}

    def id_of(self, node: GameNode) -> int:
        """The node's id (given on first use)."""
        found = self._ids.get(node)
        if found is None:
            found = len(self._nodes)
            self._ids[node] = found
            self._nodes[found] = node
        return found

    def node(self, node_id: object) -> GameNode | None:
        """The node with this id, or ``None`` (also for ids of removed nodes)."""
        if not isinstance(node_id, int) or isinstance(node_id, bool):
            return None
        node = self._nodes.get(node_id)
        if node is None or (node.parent is None and not isinstance(node, Game)):
            return None
        return node


def point(p: Point | None) -> list[int] | None:
    """``[row, col]`` or ``None``."""
    return None if p is None else [p.row, p.col]


def points(ps: Iterable[Point]) -> list[list[int]]:
    """``[[row, col], ...]`` in reading order."""
    return [[p.row, p.col] for p in sorted(ps)]


def move_text(game: str, size: int, move: Move) -> str:
    """A move in the game's notation: ``D4`` / ``f5``, ``pass``, ``resign``."""
    if not move.is_play:
        return move.kind.value
    return move.to_algebraic() if game == "othello" else move.to_gtp(size)


def board_string(state: GameState) -> str:
    """The board as one character per point in reading order: ``0`` empty, ``1`` black,
    ``2`` white."""
    return "".join(str(int(v)) for v in state.board().reshape(-1).tolist())


def legal_string(state: GameState) -> str:
    """``1`` for each point the side to move may play on, ``0`` elsewhere (reading order)."""
    mask = state.legal_mask()[:-1]
    return "".join("1" if v else "0" for v in mask.tolist())


def counts(state: GameState) -> Json:
    """Discs on the board (Othello) or stones captured (Go), by colour letter."""
    if state.game == "go":
        captures = getattr(state, "captures", None)
        if captures is None:
            return {"B": 0, "W": 0}
        return {"B": int(captures(Color.BLACK)), "W": int(captures(Color.WHITE))}
    board = state.board()
    return {"B": int((board == Color.BLACK).sum()), "W": int((board == Color.WHITE).sum())}


def outcome_view(outcome: Outcome | None) -> Json | None:
    """The result with its totals."""
    if outcome is None:
        return None
    return {
        "result": outcome.result(),
        "winner": None if outcome.winner is None else outcome.winner.letter,
        "margin": outcome.margin,
        "black": outcome.black_score,
        "white": outcome.white_score,
        "resignation": outcome.by_resignation,
    }


def position_view(state: GameState, node: GameNode) -> Json:
    """Everything about one position that the board and the status line show."""
    last = state.last_move
    ko = getattr(state, "ko_point", None)
    passed = node.move is not None and node.move.is_pass
    # An Othello record gives no pass node: the same colour moving twice means the other passed.
    parent = node.parent
    implicit_pass = (
        state.game == "othello"
        and node.color is not None
        and parent is not None
        and parent.color == node.color
    )
    return {
        "board": board_string(state),
        "to_play": state.to_play.letter,
        "move_number": state.move_number,
        "last": point(last.point) if last is not None else None,
        "last_color": node.color.letter if node.color is not None else None,
        "passed": passed,
        "implicit_pass": implicit_pass,
        "legal": legal_string(state),
        "ko": point(ko) if ko is not None else None,
        "counts": counts(state),
        "over": state.is_over(),
        "must_pass": state.game == "othello"
        and not state.is_over()
        and not any(m.is_play for m in state.legal_moves()),
    }


def node_label(game: Game, node: GameNode) -> str:
    """The move list's text for a node: ``D4``, ``pass``, ``setup``."""
    if node.move is not None:
        return move_text(game.game_name, game.size, node.move)
    if node.parent is None:
        return "start"
    return "setup" if node.setup else "-"


def tree_view(game: Game, ids: NodeIds) -> list[list[Any]]:
    """Every node in document order: ``[id, parent id, label, colour, move number, flags]``,
    flags ``c`` (has a comment) and ``!`` (illegal move kept from a record)."""
    rows: list[list[Any]] = []
    numbers: dict[GameNode, int] = {}
    for node in game.walk():
        parent = node.parent
        number = numbers.get(parent, 0) if parent is not None else 0
        if node.move is not None:
            number += 1
        numbers[node] = number
        flags = ("c" if node.get("C") else "") + ("!" if node.illegal is not None else "")
        rows.append(
            [
                ids.id_of(node),
                None if parent is None else ids.id_of(parent),
                node_label(game, node),
                node.color.letter if node.color is not None else None,
                number,
                flags,
            ]
        )
    return rows


def line_ids(node: GameNode, ids: NodeIds) -> list[int]:
    """The ids of the line through ``node``: its path from the root, then its main line."""
    return [ids.id_of(n) for n in node.path()] + [ids.id_of(n) for n in node.mainline()]


def candidate_view(game: str, size: int, candidate: Candidate, *, exact: bool = False) -> Json:
    """One candidate move of a search, with its principal variation."""
    return {
        "move": move_text(game, size, candidate.move),
        "point": point(candidate.move.point),
        "visits": candidate.visits,
        "winrate": candidate.winrate,
        "prior": candidate.prior,
        "value": candidate.value,
        "pv": [move_text(game, size, m) for m in candidate.pv],
        "pv_points": [point(m.point) for m in candidate.pv],
        "exact": exact,
    }


def result_view(
    game: str, size: int, result: SearchResult, candidates: Sequence[Candidate] | None = None
) -> Json:
    """A search result: the chosen move, its figures and the candidates, best first."""
    chosen = list(result.candidates if candidates is None else candidates)
    return {
        "move": move_text(game, size, result.move),
        "point": point(result.move.point),
        "winrate": result.winrate,
        "value": result.value,
        "pv": [move_text(game, size, m) for m in result.pv],
        "nodes": result.nodes,
        "depth": result.depth,
        "seconds": round(result.seconds, 3),
        "candidates": [candidate_view(game, size, c) for c in chosen],
    }
