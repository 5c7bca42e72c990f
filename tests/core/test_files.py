"""Finished files are written atomically: the old file or the new one, never half of one."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from imago.core.files import atomic_path, atomic_write, atomic_write_text


class Boom(RuntimeError):
    pass


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "shard.npz"
    atomic_write(target, b"old")
    with pytest.raises(Boom), atomic_path(target, suffix=".npz") as tmp:
        np.savez_compressed(tmp, x=np.arange(3))
        raise Boom
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard.npz"]


def test_a_writer_that_insists_on_a_suffix_writes_the_path_it_was_given(tmp_path: Path) -> None:
    target = tmp_path / "shard.npz"
    with atomic_path(target, suffix=".npz") as tmp:
        assert tmp.parent == target.parent and tmp.name.endswith(".npz")
        np.savez_compressed(tmp, x=np.arange(3))  # np.savez adds .npz to other names
    with np.load(target) as data:
        assert data["x"].tolist() == [0, 1, 2]
    assert sorted(p.name for p in target.parent.iterdir()) == ["shard.npz"]
    with pytest.raises(FileNotFoundError), atomic_path(tmp_path / "no" / "x.npz"):
        pass  # a missing folder is the caller's error, not made behind its back


def test_the_file_keeps_the_permissions_of_the_one_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    atomic_write_text(target, "first")
    os.chmod(target, 0o640)
    with atomic_path(target) as tmp:
        tmp.write_text("second")
    assert target.read_text() == "second"
    assert target.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.txt"
    atomic_write_text(fresh, "x")
    assert fresh.stat().st_mode & 0o777 != 0o600  # not the temporary file's private mode
