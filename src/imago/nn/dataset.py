"""Training datasets on disk: compressed ``.npz`` shards plus a JSON manifest (never pickle).

A dataset folder holds ``manifest.json`` and shards ``<unit>-<split>.npz``, each with arrays

=========  ==========================  =========================================================
key        dtype, shape                meaning
=========  ==========================  =========================================================
planes     uint8 ``(n, ceil(P*N*N/8))`` the feature planes, bit-packed (``np.packbits``, little)
legal      uint8 ``(n, ceil(A/8))``    the legal-action mask, bit-packed (``A = N*N + 1``)
policy     int16 ``(n,)``              the action played (the policy target)
value      int8 ``(n,)``               the game result for the player to move: 1, 0, -1
game       int32 ``(n,)``              the game's number within its shard
target     float16 ``(n, A)``          optional: a move distribution (self-play's search
                                       policy) to learn instead of the move played
margin     float16 ``(n,)``            optional: the game's final margin for the player to
                                       move, over the board's area, in ``[-1, 1]`` (self-play)
searched   float16 ``(n,)``            optional: the search's value of the position for the
                                       player to move, in ``[-1, 1]`` (self-play)
ownership  int8 ``(n, N*N)``           optional: who owned each point when the game ended, for
                                       the player to move: 1 own, -1 the opponent's, 0 neither
                                       (self-play; KataGo's ownership target)
=========  ==========================  =========================================================

A writer may add other arrays (self-play keeps its games' moves and results there); readers
ignore keys they do not know.

Splits (``train`` / ``val``) are by game: every position of a game lands in the same split.
The manifest lists finished units (a source file, or a chunk of an archive), so an interrupted
build resumes where it stopped. Numpy only: no torch here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.core.errors import ImagoError
from imago.core.files import atomic_path, atomic_write_text

FORMAT = "imago-dataset"
VERSION = 1
MANIFEST = "manifest.json"
SPLITS = ("train", "val")


class DatasetError(ImagoError, ValueError):
    """A dataset that is missing, empty, foreign or inconsistent."""


def atomic_write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON, written atomically."""
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


