"""Run one command for two builds of imago at the same time, one on each core: an A/B timing.

    python bench/side_by_side.py REV [--rounds 2] -- python bench/env_steps.py
    python bench/side_by_side.py REV -- imago bench go.openspiel --repeats 3

This machine's speed moves by a third within minutes, so two builds timed one after the other
differ by the load as much as by the code. Run side by side, each pinned to its own core
(``taskset``), both meet the same load at the same moment; the rounds swap the cores. ``REV``
(any git revision) is checked out into a temporary worktree and run with ``PYTHONPATH`` set to
its ``src``; the other side is this checkout. A command that starts with ``imago`` is run as
``python -m imago``, so that each side runs its own code, benchmarks included; ``python
SCRIPT`` runs this checkout's script on both sides (the same measuring code, each side's
imago), so a revision from before the script was written can be measured too. The outputs are
printed, labelled, round by round; compare the figures in them (the command measures, this
only schedules).

Needs two cores, ``git`` and ``taskset`` (util-linux). Each side's numba cache is its own
tree's; the first round of a build compiles, so a warm-up round runs first unless
``--no-warmup``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _command(words: list[str]) -> list[str]:
    if words[0] == "imago":
        return [sys.executable, "-m", "imago", *words[1:]]
    if words[0] == "python":
        script = words[1:2]
        if script and (REPO / script[0]).is_file():  # this checkout's script, for both sides
            script = [str(REPO / script[0])]
        return [sys.executable, *script, *words[2:]]
    return words


def _side(tree: Path, core: int, command: list[str]) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    return subprocess.Popen(
        ["taskset", "-c", str(core), *command],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _round(trees: dict[str, Path], cores: dict[str, int], command: list[str]) -> dict[str, str]:
    running = {name: _side(trees[name], cores[name], command) for name in trees}
    outputs = {}
    for name, process in running.items():
        output = process.communicate()[0]
        if process.returncode:
            output += f"\n(the command exited with status {process.returncode})"
        outputs[name] = output
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], usage="%(prog)s REV [options] -- COMMAND ..."
    )
    parser.add_argument("rev", help="the other build: a git revision")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (cores swap each round)")
    parser.add_argument("--no-warmup", action="store_true", help="skip the compiling round")
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("give the command after --")
    cut = argv.index("--")
    args = parser.parse_args(argv[:cut])
    words = argv[cut + 1 :]
    if (os.cpu_count() or 1) < 2:
        raise SystemExit("side by side needs two cores")
    if shutil.which("taskset") is None:
        raise SystemExit("taskset is missing: apt-get install util-linux")
    command = _command(words)
    with tempfile.TemporaryDirectory(prefix="imago-ab-") as folder:
        other = Path(folder) / "tree"
        added = subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(other), args.rev],
            capture_output=True,
            text=True,
        )
        if added.returncode:
            reason = added.stderr.strip().splitlines()[-1:] or ["git worktree add failed"]
            raise SystemExit(f"cannot check out {args.rev!r}: {reason[0]}")
        try:
            trees = {args.rev: other, "this checkout": REPO}
            if not args.no_warmup:
                _round(trees, {args.rev: 0, "this checkout": 1}, command)
            for number in range(args.rounds):
                cores = {args.rev: number % 2, "this checkout": 1 - number % 2}
                for name, output in _round(trees, cores, command).items():
                    print(f"=== round {number + 1}, {name} (core {cores[name]})")
                    print(output.rstrip())
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(other)],
                check=False,
                capture_output=True,
            )


if __name__ == "__main__":
    main()
