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
=========  ==========================  =========================================================

Splits (``train`` / ``val``) are by game: every position of a game lands in the same split.
The manifest lists finished units (a source file, or a chunk of an archive), so an interrupted
build resumes where it stopped. Numpy only: no torch here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.core.errors import ImagoError

FORMAT = "imago-dataset"
VERSION = 1
MANIFEST = "manifest.json"
SPLITS = ("train", "val")


class DatasetError(ImagoError, ValueError):
    """A dataset that is missing, empty, foreign or inconsistent."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_bytes(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


@dataclass(slots=True)
class ShardArrays:
    """The arrays of one shard (or of a whole split once concatenated)."""

    planes: npt.NDArray[np.uint8]
    legal: npt.NDArray[np.uint8]
    policy: npt.NDArray[np.int16]
    value: npt.NDArray[np.int8]
    game: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return int(self.policy.shape[0])

    @staticmethod
    def concat(parts: list[ShardArrays]) -> ShardArrays:
        return ShardArrays(
            np.concatenate([p.planes for p in parts]),
            np.concatenate([p.legal for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
            np.concatenate([p.game for p in parts]),
        )

    def take(self, index: npt.NDArray[np.integer]) -> ShardArrays:
        return ShardArrays(
            self.planes[index],
            self.legal[index],
            self.policy[index],
            self.value[index],
            self.game[index],
        )


def write_shard(path: Path, arrays: ShardArrays) -> None:
    """Write one compressed shard atomically."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}.npz")
    try:
        np.savez_compressed(
            tmp,
            planes=arrays.planes,
            legal=arrays.legal,
            policy=arrays.policy,
            value=arrays.value,
            game=arrays.game,
        )
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def read_shard(path: Path) -> ShardArrays:
    """Read one shard (``allow_pickle=False``: a shard holding objects is refused)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return ShardArrays(
                data["planes"], data["legal"], data["policy"], data["value"], data["game"]
            )
    except (OSError, KeyError, ValueError) as error:
        raise DatasetError(f"cannot read shard {path}: {error}") from None


@dataclass(frozen=True, slots=True)
class Batch:
    """Unpacked arrays for training: planes as float32 ``(B, P, N, N)``, legal as bool."""

    planes: npt.NDArray[np.float32]
    legal: npt.NDArray[np.bool_]
    policy: npt.NDArray[np.int64]
    value: npt.NDArray[np.float32]


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
        n, size = len(arrays), self.size
        bits = self.planes * size * size
        planes = np.unpackbits(arrays.planes, axis=1, count=bits, bitorder="little")
        legal = np.unpackbits(arrays.legal, axis=1, count=size * size + 1, bitorder="little")
        return Batch(
            planes.reshape(n, self.planes, size, size).astype(np.float32),
            legal.astype(np.bool_),
            arrays.policy.astype(np.int64),
            arrays.value.astype(np.float32),
        )


def pack_rows(array: npt.NDArray[np.generic]) -> npt.NDArray[np.uint8]:
    """Bit-pack each row of a 0/1 array (any shape after the first axis)."""
    flat = np.asarray(array, dtype=np.uint8).reshape(array.shape[0], -1)
    return np.packbits(flat, axis=1, bitorder="little")
