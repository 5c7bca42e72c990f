"""Game records: the move tree with variations, SGF (Go and Othello), WTHOR and transcripts.

Layers, each importing only the ones before it:

* :mod:`~imago.records.tree` -- :class:`Game` / :class:`GameNode` / :class:`Cursor`, the tree
  both games share (positions cached per node);
* :mod:`~imago.records.sgf_grammar` -> :mod:`~imago.records.sgf_properties` ->
  :mod:`~imago.records.sgf` -- SGF bytes -> raw trees -> values -> games, and back;
* :mod:`~imago.records.wthor` -- the WTHOR Othello database (``.wtb``, ``.JOU``, ``.TRN``);
* :mod:`~imago.records.transcript` -- Othello move transcripts (``f5d6c3``) and the eOthello CSV;
* :mod:`~imago.records.files` -- any of these by file extension, folders and tar.gz archives.

>>> from imago.records import sgf
>>> game = sgf.read_game("(;SZ[9];B[ee];W[dd])")
>>> [move.to_gtp(9) for move in game.mainline_moves()]
['E5', 'D6']
"""

from __future__ import annotations

from imago.records.sgf_grammar import SgfError
from imago.records.tree import Cursor, Game, GameNode, RecordError, Setup

__all__ = ["Cursor", "Game", "GameNode", "RecordError", "Setup", "SgfError"]
