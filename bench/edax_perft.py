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
    made = subprocess.run(
        ["make", "build", "CC=gcc", "ARCH=native"], cwd=source / "src", capture_output=True,
        text=True,
    )  # fmt: skip
    if made.returncode != 0:
        raise SystemExit(f"building Edax failed (needs make and gcc):\n{made.stderr[-2000:]}")
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


def edax_count(binary: Path, depth: int, patched: bool) -> tuple[int, float]:
    """Edax's move count at ply ``depth`` and the CPU seconds it reports for that count (its
    own ``getrusage`` clock, milliseconds: its start-up is not counted, as imago's is not);
    ``patched``: through ``-perft`` (see :func:`can_perft`), else through its shell."""
    if patched:
        command, stdin = [str(binary), "-perft", str(depth)], None
    else:
        command, stdin = [str(binary), "-n", "1"], f"perft {depth}\nquit\n"
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, cwd=binary.parent.parent
    )
    rows = parse_rows(done.stdout)
    if depth not in rows:
        raise SystemExit(
            f"{binary} gave no ply-{depth} perft row (exit {done.returncode}): it needs "
            "data/eval.dat beside its bin/ folder, or a build with --patch\n"
            f"{(done.stdout + done.stderr)[-1000:]}"
        )
    return rows[depth]


def can_perft(binary: Path) -> bool:
    """Whether ``binary`` is an Edax built with ``--patch`` (``-perft N`` works)."""
    try:
        probe = subprocess.run([str(binary), "-perft", "1"], capture_output=True, text=True)
    except OSError as error:
        raise SystemExit(f"cannot run {binary}: {error.strerror}") from None
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
    patched = can_perft(binary)
    times: dict[str, list[float]] = {"imago": [], "edax": []}
    counts = {}
    for _ in range(rounds):
        counts["imago"], cpu = imago_count(depth)
        times["imago"].append(cpu)
        counts["edax"], cpu = edax_count(binary, depth, patched)
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
        from imago.bench.othello import PERFT_8X8

        if args.depth not in PERFT_8X8 or args.rounds < 1:
            depths = ", ".join(map(str, sorted(PERFT_8X8)))
            raise SystemExit(f"--depth must be one of {depths} and --rounds at least 1")
        compare(args.binary, args.depth, args.rounds)


if __name__ == "__main__":
    main()
