"""The page's copy of the game tree: sent whole once, then only what changed.

A state message carries the whole tree (:func:`imago.ui.web.view.tree_view` rows) when the
page has none or asked for it, nothing about the tree when it did not change (navigation,
analysis, clocks), and otherwise a ``tree_diff``: the rows added or changed, the ids removed,
and the new order of the children of each node whose children changed. ``base`` is the
version the diff applies to; a page holding another version asks for the whole state again.
Likewise the line through the current node is sent only when it changed.
"""

from __future__ import annotations

from typing import Any

from imago.records.tree import Game
from imago.ui.web.view import Json, NodeIds, tree_view

Row = tuple[Any, ...]


class TreeSync:
    """What the page was last sent of one tree, to send it the difference."""

    def __init__(self) -> None:
        self._rows: dict[int, Row] = {}
        self._children: dict[int, list[int]] = {}
        self._version: int | None = None
        self._line: list[int] | None = None

    def line(self, message: Json, line: list[int], *, full: bool) -> None:
        """The line through the current node, unless the page already has this very line
        (``line`` is then ``None``: the page keeps its own)."""
        if full or line != self._line:
            message["line"] = line
            self._line = line
        else:
            message["line"] = None

    def reset(self) -> None:
        """The page has no tree (a new connection, a new game)."""
        self._rows = {}
        self._children = {}
        self._version = None
        self._line = None

    def update(self, message: Json, game: Game, ids: NodeIds, version: int, *, full: bool) -> None:
        """Put the tree, its diff or nothing into the state ``message``."""
        if not full and self._version == version:
            return
        rows = tree_view(game, ids)
        old_rows, old_children = self._rows, self._children
        new_rows = {row[0]: tuple(row) for row in rows}
        children: dict[int, list[int]] = {}
        for row in rows:
            if row[1] is not None:
                children.setdefault(row[1], []).append(row[0])
        base = self._version
        self._rows, self._children, self._version = new_rows, children, version
        if full or base is None:
            message["tree"] = rows
            return
        changed = [list(row) for key, row in new_rows.items() if old_rows.get(key) != row]
        removed = [key for key in old_rows if key not in new_rows]
        order = {
            str(parent): kids
            for parent, kids in children.items()
            if old_children.get(parent) != kids
        }
        order.update({str(p): [] for p in old_children if p not in children and p in new_rows})
        message["tree_diff"] = {"base": base, "rows": changed, "remove": removed, "order": order}
