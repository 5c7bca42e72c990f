"""Building a dataset: filter recorded games, replay them, encode positions, write shards.

>>> config = BuildConfig(game="othello", size=8, features="legal4",
...                      split=SplitConfig(val_years=(2023, 2025)))      # doctest: +SKIP
>>> build_dataset([Path("shared/data/wthor")], Path("data/wthor"), config)  # doctest: +SKIP

Each unit of the sources (see :mod:`imago.train.sources`) becomes one shard per split, written
atomically, and is then recorded in the manifest; running the same build again skips the units
already recorded, so an interrupted build resumes. Games are assigned to the validation split
by year or by a stable hash of their key, never position by position. Numpy only.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, InvalidMoveError
from imago.core.game import GameState
from imago.core.move import Move
from imago.games import make
from imago.nn.dataset import (
    FORMAT,
    MANIFEST,
    VERSION,
    DatasetError,
    ShardArrays,
    atomic_write_json,
    pack_rows,
    write_shard,
)
from imago.nn.features import FeatureSet, feature_set, positions_from_game
from imago.train.sources import SgfReader, SourceError, SourceGame, Unit, discover_units

_RANK = re.compile(r"^\s*(\d+)\s*([kdp])", re.IGNORECASE)


def rank_value(text: str | None) -> int | None:
    """A comparable number for a rank: 30k = -29 ... 1k = 0, 1d = 1 ... 9d = 9, 1p = 11."""
    if not text:
        return None
    match = _RANK.match(text)
    if not match:
        return None
    number, kind = int(match[1]), match[2].lower()
    if kind == "k":
        return 1 - number
    if kind == "d":
        return number
    return 10 + number


@dataclass(frozen=True, slots=True)
class GameFilter:
    """Which recorded games to keep.

    ``rules`` lists accepted rule sets (lower case, e.g. ``("japanese", "chinese")``; empty:
    any); ``min_rank`` needs both players at least that rank (``"1d"``); ``require_result``
    drops void games and games without a result.
    """

    min_moves: int = 10
    rules: tuple[str, ...] = ()
    min_rank: str | None = None
    max_handicap: int = 0
    require_result: bool = True
    years: tuple[int, int] | None = None

    def reason_to_skip(self, game: SourceGame, name: str, size: int) -> str | None:
        """Why ``game`` is filtered out, or ``None`` to keep it."""
        if game.meta.get("game", name) != name:
            return "other game"
        if game.size != size:
            return "size"
        if len(game.moves) < self.min_moves:
            return "short"
        if self.require_result and not game.decided:
            return "no result"
        if game.handicap > self.max_handicap:
            return "handicap"
        if self.years is not None and (
            game.year is None or not self.years[0] <= game.year <= self.years[1]
        ):
            return "year"
        if self.rules:
            rules = str(game.meta.get("rules", "")).lower()
            if not any(rules.startswith(r) for r in self.rules):
                return "rules"
        if self.min_rank is not None and not _both_at_least(game, self.min_rank):
            return "rank"
        return None


@dataclass(frozen=True, slots=True)
class SplitConfig:
    """How games go to validation: by year range when ``val_years`` is set, else by hash."""

    val_fraction: float = 0.05
    val_years: tuple[int, int] | None = None
    val_min_rank: str | None = None
    """Only games whose players both hold at least this rank go to validation (the others of
    the hashed share are trained on): a held-out set of, say, dan games."""

    def is_validation(self, game: SourceGame) -> bool:
        if self.val_min_rank is not None and not _both_at_least(game, self.val_min_rank):
            return False
        if self.val_years is not None:
            return game.year is not None and self.val_years[0] <= game.year <= self.val_years[1]
        return game.split_hash() < self.val_fraction


def _both_at_least(game: SourceGame, rank: str) -> bool:
    floor = rank_value(rank)
    ranks = [rank_value(r) for r in game.meta.get("ranks", (None, None))]
    return floor is not None and all(r is not None and r >= floor for r in ranks)


@dataclass(frozen=True, slots=True)
class BuildConfig:
    """What to build: game, board size, feature set, filters and split."""

    game: str
    size: int
    features: str = "legal4"
    filter: GameFilter = field(default_factory=GameFilter)
    split: SplitConfig = field(default_factory=SplitConfig)
    chunk: int = 2000
    """SGF games per unit (the granularity of resuming)."""

    def settings(self) -> dict[str, Any]:
        """JSON-ready settings, stored in the manifest (a resumed build must match them)."""
        data = asdict(self)
        data.pop("chunk")
        settings: dict[str, Any] = json_ready(data)
        return settings


def json_ready(value: Any) -> Any:
    """Tuples to lists, recursively (so settings compare equal after a JSON round trip)."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


