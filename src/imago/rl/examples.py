"""Finished self-play games into the run folder: training examples and SGF.

Each finished game is written at once as its own example file (its positions encoded with the
network's feature set, the search's move distributions, the results), so a process killed at
any moment loses only games still being played. Every ``chunk_games`` games the files are merged
into one chunk (which lists the files it replaces, so a crash between the merge and the
deletes counts nothing twice) and the chunk's games are written as an SGF collection.
"""

from __future__ import annotations

import json
import os
import socket
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.files import atomic_write_text
from imago.core.move import Move
from imago.games import make
from imago.nn.dataset import ShardArrays, pack_rows
from imago.nn.features import FeatureSet, Positions
from imago.records.sgf import write_string
from imago.records.transcript import format_transcript
from imago.records.tree import Game, GameNode
from imago.rl.folder import CHUNK_PREFIX, GAME_PREFIX, RunFolder, merge_games, read_infos
from imago.rl.selfplay import FinishedGame, GameSpec

POLICY_COUNTS = 1023
"""Self-play's move distributions are kept as whole counts out of about this many, as visit
counts are (a probability below 1/2046 counts 0): the training target is the counts over
their sum in float16, and the counts themselves (``target_counts``) compress to a fraction
of the float16 values, which is what lets a run's compact checkpoint keep its window
(:mod:`imago.rl.checkpoint`)."""


def policy_counts(targets: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.uint16]:
    """``targets`` (rows of move probabilities) as whole counts (:data:`POLICY_COUNTS`)."""
    return np.rint(np.asarray(targets, dtype=np.float64) * POLICY_COUNTS).astype(np.uint16)


def policy_from_counts(counts: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float16]:
    """The training targets of rows of counts: each row over its sum, in float16 (the same
    bits on every machine)."""
    values = np.asarray(counts, dtype=np.float64)
    shares: npt.NDArray[np.float16] = (
        values / np.maximum(values.sum(axis=-1, keepdims=True), 1.0)
    ).astype(np.float16)
    return shares


def ownership_for(
    owners: npt.NDArray[np.int8], to_play: npt.NDArray[np.integer[Any]]
) -> npt.NDArray[np.int8]:
    """The ownership target of each example: ``owners`` (0 neither, 1 Black, 2 White) seen by
    its player to move (``to_play``: 1 or 2): 1 own, -1 the opponent's, 0 neither."""
    colour = np.asarray(to_play, dtype=np.int8)[:, None]
    owned = np.asarray(owners, dtype=np.int8)[None, :]
    return np.where(owned == 0, 0, np.where(owned == colour, 1, -1)).astype(np.int8)


def worker_name() -> str:
    """A name for this process's files, unique across machines sharing a folder."""
    host = socket.gethostname().split(".")[0].replace("-", "") or "host"
    return f"{host}{os.getpid()}t{int(time.time()) % 10**8}"


def worker_seed(seed: int, name: str) -> int:
    """A worker's seed: the same for the same run seed and worker name, on any machine."""
    return zlib.crc32(f"{seed}:{name}".encode())


def is_holdout(worker: str, index: int, fraction: float) -> bool:
    """Whether game ``index`` of ``worker`` is held out (a stable hash, not a random draw)."""
    return (zlib.crc32(f"{worker}:{index}".encode()) % 10_000) < fraction * 10_000


