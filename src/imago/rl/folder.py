"""The run folder: the one source of truth of a reinforcement-learning run.

Every stage reads what it needs from the folder and writes what it makes back into it,
atomically (a temporary file, then a rename), so any process can die at any moment and a
restart (or another process: a trainer and several self-play workers can share a folder) reads
what is there. The layout, in the spirit of MiniGo's::

    RUN/
      run.json                 the game and the loop's settings (written once)
      best.json                the promoted generation, and the promotions so far
      metrics.jsonl            one JSON line per event (self-play, training, validation, ...)
      models/000003.pt         generation 3's network (an imago model file)
      models/000003.onnx       the same, for ONNX Runtime
      models/000003.json       its lineage: parent, training steps, examples seen, how made
      examples/000003/*.npz    training examples of round 3 (made while 3 was the newest
                               model): one file per finished game (``g-*``), merged into
                               chunks (``c-*``) that list the game files they replace
      holdout/000003/*.npz     the same for the games held out from training
      games/000003/*.sgf       the games of each chunk as SGF (Go and Othello alike), and
                               for Othello as transcripts (*.txt, one game a line)
      train/checkpoint.pt      the trainer's state (weights, optimiser, its step counts)
      eval/000004/             the gating match of generation 4 against the best (an
                               ``imago match`` folder: resumable on its own)
      refs/000004/<label>/     generation 4's matches against fixed references
      validation/              real-record datasets built once (validation, train_records)
      plots/*.png              curves drawn from metrics.jsonl

A generation's number is its place in the line of trained models (0: the bootstrap network).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.core.errors import ImagoError
from imago.nn.dataset import ShardArrays, atomic_write_json, read_shard, write_shard

FORMAT = "imago-rl-run"
VERSION = 1
GAME_PREFIX = "g-"
CHUNK_PREFIX = "c-"


class RunError(ImagoError, ValueError):
    """A run folder that is missing, broken or of another game or version."""


def generation_name(generation: int) -> str:
    return f"{generation:06d}"


class RunFolder:
    """A run folder (see the module docstring). Creating the object touches nothing."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    # -- paths -------------------------------------------------------------------------------------
    @property
    def run_path(self) -> Path:
        return self.root / "run.json"

    @property
    def best_path(self) -> Path:
        return self.root / "best.json"

    @property
    def metrics_path(self) -> Path:
        return self.root / "metrics.jsonl"

    @property
    def checkpoint_path(self) -> Path:
        return self.root / "train" / "checkpoint.pt"

    def model_path(self, generation: int, suffix: str = ".pt") -> Path:
        return self.root / "models" / f"{generation_name(generation)}{suffix}"

    def examples_dir(self, round_: int, holdout: bool = False) -> Path:
        return self.root / ("holdout" if holdout else "examples") / generation_name(round_)

    def games_dir(self, round_: int) -> Path:
        return self.root / "games" / generation_name(round_)

    def eval_dir(self, generation: int) -> Path:
        return self.root / "eval" / generation_name(generation)

    def refs_dir(self, generation: int) -> Path:
        return self.root / "refs" / generation_name(generation)

    @property
    def plots_dir(self) -> Path:
        return self.root / "plots"

    @property
    def validation_dir(self) -> Path:
        return self.root / "validation"

    # -- the run's settings ------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.run_path.is_file()

    def create(self, settings: dict[str, Any]) -> None:
        """Write ``run.json`` for a new run (refusing a folder that holds another run)."""
        if self.exists():
            raise RunError(f"{self.root} already holds a run")
        if self.root.exists() and any(self.root.iterdir()):
            raise RunError(f"{self.root} is not empty and holds no run: choose another folder")
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.run_path, {"format": FORMAT, "version": VERSION, **settings})

    def replace_settings(self, settings: dict[str, Any]) -> None:
        """Write ``run.json`` again with ``settings`` (atomically; the run must exist)."""
        self.settings()  # an existing, readable run
        atomic_write_json(self.run_path, {"format": FORMAT, "version": VERSION, **settings})

    def settings(self) -> dict[str, Any]:
        """The run's settings; :class:`RunError` when the folder holds no readable run."""
        if not self.run_path.is_file():
            raise RunError(f"no run at {self.root} (no run.json): start one with `imago rl init`")
        try:
            data = json.loads(self.run_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise RunError(f"{self.run_path} is unreadable: {error}") from None
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise RunError(f"{self.run_path} is not an imago run (version {VERSION})")
        return dict(data)

    # -- models ------------------------------------------------------------------------------------
    def generations(self) -> list[int]:
        """The generations whose network is complete (weights and lineage), ascending."""
        folder = self.root / "models"
        if not folder.is_dir():
            return []
        found = []
        for path in folder.glob("*.json"):
            if path.stem.isdigit() and path.with_suffix(".pt").is_file():
                found.append(int(path.stem))
        return sorted(found)

    def latest(self) -> int | None:
        generations = self.generations()
        return generations[-1] if generations else None

    def lineage(self, generation: int) -> dict[str, Any]:
        path = self.model_path(generation, ".json")
        try:
            return dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as error:
            raise RunError(f"{path} is unreadable: {error}") from None

    def write_lineage(self, generation: int, lineage: dict[str, Any]) -> None:
        """Written last: a generation exists once its lineage file does."""
        atomic_write_json(self.model_path(generation, ".json"), lineage)

    def best(self) -> int | None:
        """The promoted generation (the one self-play plays), ``None`` before bootstrap."""
        if not self.best_path.is_file():
            return None
        try:
            return int(json.loads(self.best_path.read_text(encoding="utf-8"))["generation"])
        except (OSError, ValueError, KeyError) as error:
            raise RunError(f"{self.best_path} is unreadable: {error}") from None

    def promote(self, generation: int, reason: str) -> None:
        history: list[dict[str, Any]] = []
        if self.best_path.is_file():
            history = json.loads(self.best_path.read_text(encoding="utf-8")).get("history", [])
        history.append({"generation": generation, "reason": reason, "time": time.time()})
        atomic_write_json(self.best_path, {"generation": generation, "history": history})

    # -- metrics -----------------------------------------------------------------------------------
    def log(self, event: str, **data: Any) -> dict[str, Any]:
        """Append one line to ``metrics.jsonl`` (one write; a torn last line is skipped by
        :meth:`metrics`)."""
        row = {"event": event, "time": round(time.time(), 3), **data}
        line = (json.dumps(row, default=_jsonable) + "\n").encode()
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.metrics_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        return row

    def metrics(self, event: str | None = None) -> list[dict[str, Any]]:
        """The logged rows (of one ``event`` kind), oldest first."""
        if not self.metrics_path.is_file():
            return []
        rows = []
        for line in self.metrics_path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a line torn by a crash
            if isinstance(row, dict) and (event is None or row.get("event") == event):
                rows.append(row)
        return rows

    # -- examples ----------------------------------------------------------------------------------
    def write_game(
        self,
        round_: int,
        name: str,
        arrays: ShardArrays,
        extras: dict[str, npt.NDArray[np.generic]],
        holdout: bool,
    ) -> Path:
        """One finished game's examples (``g-NAME.npz``), atomically."""
        folder = self.examples_dir(round_, holdout)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{GAME_PREFIX}{name}.npz"
        write_shard(path, arrays, extras)
        return path

    def example_files(self, round_: int, holdout: bool = False) -> list[Path]:
        """The round's example files, each position once: the chunks, and the game files no
        chunk has taken in yet."""
        folder = self.examples_dir(round_, holdout)
        if not folder.is_dir():
            return []
        # game files first: one merged into a chunk after this listing is then named by the
        # chunk's sources and left out (listed the other way round, it could be missed)
        games = sorted(folder.glob(f"{GAME_PREFIX}*.npz"))
        chunks = sorted(folder.glob(f"{CHUNK_PREFIX}*.npz"))
        merged: set[str] = set()
        for chunk in chunks:
            merged.update(chunk_sources(chunk))
        return chunks + [p for p in games if p.name not in merged]

    def games_in_round(self, round_: int) -> int:
        """Finished self-play games of a round (held-out games included)."""
        return sum(
            count_games(path)
            for holdout in (False, True)
            for path in self.example_files(round_, holdout)
        )


def chunk_sources(path: Path) -> list[str]:
    """The game files a chunk holds (read from its ``sources`` array)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return [str(name) for name in data["sources"]] if "sources" in data.files else []
    except (OSError, ValueError, KeyError, EOFError):
        return []


def count_games(path: Path) -> int:
    """Games in an example file (its ``infos`` entries)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return len(json.loads(bytes(data["infos"]).decode())) if "infos" in data.files else 0
    except (OSError, ValueError, KeyError, EOFError):
        return 0


def read_counts(path: Path) -> npt.NDArray[np.uint16] | None:
    """The move distributions of an example file as whole counts (``None`` in files written
    before they were kept: see :data:`imago.rl.examples.POLICY_COUNTS`)."""
    with np.load(path, allow_pickle=False) as data:
        return data["target_counts"] if "target_counts" in data.files else None


def read_infos(path: Path) -> list[dict[str, Any]]:
    """The game records (moves, result, ...) an example file holds."""
    with np.load(path, allow_pickle=False) as data:
        infos: list[dict[str, Any]] = json.loads(bytes(data["infos"]).decode())
    return infos


def merge_games(files: list[Path], target: Path) -> ShardArrays:
    """Write the games of ``files`` (game files of one folder) as one chunk at ``target``,
    listing them as its sources, then delete them; returns the merged arrays."""
    parts = [read_shard(path) for path in files]
    infos: list[dict[str, Any]] = []
    offset = 0
    for path, part in zip(files, parts, strict=True):
        part.game[:] = part.game + offset  # renumber games within the chunk
        file_infos = read_infos(path)
        infos.extend(file_infos)
        offset += len(file_infos)
    merged = ShardArrays.concat(parts)
    extras = {
        "sources": np.array([p.name for p in files]),
        "infos": np.frombuffer(json.dumps(infos).encode(), dtype=np.uint8),
    }
    counts = [read_counts(path) for path in files]
    if all(part is not None for part in counts):
        extras["target_counts"] = np.concatenate(counts)  # type: ignore[arg-type]
    write_shard(target, merged, extras)
    for path in files:
        path.unlink(missing_ok=True)
    return merged


def iter_round_files(folder: RunFolder, rounds: list[int], holdout: bool) -> Iterator[Path]:
    for round_ in rounds:
        yield from folder.example_files(round_, holdout)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")