@dataclass(slots=True)
class BuildProgress:
    """Running totals of a build, passed to the progress callback after each unit."""

    units: int = 0
    units_skipped: int = 0
    games: int = 0
    positions: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    expected_games: int | None = None
    current: str = ""


@dataclass(slots=True)
class _Encoded:
    planes: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    legal: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    policy: list[npt.NDArray[np.int16]] = field(default_factory=list)
    value: list[npt.NDArray[np.int8]] = field(default_factory=list)
    game: list[npt.NDArray[np.int32]] = field(default_factory=list)
    games: int = 0

    def add(self, arrays: ShardArrays) -> None:
        self.planes.append(arrays.planes)
        self.legal.append(arrays.legal)
        self.policy.append(arrays.policy)
        self.value.append(arrays.value)
        self.game.append(np.full(len(arrays), self.games, dtype=np.int32))
        self.games += 1

    def arrays(self) -> ShardArrays:
        return ShardArrays(
            np.concatenate(self.planes),
            np.concatenate(self.legal),
            np.concatenate(self.policy),
            np.concatenate(self.value),
            np.concatenate(self.game),
        )


def _start_state(game: SourceGame, name: str, size: int) -> GameState:
    state = make(name, size=size)
    if game.setup_black or game.setup_white:
        to_play = game.colors[0] if game.colors else None
        state = state.with_setup(game.setup_black, game.setup_white, to_play=to_play)
    return state


class Labeller(Protocol):
    """Gives the training targets of a replayed game's positions (default: the record's).

    ``start(game)`` is called before a game, ``label(state, move)`` at each recorded decision
    (before ``move`` is played) and returns ``(action, value)`` or ``None`` to drop the
    position; ``played(color, move)`` after every move, passes included.
    """

    def start(self, game: SourceGame, state: GameState) -> None: ...

    def label(self, state: GameState, move: Move) -> tuple[int, int] | None: ...

    def played(self, color: Color, move: Move) -> None: ...


def replay_game(
    game: SourceGame,
    name: str,
    size: int,
    fs: FeatureSet,
    labeller: Labeller | None = None,
) -> ShardArrays | None:
    """Encode every recorded decision of ``game``; ``None`` if a move is illegal.

    Moves without colours alternate, and a move the side to move cannot play after a forced
    pass is preceded by that pass (WTHOR). A move played out of turn (SGF) is replayed but not
    used as a training position. Targets are the recorded move and the game's result for the
    mover, unless a ``labeller`` gives others.
    """
    boards: list[npt.NDArray[np.int8]] = []
    to_play: list[int] = []
    legal: list[npt.NDArray[np.bool_]] = []
    actions: list[int] = []
    values: list[int] = []
    kept: list[int] = []
    try:
        state = _start_state(game, name, size)
        if labeller is not None:
            labeller.start(game, state)
        for index, move in enumerate(game.moves):
            color = game.colors[index] if game.colors is not None else None
            implicit_pass = color is None and move.is_play and not state.is_legal(move)
            if implicit_pass and state.is_legal(Move.PASS):
                mover = state.to_play
                state = state.play(Move.PASS)
                if labeller is not None:
                    labeller.played(mover, Move.PASS)
            if color is None or color == state.to_play:
                target = _target(game, state, move, size, labeller)
                if target is not None:
                    kept.append(len(boards))
                    actions.append(target[0])
                    values.append(target[1])
            boards.append(state.board())
            to_play.append(int(state.to_play))
            legal.append(state.legal_mask())
            mover = color or state.to_play
            state = state.play(move, color)
            if labeller is not None:
                labeller.played(mover, move)
    except (IllegalMoveError, InvalidMoveError):
        return None
    if not kept:
        return None
    positions = positions_from_game(boards, to_play, legal, fs.history, kept)
    policy = np.asarray(actions, dtype=np.int16)
    if not positions.legal[np.arange(len(kept)), policy].all():
        return None  # a target the rules refuse (a labeller's engine with other rules)
    return ShardArrays(
        pack_rows(fs.encode(positions)),
        pack_rows(positions.legal),
        policy,
        np.asarray(values, dtype=np.int8),
        np.zeros(len(kept), dtype=np.int32),
    )


def _target(
    game: SourceGame, state: GameState, move: Move, size: int, labeller: Labeller | None
) -> tuple[int, int] | None:
    if labeller is not None:
        return labeller.label(state, move)
    if game.winner is None:
        return move.to_action(size), 0
    return move.to_action(size), 1 if state.to_play == game.winner else -1


ProgressCallback = Callable[[BuildProgress], None]