@dataclass(slots=True)
class ShardArrays:
    """The arrays of one shard (or of a whole split once concatenated)."""

    planes: npt.NDArray[np.uint8]
    legal: npt.NDArray[np.uint8]
    policy: npt.NDArray[np.int16]
    value: npt.NDArray[np.int8]
    game: npt.NDArray[np.int32]
    target: npt.NDArray[np.float16] | None = None
    margin: npt.NDArray[np.float16] | None = None
    searched: npt.NDArray[np.float16] | None = None
    ownership: npt.NDArray[np.int8] | None = None

    def __len__(self) -> int:
        return int(self.policy.shape[0])

    @staticmethod
    def concat(parts: list[ShardArrays]) -> ShardArrays:
        targets = [p.target for p in parts]
        if any(t is None for t in targets) and not all(t is None for t in targets):
            raise DatasetError("cannot join shards with and without move distributions")
        margins = [p.margin for p in parts]
        searched = [p.searched for p in parts]
        owners = [p.ownership for p in parts]
        return ShardArrays(
            np.concatenate([p.planes for p in parts]),
            np.concatenate([p.legal for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
            np.concatenate([p.game for p in parts]),
            None if targets[0] is None else np.concatenate(targets),  # type: ignore[arg-type]
            # margins only when every part has them: a window reaching back before they were
            # written has none, and a trainer that needs them says so
            None if any(m is None for m in margins) else np.concatenate(margins),  # type: ignore[arg-type]
            None if any(v is None for v in searched) else np.concatenate(searched),  # type: ignore[arg-type]
            None if any(o is None for o in owners) else np.concatenate(owners),  # type: ignore[arg-type]
        )

    def take(self, index: npt.NDArray[np.integer]) -> ShardArrays:
        return ShardArrays(
            self.planes[index],
            self.legal[index],
            self.policy[index],
            self.value[index],
            self.game[index],
            None if self.target is None else self.target[index],
            None if self.margin is None else self.margin[index],
            None if self.searched is None else self.searched[index],
            None if self.ownership is None else self.ownership[index],
        )


def write_shard(
    path: Path, arrays: ShardArrays, extras: dict[str, npt.NDArray[np.generic]] | None = None
) -> None:
    """Write one compressed shard atomically (``extras``: more arrays, for its writer)."""
    fields: dict[str, npt.NDArray[np.generic]] = {
        "planes": arrays.planes,
        "legal": arrays.legal,
        "policy": arrays.policy,
        "value": arrays.value,
        "game": arrays.game,
    }
    if arrays.target is not None:
        fields["target"] = arrays.target
    if arrays.margin is not None:
        fields["margin"] = arrays.margin
    if arrays.searched is not None:
        fields["searched"] = arrays.searched
    if arrays.ownership is not None:
        fields["ownership"] = arrays.ownership
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **{**(extras or {}), **fields})  # type: ignore[arg-type]


def read_shard(path: Path) -> ShardArrays:
    """Read one shard (``allow_pickle=False``: a shard holding objects is refused)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return ShardArrays(
                data["planes"],
                data["legal"],
                data["policy"],
                data["value"],
                data["game"],
                data["target"] if "target" in data.files else None,
                data["margin"] if "margin" in data.files else None,
                data["searched"] if "searched" in data.files else None,
                data["ownership"] if "ownership" in data.files else None,
            )
    except (OSError, KeyError, ValueError, EOFError) as error:
        raise DatasetError(f"cannot read shard {path}: {error}") from None


@dataclass(frozen=True, slots=True)
class Batch:
    """Unpacked arrays for training: planes as float32 ``(B, P, N, N)``, legal as bool, the
    move distribution to learn (when the shard has one) as float32 ``(B, A)``, the games'
    final margins and the search's values (when it has them) as float32 ``(B,)``, and the
    final ownership (when it has it) as float32 ``(B, N*N)``."""

    planes: npt.NDArray[np.float32]
    legal: npt.NDArray[np.bool_]
    policy: npt.NDArray[np.int64]
    value: npt.NDArray[np.float32]
    target: npt.NDArray[np.float32] | None = None
    margin: npt.NDArray[np.float32] | None = None
    searched: npt.NDArray[np.float32] | None = None
    ownership: npt.NDArray[np.float32] | None = None


class Dataset:
    """A dataset folder opened for reading."""

    def __init__(self, root: Path, manifest: dict[str, Any]) -> None:
        self.root = root
        self.manifest = manifest

    @classmethod
    def open(cls, root: str | Path) -> Dataset:
        """Open a built dataset; :class:`DatasetError` if it is missing or not a dataset."""
        folder = Path(root)
        path = folder / MANIFEST
        if not path.is_file():
            raise DatasetError(
                f"no dataset at {folder} (no {MANIFEST}): give a folder made by imago train dataset"
            )
        try:
            manifest = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise DatasetError(f"unreadable manifest {path}: {error}") from None
        if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
            raise DatasetError(f"{path} is not an imago dataset manifest (version {VERSION})")
        return cls(folder, manifest)

    @property
    def game(self) -> str:
        return str(self.manifest["game"])

    @property
    def size(self) -> int:
        return int(self.manifest["size"])

    @property
    def features(self) -> str:
        return str(self.manifest["features"])

    @property
    def planes(self) -> int:
        return int(self.manifest["planes"])

    def shards(self, split: str) -> Iterator[tuple[Path, dict[str, Any]]]:
        """``(path, entry)`` for each shard of ``split`` in build order."""
        if split not in SPLITS:
            raise DatasetError(f"unknown split {split!r} (splits: {', '.join(SPLITS)})")
        for unit in self.manifest["units"]:
            for shard in unit["shards"]:
                if shard["split"] == split:
                    yield self.root / shard["file"], shard

    def count(self, split: str) -> int:
        """Positions in ``split``."""
        return sum(int(entry["positions"]) for _, entry in self.shards(split))

    def games(self, split: str) -> int:
        """Games in ``split``."""
        return sum(int(entry["games"]) for _, entry in self.shards(split))

    def load(self, split: str) -> ShardArrays:
        """Every position of ``split`` in memory (packed)."""
        parts = [read_shard(path) for path, _ in self.shards(split)]
        if not parts:
            raise DatasetError(f"dataset {self.root} has no {split} positions")
        return ShardArrays.concat(parts)

    def unpack(self, arrays: ShardArrays) -> Batch:
        """Unpack stored rows into training arrays."""
        return unpack(arrays, self.planes, self.size)

    def sample_planes(self, count: int, seed: int = 0) -> npt.NDArray[np.float32]:
        """The feature planes of ``count`` positions drawn at random (without repeats, seeded)
        from the training split (all of them when it has fewer): a sample of the positions a
        network meets, to calibrate an int8 copy on (:func:`imago.nn.export.quantize_model`)."""
        if count < 1:
            raise DatasetError(f"sample at least one position, not {count}")
        arrays = self.load("train")
        rng = np.random.default_rng(seed)
        rows = np.sort(rng.choice(len(arrays), min(count, len(arrays)), replace=False))
        return self.unpack(arrays.take(rows)).planes


def unpack(arrays: ShardArrays, planes: int, size: int) -> Batch:
    """Unpack stored rows of ``planes`` feature planes on a ``size`` board."""
    n = len(arrays)
    bits = planes * size * size
    unpacked = np.unpackbits(arrays.planes, axis=1, count=bits, bitorder="little")
    legal = np.unpackbits(arrays.legal, axis=1, count=size * size + 1, bitorder="little")
    return Batch(
        unpacked.reshape(n, planes, size, size).astype(np.float32),
        legal.astype(np.bool_),
        arrays.policy.astype(np.int64),
        arrays.value.astype(np.float32),
        None if arrays.target is None else arrays.target.astype(np.float32),
        None if arrays.margin is None else arrays.margin.astype(np.float32),
        None if arrays.searched is None else arrays.searched.astype(np.float32),
        None if arrays.ownership is None else arrays.ownership.astype(np.float32),
    )


def pack_rows(array: npt.NDArray[np.generic]) -> npt.NDArray[np.uint8]:
    """Bit-pack each row of a 0/1 array (any shape after the first axis)."""
    flat = np.asarray(array, dtype=np.uint8).reshape(array.shape[0], -1)
    return np.packbits(flat, axis=1, bitorder="little")
