"""Start positions: self-play games that begin part-way through recorded games.

A network learns only the positions its own games reach. Against another engine it meets
others: a strong opponent steers into endings that self-play never plays out, and there its
value can be wrong where it is right on its own games. KataGo starts a share of its self-play
games from positions of external games for this reason (Wu 2019, "Accelerating Self-Play
Learning in Go", and its ``startPosesFromSgfDir`` setting). Here the records are SGF games
(``imago match`` writes them, against GNU Go or Pachi, say) or any record
:func:`imago.train.sources.discover_units` reads; a share of self-play games
(:attr:`~imago.rl.selfplay.SelfPlayConfig.start_fraction`) replays a random number of a
random record's opening moves (:func:`start_actions`; later ones more often with
:attr:`~imago.rl.selfplay.SelfPlayConfig.start_turn_weight` below 0) and plays on from
there. Both sides are the network; the game's result and final ownership are counted as
every self-play game's are, so the value head learns from how such positions really end.

A record gives its longest legal beginning under the run's rules: the moves up to the first
pass in Go (two passes would end the game), a move out of turn, an illegal move or the end.
Games with setup stones or another board size give none.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from imago.rl.folder import RunError
from imago.train.sources import SourceError, SourceGame, discover_units

if TYPE_CHECKING:
    from imago.rl.config import LoopConfig
    from imago.rl.selfplay import GameSpec


@dataclass(frozen=True, slots=True)
class StartGame:
    """A recorded game's beginning: ``actions`` that self-play may replay (any number of
    them, from the first), and the record's ``key`` (its file name)."""

    key: str
    actions: tuple[int, ...]


def start_games(config: LoopConfig) -> tuple[StartGame, ...]:
    """The games a run's self-play starts part-way through: those of ``start_records``, or
    none unless ``selfplay.start_fraction`` asks for them. Read once a process while the files
    stay as they were (the loop starts self-play every round; five years of WTHOR take about
    10 s to check)."""
    if config.selfplay.start_fraction <= 0:
        return ()
    stamps = tuple(_stamp(Path(path)) for path in config.start_records)
    return _read_once(config.start_records, config.spec, stamps)


def _stamp(path: Path) -> tuple[int, int]:
    """What changes when a file is written again (``(0, 0)`` for a missing one: reading it
    says so)."""
    try:
        stat = path.stat()
    except OSError:
        return (0, 0)
    return (stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _read_once(
    paths: tuple[str, ...], spec: GameSpec, stamps: tuple[tuple[int, int], ...]
) -> tuple[StartGame, ...]:
    del stamps  # part of the cache's key only
    return tuple(load_start_games(paths, spec))


def load_start_games(paths: tuple[str, ...], spec: GameSpec) -> list[StartGame]:
    """The beginnings of the games in ``paths`` (SGF files, folders or archives) that give at
    least one legal move under ``spec``'s rules; :class:`RunError` when a path cannot be read
    or none gives one."""
    from imago.train.sgf_source import read_sgf_game

    found: list[StartGame] = []
    for path in paths:
        try:
            units = list(discover_units(Path(path), spec.game, spec.size, sgf_reader=read_sgf_game))
        except (SourceError, OSError) as error:
            raise RunError(f"start records {path}: {error}") from None
        for unit in units:
            for game in unit.load():
                actions = legal_beginning(game, spec)
                if actions:
                    found.append(StartGame(game.key, actions))
    if paths and not found:
        raise RunError(
            f"the start records ({', '.join(paths)}) hold no game of {spec.game} on "
            f"{spec.size}x{spec.size} with a legal first move"
        )
    return found


def legal_beginning(game: SourceGame, spec: GameSpec) -> tuple[int, ...]:
    """The actions of ``game``'s longest beginning that self-play's batch accepts under
    ``spec``'s rules and that leaves the game unfinished (see the module docstring); ``()``
    for a game with setup stones or of another board size."""
    if game.size != spec.size or game.setup_black or game.setup_white:
        return ()
    batch = spec.new_batch(1, 1, 0)
    size = spec.size
    kept: list[int] = []
    for index, move in enumerate(game.moves):
        if move.is_resign or (spec.game == "go" and move.is_pass):
            break
        color = game.colors[index] if game.colors is not None else None
        if color is not None and int(color) != int(batch.to_play()[0]):
            break
        action = move.to_action(size)
        legal = batch.legal_mask()[0]
        if color is None and not legal[action] and legal[size * size]:
            kept.append(size * size)  # a forced pass the record leaves out (WTHOR)
            batch.step(np.array([size * size]))
            legal = batch.legal_mask()[0]
        if not legal[action] or batch.step(np.array([action]))[0] != 0:
            break
        if bool(batch.done[0]):
            break  # the last move ended the game: nothing is left to play
        kept.append(action)
    while kept and kept[-1] == size * size:
        kept.pop()  # a beginning ends with a move, not with a pass
    return tuple(kept)


def start_actions(
    game: StartGame, rng: np.random.Generator, turn_weight: float = 0.0
) -> tuple[int, ...]:
    """A beginning of ``game`` for one self-play game: its first ``k`` actions, ``k`` from 1 to
    all of them with weight ``exp(-turn_weight * k)``, as KataGo weights its start positions
    (``startPosesTurnWeightLambda``), but within the chosen record. 0: uniform; below 0:
    later beginnings more often (-0.1 puts about 63 % of the draws in a record's last ten
    moves)."""
    count = len(game.actions)
    if turn_weight == 0:
        return game.actions[: int(rng.integers(1, count + 1))]
    logits = -turn_weight * np.arange(1, count + 1, dtype=np.float64)
    weights = np.exp(logits - logits.max())
    moves = 1 + int(rng.choice(count, p=weights / weights.sum()))
    return game.actions[:moves]
