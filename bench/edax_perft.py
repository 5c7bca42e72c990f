"""Othello perft against Edax, the same work in the same run (issue 20's mark: at least half
of Edax's rate on one core).

Edax (https://github.com/abulmo/edax-reversi) is built outside this repository; its shell's
``perft`` command counts moves without a hash table, bulk-counting the last ply as imago's
kernel does. Edax opens its evaluation file (``data/eval.dat``, from Edax's releases) before
anything else, so either run it from a folder that has one, or build it with ``--patch``: six
lines added to its ``main.c`` (``-perft N`` runs ``count_games`` before the evaluation is
loaded; the counting code is Edax's own).

    python bench/edax_perft.py build EDAX_SOURCE [--patch]      # make ARCH=native, gcc
    python bench/edax_perft.py compare EDAX_BINARY [--depth 11] [--rounds 5]

``compare`` times both one after the other, ``rounds`` times (imago's numba kernel in this
process, Edax's C in its own), and prints the medians of the CPU time of the ply-``depth`` count
(imago: ``process_time``; Edax: the time it reports, its ``getrusage`` clock) and their
ratio. imago's count must be the published one; Edax reports the moves and passes at the last
ply (212,258,216 at depth 11: games that ended earlier are not leaves for it), the same tree.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import time
from pathlib import Path

PATCH_MARK = "imago's same-run comparison"
PATCH = (
    '\t\telse if (strcmp(arg, "perft") == 0 && argv[i + 1]) { /* '
    + PATCH_MARK
    + " */\n\t\t\talignas(16) Board perft_board;\n\t\t\tboard_init(&perft_board);\n"
    "\t\t\tcount_games(&perft_board, atoi(argv[++i]));\n\t\t\treturn 0;\n\t\t}\n"
)
ANCHOR = '\t\telse if (strcmp(arg, "test") == 0) test = true;\n'
ROW = re.compile(r"^\s*(\d+),\s+(\d+),\s+(\d+),.*?(\d+):(\d+\.\d+),", re.MULTILINE)


def build(source: Path, patch: bool) -> Path:
    """Build Edax from ``source`` (optionally patched for ``-perft``); the binary's path."""
    main_c = source / "src" / "main.c"
    if not main_c.is_file():
        raise SystemExit(f"{source} is not an Edax source tree (no src/main.c)")
    if patch:
        add_perft_option(main_c)
    (source / "bin").mkdir(exist_ok=True)
    subprocess.run(
        ["make", "build", "CC=gcc", "ARCH=native"], cwd=source / "src", check=True,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return source / "bin" / "lEdax-native"


def add_perft_option(main_c: Path) -> bool:
    """Add ``-perft N`` to Edax's ``main.c`` (once); whether the file changed."""
    text = main_c.read_text()
    if PATCH_MARK in text:
        return False
    if ANCHOR not in text:
        raise SystemExit(f"{main_c} has changed since this script: add -perft by hand")
    main_c.write_text(text.replace(ANCHOR, ANCHOR + PATCH, 1))
    return True


def parse_rows(output: str) -> dict[int, tuple[int, float]]:
    """Edax's perft table: per ply, the moves and passes counted and the seconds it reports."""
    return {
        int(m.group(1)): (int(m.group(2)), 60 * int(m.group(4)) + float(m.group(5)))
        for m in ROW.finditer(output)
    }


def edax_count(binary: Path, depth: int) -> tuple[int, float]:
    """Edax's move count at ply ``depth`` and the CPU seconds it reports for that count (its
    own ``getrusage`` clock, milliseconds: its start-up is not counted, as imago's is not)."""
    if _patched(binary):
        done = subprocess.run(
            [str(binary), "-perft", str(depth)], capture_output=True, text=True, check=True
        )
    else:
        done = subprocess.run(
            [str(binary), "-n", "1"], input=f"perft {depth}\nquit\n", capture_output=True,
            text=True, check=True, cwd=binary.parent.parent,
        )  # fmt: skip
    rows = parse_rows(done.stdout)
    if depth not in rows:
        raise SystemExit(f"no ply-{depth} row in Edax's output:\n{done.stdout[-2000:]}")
    return rows[depth]


def _patched(binary: Path) -> bool:
    probe = subprocess.run([str(binary), "-perft", "1"], capture_output=True, text=True)
    return probe.returncode == 0 and "Total" in probe.stdout


def imago_count(depth: int) -> tuple[int, float]:
    """imago's leaf count at ``depth`` and the CPU seconds it took (kernel, one thread)."""
    from imago.games.othello import perft

    start = time.process_time()
    leaves = perft(depth)
    return leaves, time.process_time() - start


def compare(binary: Path, depth: int, rounds: int) -> None:
    from imago.bench.othello import PERFT_8X8
    from imago.games.othello import perft

    perft(4)  # load the kernels outside the timing
    times: dict[str, list[float]] = {"imago": [], "edax": []}
    counts = {}
    for _ in range(rounds):
        counts["imago"], cpu = imago_count(depth)
        times["imago"].append(cpu)
        counts["edax"], cpu = edax_count(binary, depth)
        times["edax"].append(cpu)
    if counts["imago"] != PERFT_8X8[depth]:
        raise SystemExit(f"imago's perft({depth}) = {counts['imago']:,}, not {PERFT_8X8[depth]:,}")
    imago_s = statistics.median(times["imago"])
    edax_s = statistics.median(times["edax"])
    print(f"depth {depth}, {rounds} rounds, median CPU seconds of the count")
    print(f"imago: {counts['imago']:,} leaves (published count) in {imago_s:.3f} s: "
          f"{counts['imago'] / imago_s / 1e6:.0f} M leaves/s")  # fmt: skip
    print(f"Edax:  {counts['edax']:,} moves and passes in {edax_s:.3f} s: "
          f"{counts['edax'] / edax_s / 1e6:.0f} M/s")  # fmt: skip
    print(f"imago's rate / Edax's: {edax_s / imago_s:.2f} (the same tree: equal CPU = 1.00)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="build Edax from a source tree")
    make.add_argument("source", type=Path)
    make.add_argument("--patch", action="store_true", help="add -perft (no eval.dat needed)")
    race = commands.add_parser("compare", help="time imago's perft against Edax's")
    race.add_argument("binary", type=Path)
    race.add_argument("--depth", type=int, default=11)
    race.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.command == "build":
        print(build(args.source, args.patch))
    else:
        if not args.binary.is_file():
            raise SystemExit(f"no Edax binary at {args.binary}: build it first")
        if not 1 <= args.depth <= 13 or args.rounds < 1:
            raise SystemExit("--depth must be in 1..13 and --rounds at least 1")
        compare(args.binary, args.depth, args.rounds)


if __name__ == "__main__":
    main()
