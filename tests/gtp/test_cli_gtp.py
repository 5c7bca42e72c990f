"""``imago gtp`` refuses bad options with a message before serving anything."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--agent", "nobody"], "unknown agent 'nobody'"),
        (["--agent", "random:colour=red"], "has no option colour"),
        (["--rules", "chess"], "unknown rules 'chess'"),
        (["--game", "othello", "--size", "9"], "unacceptable size 9 for othello"),
        (["--size", "26"], "unacceptable size 26 for go"),
    ],
)
def test_bad_options(args: list[str], message: str):
    done = subprocess.run(
        [sys.executable, "-m", "imago", "gtp", *args],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert message in done.stderr
    assert done.stdout == ""
