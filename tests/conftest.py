"""Shared fixtures: where the real data is, and how to find the real engines."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
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


def _kill_when(
    command: list[str], ready: Callable[[], bool], timeout: float = 300.0, *, tmp: Path
) -> None:
    # what the killed process leaves in its temporary folders stays in the test's own
    env = {**os.environ, "TMPDIR": str(tmp)}
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            assert process.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, f"not ready to kill after {timeout:.0f} s"
            time.sleep(0.001)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


@pytest.fixture
def kill_when(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., None]:
    """``kill_when(command, ready, timeout=300)``: start ``command`` and SIGKILL it as soon as
    ``ready()`` holds (polled every millisecond); fails if it ends first or ``ready`` never
    comes. For the tests that prove long work survives ``kill -9``."""
    return functools.partial(_kill_when, tmp=tmp_path_factory.mktemp("killed-tmp"))
