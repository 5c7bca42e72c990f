"""Speed of the record layer: SGF into trees against sgfmill, and the whole WTHOR database.

Figures (``imago bench records``):

* ``records.sgf.*``: the 6,792 games of ``ogs-9x9/strict_ogs_games.tar.gz`` (held in memory,
  so no disk or gzip time is counted), read five ways in the same run: sgfmill's parse
  (``Sgf_game.from_bytes``), imago's grammar alone into raw property maps for every node
  (``sgf_grammar.parse``), imago's parse into game trees without checking moves
  (``sgf.read_bytes(data, replay=False)``), imago's parse with every move checked by the Go
  rules (``sgf.read_bytes(data)``, the default: ``replay``), and the default read followed by
  a walk over every node of every tree (``walk``: every ``GameNode`` built, as a program that
  visits the whole tree pays; positions are still computed only when asked for). A plain line
  of moves (most OGS games) is read into a tree whose nodes are built on first use, as
  sgfmill's are, with its moves checked by one numba kernel. Each reader reads every file and
  drops the result; the readers alternate over the repeats and the median is taken. Games/s
  and MB/s for each; the ``vs_sgfmill`` figures are speed ratios against sgfmill's parse
  (goal: 3).
* ``records.wthor.*``: every ``.wtb`` file of ``wthor/`` (137,548 games) read and replayed
  into game trees (``WthorGame.to_game``: every move checked by one numba kernel call per
  game, every node built, positions computed when first asked for), one pass; goal: under
  20 s.

Times are CPU time of the measuring thread (``time.thread_time``): the machines these run on
are shared, and other work would otherwise count (WTHOR's wall time is reported too).

``--quick`` takes the first 1,000 SGF files and one WTHOR year.
"""

from __future__ import annotations

import statistics
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

from imago.bench import BenchConfig, Figure, benchmark


def _ogs_files(config: BenchConfig) -> list[bytes]:
    if config.data_dir is None:
        return []
    archive = config.data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz"
    if not archive.is_file():
        return []
    with tarfile.open(archive) as tar:
        files = []
        for member in tar:
            stream = tar.extractfile(member) if member.isfile() else None
            if stream is not None and member.name.endswith(".sgf"):
                files.append(stream.read())
    return files[:1000] if config.quick else files


@benchmark("records.sgf", "OGS 9x9 SGF into trees (parse, parse + replay) against sgfmill's parse")
def sgf_speed(config: BenchConfig) -> list[Figure]:
    from imago.records import sgf, sgf_grammar

    files = _ogs_files(config)
    if not files:
        return []
    megabytes = sum(len(data) for data in files) / 1e6
    games = len(files)
    for data in files[:20]:  # compile or load the numba kernels outside the timing
        sgf.read_bytes(data)

    def raw(data: bytes) -> object:
        return [tree.nodes for tree in sgf_grammar.parse(data).trees]

    def walk(data: bytes) -> object:
        return [sum(1 for _ in game.walk()) for game in sgf.read_bytes(data)]

    readers: dict[str, Callable[[bytes], object]] = {
        "raw": raw,
        "parse": lambda data: sgf.read_bytes(data, replay=False),
        "replay": sgf.read_bytes,
        "walk": walk,
    }
    try:
        from sgfmill import sgf as sgfmill_sgf
    except ImportError:
        sgfmill_sgf = None
    if sgfmill_sgf is not None:
        readers["sgfmill"] = sgfmill_sgf.Sgf_game.from_bytes
    # Interleaved repeats, each game read and dropped (as a dataset pipeline streams them);
    # CPU time of this thread, so that other work on a shared machine does not count.
    times: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(1 if config.quick else 3):
        for name, read in readers.items():
            start = time.thread_time()
            for data in files:
                read(data)
            times[name].append(time.thread_time() - start)
    seconds = {name: statistics.median(values) for name, values in times.items()}
    figures = [
        Figure("records.sgf.games", games, "games"),
        Figure("records.sgf.mb", megabytes, "MB"),
    ]
    for name, elapsed in seconds.items():
        figures.append(Figure(f"records.sgf.{name}_games_per_s", games / elapsed, "games/s"))
        figures.append(Figure(f"records.sgf.{name}_mb_per_s", megabytes / elapsed, "MB/s"))
    if "sgfmill" in seconds:
        for name in ("raw", "parse", "replay", "walk"):
            figures.append(
                Figure(
                    f"records.sgf.{name}_vs_sgfmill",
                    seconds["sgfmill"] / seconds[name],
                    "x",
                    "speed ratio against sgfmill's parse of the same files, same run",
                )
            )
    return figures


@benchmark("records.wthor", "all WTHOR games read and replayed into trees")
def wthor_speed(config: BenchConfig) -> list[Figure]:
    from imago.records import wthor

    if config.data_dir is None:
        return []
    folder: Path = config.data_dir / "wthor"
    files = sorted(folder.glob("*.wtb"))
    if not files:
        return []
    if config.quick:
        files = files[-1:]
    wthor.read_games(files[0])[0].to_game()  # load the kernels outside the timing
    megabytes = sum(path.stat().st_size for path in files) / 1e6
    start = time.perf_counter()
    cpu_start = time.thread_time()
    games = 0
    for path in files:
        for record in wthor.read_games(path):
            record.to_game()
            games += 1
    elapsed = time.perf_counter() - start
    cpu = time.thread_time() - cpu_start
    return [
        Figure("records.wthor.games", games, "games"),
        Figure("records.wthor.replay_cpu_s", cpu, "s", "read + replay into trees, CPU time"),
        Figure("records.wthor.replay_wall_s", elapsed, "s", "the same pass, wall time"),
        Figure("records.wthor.games_per_s", games / cpu, "games/s"),
        Figure("records.wthor.mb_per_s", megabytes / cpu, "MB/s"),
    ]
