"""``bench/side_by_side.py`` runs a command for another revision and for this checkout at the
same time, each side with its own imago, and takes the revision's worktree away after."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from repo_scripts import ROOT

pytestmark = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2 or shutil.which("taskset") is None or shutil.which("git") is None,
    reason="needs two cores, taskset and git",
)

_WHERE = "import imago, pathlib; print('imago at', pathlib.Path(imago.__file__).parents[2])"


def _worktrees() -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True, check=True
    ).stdout


def test_each_side_runs_its_own_imago_and_the_worktree_goes():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    before = _worktrees()
    script = str(ROOT / "bench" / "side_by_side.py")
    args = [sys.executable, script, "HEAD", "--rounds", "2", "--no-warmup", "--", "python", "-c"]
    done = subprocess.run([*args, _WHERE], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    headers = [line for line in lines if line.startswith("=== round")]
    assert headers == [
        "=== round 1, HEAD (core 0)",
        "=== round 1, this checkout (core 1)",
        "=== round 2, HEAD (core 1)",
        "=== round 2, this checkout (core 0)",
    ]
    places = [line.removeprefix("imago at ") for line in lines if line.startswith("imago at")]
    assert len(places) == 4
    assert places[1] == places[3] == str(ROOT)
    assert places[0] == places[2] != str(ROOT)  # the revision's own tree
    assert "imago-ab-" in places[0]
    assert _worktrees() == before  # removed again


def test_a_missing_command_is_a_usage_error():
    script = str(ROOT / "bench" / "side_by_side.py")
    done = subprocess.run([sys.executable, script, "HEAD"], capture_output=True, text=True)
    assert done.returncode == 2 and "give the command after --" in done.stderr


def test_an_unknown_revision_says_so_in_one_line():
    script = str(ROOT / "bench" / "side_by_side.py")
    args = [sys.executable, script, "no-such-revision", "--", "python", "-c", "pass"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "cannot check out 'no-such-revision'" in done.stderr


def test_a_failing_command_shows_its_status():
    script = str(ROOT / "bench" / "side_by_side.py")
    args = [sys.executable, script, "HEAD", "--rounds", "1", "--no-warmup", "--", "python", "-c"]
    done = subprocess.run([*args, "raise SystemExit(3)"], capture_output=True, text=True)
    assert done.stdout.count("(the command exited with status 3)") == 2