class ExactResults:
    """Exact results of late Othello positions from the endgame solver, to stand in for the
    game's result as value targets (:attr:`LoopConfig.exact_targets
    <imago.rl.config.LoopConfig.exact_targets>`): positions with at most ``empties`` empty
    squares on a ``size`` board (8 or 6). With ``backup``, the positions before the game's first
    solved position take its exact result too (:attr:`LoopConfig.exact_backup
    <imago.rl.config.LoopConfig.exact_backup>`)."""

    def __init__(self, empties: int, size: int, *, backup: bool = False) -> None:
        from imago.agents.othello.endgame import EndgameSolver

        self.empties = empties
        self.size = size
        self.backup = backup
        self._solver = EndgameSolver(table_bits=18)
        weights = 1 << (np.arange(size * size) // size * 8 + np.arange(size * size) % size)
        self._bits = weights.astype(np.uint64)
        self.solved = 0

    def lead(self, board: npt.NDArray[np.int8], to_play: int) -> int | None:
        """The final disc difference with perfect play for ``to_play`` (1 black, 2 white) from
        ``board`` (``size * size`` squares: 0 empty, 1 black, 2 white), or ``None`` when the
        board has more empty squares than the solver is asked to take."""
        if int(np.count_nonzero(board == 0)) > self.empties:
            return None
        player = int(np.bitwise_or.reduce(self._bits[board == to_play], initial=np.uint64(0)))
        opponent = int(np.bitwise_or.reduce(self._bits[board == 3 - to_play], initial=np.uint64(0)))
        self.solved += 1
        return self._solver.solve(player, opponent, size=self.size).score


def _value_targets(
    record: FinishedGame, to_play: npt.NDArray[np.int8], area: int, exact: ExactResults | None
) -> tuple[list[int], list[float], list[float], int]:
    """Each example's result, margin and searched value (in ``[-1, 1]``) for its player to
    move: the game's and the search's, or the exact ones where ``exact`` solves the position
    (and, with ``exact.backup``, the exact result of the game's first solved example for the
    examples before it); and how many were solved."""
    results = [record.outcome_for(int(c)) for c in to_play]
    margins = [record.margin_for(int(c), area) for c in to_play]
    searched = [2.0 * v - 1.0 for v in record.values]
    solved = 0
    first: tuple[int, int] | None = None
    if exact is not None:
        for i, color in enumerate(to_play):
            lead = exact.lead(record.boards[i][0], int(color))
            if lead is not None:
                results[i] = int(np.sign(lead))
                margins[i] = float(np.clip(lead / area, -1.0, 1.0))
                searched[i] = float(results[i])
                solved += 1
                if first is None:
                    first = (i, lead)
    if exact is not None and exact.backup and first is not None:
        index, lead = first
        for i in range(index):
            own = lead if to_play[i] == to_play[index] else -lead
            results[i] = int(np.sign(own))
            margins[i] = float(np.clip(own / area, -1.0, 1.0))
    return results, margins, searched, solved


def game_arrays(
    record: FinishedGame,
    features: FeatureSet,
    spec: GameSpec,
    info: dict[str, Any],
    exact: ExactResults | None = None,
) -> tuple[ShardArrays, dict[str, Any]]:
    """The examples of a finished game as shard arrays, and the extra arrays of its record
    (value targets from ``exact`` where it solves a position)."""
    size = spec.size
    n = len(record.targets)
    history = features.history
    solved = 0
    if n:
        boards = np.stack(record.boards)[:, :history].reshape(n, history, size, size)
        to_play = np.asarray(record.to_play, dtype=np.int8)
        legal = np.stack(record.legal)
        planes = features.encode(Positions(boards, to_play, legal))
        played = record.example_actions
        results, margins, searched, solved = _value_targets(record, to_play, size * size, exact)
        counts = policy_counts(np.stack(record.targets))
        assert record.owners is not None
        arrays = ShardArrays(
            pack_rows(planes),
            pack_rows(legal),
            np.asarray(played, dtype=np.int16),
            np.asarray(results, dtype=np.int8),
            np.zeros(n, dtype=np.int32),
            policy_from_counts(counts),
            np.asarray(margins, dtype=np.float16),
            np.asarray(searched, dtype=np.float16),
            ownership_for(record.owners, to_play),
        )
    else:
        bits = features.planes * size * size
        counts = np.zeros((0, size * size + 1), dtype=np.uint16)
        arrays = ShardArrays(
            np.zeros((0, (bits + 7) // 8), dtype=np.uint8),
            np.zeros((0, (size * size + 8) // 8), dtype=np.uint8),
            np.zeros(0, dtype=np.int16),
            np.zeros(0, dtype=np.int8),
            np.zeros(0, dtype=np.int32),
            np.zeros((0, size * size + 1), dtype=np.float16),
            np.zeros(0, dtype=np.float16),
            np.zeros(0, dtype=np.float16),
            np.zeros((0, size * size), dtype=np.int8),
        )
    infos = [
        {
            **info,
            "index": record.index,
            "actions": record.actions,
            "winner": record.winner,
            "score": record.score,
            "resigned": record.resigned,
            "examples": n,
            "example_moves": record.example_moves,
            "exact_examples": solved,
            "full_searches": record.full_searches,
            "fast_searches": record.fast_searches,
            "values": [round(v, 4) for v in record.values],
        }
    ]
    if record.start_moves:  # a game from a start position (imago.rl.starts) says which
        infos[0].update(start_moves=record.start_moves, start_key=record.start_key)
    return arrays, {
        "infos": np.frombuffer(json.dumps(infos).encode(), dtype=np.uint8),
        "target_counts": counts,
    }


def result_text(info: dict[str, Any]) -> str:
    """SGF's ``RE`` for a game record."""
    winner = int(info["winner"])
    if winner == 0:
        return "0"
    letter = Color(winner).letter
    if info.get("resigned"):
        return f"{letter}+R"
    return f"{letter}+{abs(float(info['score'])):g}"


def game_sgf(info: dict[str, Any], spec: GameSpec) -> Game:
    """A game record rebuilt from its moves (every move checked again by the rules)."""
    options: dict[str, Any] = {"size": spec.size}
    if spec.game == "go":
        options["rules"] = spec.go_rules()
    game = Game(make(spec.game, **options))
    game.set_text("PB", f"imago gen {info.get('generation', '?')}")
    game.set_text("PW", f"imago gen {info.get('generation', '?')}")
    game.set_text("RE", result_text(info))
    game.set_text("EV", "imago rl self-play")
    game.set_text("GN", f"{info.get('worker', '')}:{info['index']}")
    if spec.game == "go":
        game.set_text("KM", f"{spec.komi:g}")
        game.set_text("RU", spec.rules.capitalize())
    start = int(info.get("start_moves", 0))
    if start:
        game.set_text(
            "GC",
            f"self-play from move {start + 1}; moves 1-{start} from {info.get('start_key', '?')}",
        )
    node: GameNode = game
    for action in info["actions"]:
        node = node.add_variation(Move.from_action(int(action), spec.size))
    return game


class GameWriter:
    """Writes finished games of round ``round_`` into ``folder`` (see the module docstring);
    with ``exact_targets``, the value targets of Othello positions with at most that many
    empty squares come from the endgame solver (:class:`ExactResults`; with ``exact_backup``
    also those of the positions before them). Held-out games keep only their examples with a
    move target, so that the holdout's figures mean the same with and without value-only
    examples (:attr:`SelfPlayConfig.value_only_empties
    <imago.rl.selfplay.SelfPlayConfig.value_only_empties>`)."""

    def __init__(
        self,
        folder: RunFolder,
        round_: int,
        spec: GameSpec,
        features: FeatureSet,
        *,
        generation: int,
        holdout_fraction: float,
        chunk_games: int = 64,
        worker: str | None = None,
        exact_targets: int = 0,
        exact_backup: bool = False,
    ) -> None:
        self.folder = folder
        self.round = round_
        self.spec = spec
        self.features = features
        self.generation = generation
        self.holdout_fraction = holdout_fraction
        self.chunk_games = chunk_games
        self.worker = worker or worker_name()
        self.exact = (
            ExactResults(exact_targets, spec.size, backup=exact_backup) if exact_targets else None
        )
        self._pending: dict[bool, list[Path]] = {False: [], True: []}
        self._chunks = 0
        self.written = 0

    def add(self, record: FinishedGame) -> None:
        """Write one finished game (and merge a chunk once enough have gathered)."""
        holdout = is_holdout(self.worker, record.index, self.holdout_fraction)
        if holdout:  # the holdout measures what the window teaches, and stays comparable
            record = record.without_value_only()
        info = {"worker": self.worker, "generation": self.generation, "holdout": holdout}
        arrays, extras = game_arrays(record, self.features, self.spec, info, self.exact)
        name = f"{self.worker}-{record.index:07d}"
        path = self.folder.write_game(self.round, name, arrays, extras, holdout)
        self._pending[holdout].append(path)
        self.written += 1
        if len(self._pending[False]) + len(self._pending[True]) >= self.chunk_games:
            self.flush()

    def flush(self) -> None:
        """Merge the games written since the last chunk (and write their SGF)."""
        for holdout in (False, True):
            files = [p for p in self._pending[holdout] if p.is_file()]
            self._pending[holdout] = []
            if not files:
                continue
            self._chunks += 1
            kind = "holdout" if holdout else "train"
            name = f"{self.worker}-{self._chunks:05d}-{kind}"
            folder = self.folder.examples_dir(self.round, holdout)
            target = folder / f"{CHUNK_PREFIX}{name}.npz"
            infos = [info for path in files for info in read_infos(path)]
            merge_games(files, target)
            write_sgf(self.folder, self.round, name, infos, self.spec)


def write_sgf(
    folder: RunFolder, round_: int, name: str, infos: list[dict[str, Any]], spec: GameSpec
) -> None:
    """The games ``infos`` as an SGF collection ``games/ROUND/NAME.sgf`` and, for Othello,
    also as transcripts ``NAME.txt`` (one game a line, as WTHOR's tools write them),
    atomically."""
    games = [game_sgf(info, spec) for info in infos]
    _write_text(folder.games_dir(round_) / f"{name}.sgf", write_string(games))
    if spec.game == "othello":
        lines = [format_transcript(game.mainline_moves()) + "\n" for game in games]
        _write_text(folder.games_dir(round_) / f"{name}.txt", "".join(lines))


def _write_text(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, text)


def merge_leftovers(folder: RunFolder, round_: int, spec: GameSpec) -> int:
    """Merge the game files that killed processes left unmerged (and write their SGF);
    returns how many games were merged. Only for a folder no self-play worker is writing to
    (the loop does it when it starts)."""
    merged = 0
    for holdout in (False, True):
        files = [p for p in folder.example_files(round_, holdout) if p.name.startswith(GAME_PREFIX)]
        if not files:
            continue
        kind = "holdout" if holdout else "train"
        name = f"{worker_name()}-left-{kind}"
        infos = [info for path in files for info in read_infos(path)]
        merge_games(files, folder.examples_dir(round_, holdout) / f"{CHUNK_PREFIX}{name}.npz")
        write_sgf(folder, round_, name, infos, spec)
        merged += len(infos)
    return merged
