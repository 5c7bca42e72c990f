"""Shared fixtures: where the real data is, and how to find the real engines."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def find_engine(name: str) -> str | None:
    """The path of an external program, looking in Debian's games folder too."""
    path = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
    return shutil.which(name, path=path)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared real-data folder (``../shared/data``); tests using it skip where it is missing."""
    if not DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return DATA


@pytest.fixture(scope="session")
def gnugo() -> str:
    """The GNU Go binary; tests using it skip where it is not installed."""
    path = find_engine("gnugo")
    if path is None:
        pytest.skip("gnugo is not installed")
    return path


@pytest.fixture(scope="session")
def gtp_rhino() -> str:
    """GRhino's GTP binary; tests using it skip where it is not installed."""
    path = find_engine("gtp-rhino")
    if path is None:
        pytest.skip("gtp-rhino (Debian grhino) is not installed")
    return path