def _load_manifest(
    out: Path, config: BuildConfig, fs: FeatureSet, label_settings: dict[str, Any] | None
) -> dict[str, Any]:
    path = out / MANIFEST
    settings = config.settings()
    if label_settings is not None:
        settings["labels"] = json_ready(label_settings)
    if path.is_file():
        manifest: dict[str, Any] = json.loads(path.read_text())
        if manifest.get("format") != FORMAT:
            raise DatasetError(f"{path} is not an imago dataset manifest")
        if manifest.get("settings") != settings:
            raise DatasetError(
                f"the dataset at {out} was built with other settings; use a new folder"
            )
        return manifest
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": config.game,
        "size": config.size,
        "features": fs.name,
        "planes": fs.planes,
        "settings": settings,
        "units": [],
        "complete": False,
    }


def build_dataset(
    sources: Sequence[Path],
    out: Path,
    config: BuildConfig,
    *,
    sgf_reader: SgfReader | None = None,
    progress: ProgressCallback | None = None,
    limit_games: int | None = None,
    labeller: Labeller | None = None,
    label_settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build (or resume building) the dataset at ``out``; return its manifest.

    With a ``labeller`` the targets come from it (an engine, see :mod:`imago.train.label`);
    ``label_settings`` describe it in the manifest so a resumed build uses the same one.

    Raises :class:`DatasetError` (or :class:`SourceError`) before creating anything when a
    source is missing or empty; raises :class:`DatasetError` at the end if no position was kept.
    """
    fs = feature_set(config.features, config.game)
    if not sources:
        raise SourceError("no game sources given")
    units: list[Unit] = []
    for source in sources:
        units.extend(discover_units(source, config.game, config.size, sgf_reader=sgf_reader))
    created = not out.exists()
    manifest = _load_manifest(out, config, fs, label_settings)
    done = {unit["name"] for unit in manifest["units"]}
    status = BuildProgress(expected_games=_expected(units))
    for unit in manifest["units"]:
        status.games += unit["games"]
        status.positions += unit["positions"]
        status.units_skipped += 1
    out.mkdir(parents=True, exist_ok=True)
    for number, unit in enumerate(units):
        if limit_games is not None and status.games >= limit_games:
            break
        if unit.name in done:
            continue
        status.current = unit.name
        entry = _build_unit(unit, number, out, config, fs, status, limit_games, labeller)
        manifest["units"].append(entry)
        manifest["complete"] = False
        atomic_write_json(out / MANIFEST, manifest)
        status.units += 1
        if progress is not None:
            progress(status)
    if sum(unit["positions"] for unit in manifest["units"]) == 0:
        if created:
            shutil.rmtree(out, ignore_errors=True)
        hint = ""
        if status.rejected.get("other game"):
            other = "othello" if config.game == "go" else "go"
            hint = f"; the records hold games other than {config.game}: try --game {other}"
        elif status.rejected.get("size"):
            hint = f"; the records are not {config.size}x{config.size}: set --size"
        raise DatasetError(
            f"no game survived the filters ({_reasons(status)}): nothing to build{hint}"
        )
    manifest["complete"] = True
    manifest["rejected"] = status.rejected
    atomic_write_json(out / MANIFEST, manifest)
    return manifest


def _reasons(status: BuildProgress) -> str:
    if not status.rejected:
        return "no games read"
    return ", ".join(f"{count} {reason}" for reason, count in sorted(status.rejected.items()))


def _expected(units: list[Unit]) -> int | None:
    counts = [unit.games for unit in units]
    return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)


def _build_unit(
    unit: Unit,
    number: int,
    out: Path,
    config: BuildConfig,
    fs: FeatureSet,
    status: BuildProgress,
    limit_games: int | None,
    labeller: Labeller | None,
) -> dict[str, Any]:
    started = time.perf_counter()
    splits = {"train": _Encoded(), "val": _Encoded()}
    for game in unit.load():
        if limit_games is not None and status.games >= limit_games:
            break
        reason = config.filter.reason_to_skip(game, config.game, config.size)
        encoded = None if reason else replay_game(game, config.game, config.size, fs, labeller)
        if encoded is None:
            reason = reason or "illegal move"
            status.rejected[reason] = status.rejected.get(reason, 0) + 1
            continue
        split = "val" if config.split.is_validation(game) else "train"
        splits[split].add(encoded)
        status.games += 1
        status.positions += len(encoded)
    shards = []
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", unit.name)
    for split, chunk in splits.items():
        if not chunk.games:
            continue
        arrays = chunk.arrays()
        file = f"{number:05d}-{stem}-{split}.npz"
        write_shard(out / file, arrays)
        shards.append(
            {"file": file, "split": split, "games": chunk.games, "positions": len(arrays)}
        )
    return {
        "name": unit.name,
        "games": sum(s["games"] for s in shards),
        "positions": sum(s["positions"] for s in shards),
        "shards": shards,
        "seconds": round(time.perf_counter() - started, 2),
    }
