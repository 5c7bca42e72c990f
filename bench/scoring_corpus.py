"""The differential corpus for Go counting: finished games judged by GNU Go, and imago's agreement.

    python bench/scoring_corpus.py generate DIR [--seed 1] [--games 9=500 13=150 19=50]
                                                [--jobs N | --shard K/N]
    python bench/scoring_corpus.py compare DIR [--size 9] [--rules chinese|japanese|both]
                                               [--list] [--json]
    python bench/scoring_corpus.py pack DIR ARCHIVE.tar.gz

``generate`` plays games between engines of different strengths until each board size has the
number of games asked for that ended by two passes, and asks GNU Go 3.8 (level 10, its default)
for ``final_score`` and ``final_status_list dead`` / ``seki`` of each finished game under
``--chinese-rules`` (area) and under its default territory rules. Each game is written
atomically as ``DIR/<size>/<index>.json`` (the moves, the players, GNU Go's verdicts) beside an
``.sgf`` of it for viewing; a game that already has its ``.json`` is not played again, so an
interrupted run resumes, and the same seed makes the same games (GNU Go is started with a seed
per game; imago's agents are seeded). ``--jobs N`` plays N games at once in N processes, each
taking the game indices ``K mod N`` (``--shard K/N`` runs one of them, e.g. on another machine
sharing the folder): game ``i`` is the same game whichever process plays it, but a parallel run
may stop with a few indices unplayed and a few played past a serial run's last.
Niced by the caller (``nice -n 10``): the low GNU Go levels the players use are cheap.

The players (chosen per game from the seed, the two sides always different):

* ``gnugo-L``: GNU Go at level ``L`` (0..10 on 9x9, 0..2 on larger boards);
* ``noisy-L-E``: GNU Go at level ``L`` whose move is replaced, with probability ``E``, by a
  uniformly random legal move that does not fill its own eye (it passes only when GNU Go does);
* ``mcts-P``: imago's ``mcts`` agent with ``P`` playouts per move (its own pass rule), no
  resignation;
* ``random``: imago's ``random`` agent (passes only when it has no move but its own eyes).

A game in which GNU Go crashes (3.8 does, rarely) is kept with the crash as its end and does not
count; the seed makes the same crash happen again on a rerun.

``compare`` counts every finished game with :func:`imago.games.go.count` under the same rules
and komi, and reports how often the winner and the margin agree with GNU Go's, the stones GNU Go
calls dead or seki that imago does not (and the reverse), the games where imago says it could not
decide, and imago's CPU time per position (median and maximum). ``--list`` prints every
disagreement with the game's file. It reads a folder or an archive.

``pack`` writes a folder's games (their ``.json`` files) to one gzipped tar, the same bytes for
the same games. The corpus measured in BENCHMARKS.md is kept that way in the repository,
``bench/data/go-count-corpus.tar.gz`` (``generate DIR --seed 1 --games 9=500`` and
``--games 13=200``, ``--games 19=50``), and ``tests/games/go/test_go_count_corpus.py`` checks
imago's count against the verdicts it holds::

    python bench/scoring_corpus.py compare bench/data/go-count-corpus.tar.gz --list
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from imago.agents.base import Agent, Limit
from imago.agents.registry import make_agent
from imago.core.color import Color
from imago.core.files import atomic_write
from imago.core.move import Move, Point
from imago.games.go import GoPosition, GoRules, KoRule, Scoring, new_game
from imago.gtp.client import EngineError, GtpEngine

GNUGO = os.environ.get("GNUGO", "/usr/games/gnugo")
KOMIS = (6.5, 7.0, 7.5)
MOVE_TIMEOUT = 120.0
JUDGE_TIMEOUT = 600.0


# -- players -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerSpec:
    """A player of the corpus: a kind (gnugo, noisy, mcts, random) and its parameters."""

    kind: str
    level: int = 0
    noise: float = 0.0
    playouts: int = 0

    @property
    def label(self) -> str:
        if self.kind == "gnugo":
            return f"gnugo-{self.level}"
        if self.kind == "noisy":
            return f"noisy-{self.level}-{self.noise:g}"
        if self.kind == "mcts":
            return f"mcts-{self.playouts}"
        return self.kind


def roster(size: int) -> list[PlayerSpec]:
    """The players a game on ``size`` may pair (cheaper ones on the larger boards)."""
    if size <= 9:
        levels = (0, 1, 3, 5, 8, 10)
        players = [PlayerSpec("gnugo", level) for level in levels]
        players += [PlayerSpec("noisy", level, noise) for level in (0, 5) for noise in (0.1, 0.3)]
        players += [PlayerSpec("mcts", playouts=p) for p in (300, 1500)]
        players += [PlayerSpec("random")]
        return players
    players = [PlayerSpec("gnugo", level) for level in (0, 1, 2)]
    players += [PlayerSpec("noisy", 0, noise) for noise in (0.05, 0.15, 0.3)]
    players += [PlayerSpec("mcts", playouts=300)]
    return players


class Player:
    """One side of a corpus game: told every move, asked for its own."""

    def __init__(self, spec: PlayerSpec, size: int, komi: float, seed: int) -> None:
        self.spec = spec
        self.rng = np.random.default_rng(seed)
        self.engine: GtpEngine | None = None
        self.agent: Agent | None = None
        if spec.kind in ("gnugo", "noisy"):
            command = f"{GNUGO} --mode gtp --level {spec.level} --seed {seed % 1_000_000}"
            self.engine = GtpEngine.popen(command, timeout=MOVE_TIMEOUT)
            self.engine.boardsize(size)
            self.engine.clear_board()
            self.engine.komi(komi)
        elif spec.kind == "mcts":
            options = {"playouts": spec.playouts, "resign": 0.0}
            self.agent = make_agent("mcts", "go", options, seed=seed)
        else:
            self.agent = make_agent("random", "go", {}, seed=seed)

    def move(self, position: GoPosition) -> Move:
        color = position.to_play
        if self.agent is not None:
            return self.agent.select_move(position, Limit()).move
        assert self.engine is not None
        if self.spec.kind == "gnugo":
            return self.engine.genmove(color, MOVE_TIMEOUT).move
        move = self.engine.reg_genmove(color, MOVE_TIMEOUT).move
        if move.is_play and self.rng.random() < self.spec.noise:
            plays = [m for m in position.sensible_moves() if m.is_play]
            if plays:
                move = plays[int(self.rng.integers(len(plays)))]
        if not move.is_resign:
            self.engine.play(color, move)
        return move

    def tell(self, color: Color, move: Move) -> None:
        if self.engine is not None:
            self.engine.play(color, move)

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()


# -- one game ------------------------------------------------------------------------------------


def game_seed(seed: int, size: int, index: int) -> int:
    sequence = np.random.SeedSequence(seed, spawn_key=(size, index))
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


def pairing(size: int, seed: int) -> tuple[PlayerSpec, PlayerSpec, float]:
    """The two players (different) and the komi of a game."""
    rng = np.random.default_rng(seed)
    players = roster(size)
    first = int(rng.integers(len(players)))
    second = int(rng.integers(len(players) - 1))
    second += second >= first
    komi = KOMIS[int(rng.integers(len(KOMIS)))]
    return players[first], players[second], komi


def corpus_rules(komi: float) -> GoRules:
    """The rules games are played under: GNU Go's (simple ko, no suicide), area scoring."""
    return GoRules(KoRule.SIMPLE, False, Scoring.AREA, komi)


def play_game(size: int, seed: int) -> dict[str, Any]:
    """Play one game; the record (moves, players, how it ended) as JSON data."""
    black_spec, white_spec, komi = pairing(size, seed)
    players = {
        Color.BLACK: Player(black_spec, size, komi, seed ^ 0x5EED),
        Color.WHITE: Player(white_spec, size, komi, seed ^ 0xB1AC),
    }
    position = new_game(size, corpus_rules(komi))
    moves: list[str] = []
    end = "passes"
    try:
        while not position.is_over():
            if len(moves) >= 3 * size * size:
                end = "move limit"
                break
            color = position.to_play
            try:
                move = players[color].move(position)
                if move.is_resign:
                    end = f"{color} resigned"
                    break
                position = position.play(move)
                moves.append(position.format_move(move))
                players[color.opponent].tell(color, move)
            except EngineError as error:  # GNU Go 3.8 crashes in some positions
                end = f"engine failed: {error}"
                break
    finally:
        for player in players.values():
            player.close()
    return {
        "size": size,
        "komi": komi,
        "seed": seed,
        "black": black_spec.label,
        "white": white_spec.label,
        "moves": moves,
        "end": end,
    }


def replay(record: dict[str, Any], rules: GoRules | None = None) -> GoPosition:
    """The final position of a corpus game (under ``rules``, default the corpus rules)."""
    size = int(record["size"])
    position = new_game(size, rules or corpus_rules(float(record["komi"])))
    for text in record["moves"]:
        position = position.play(position.parse_move(text))
    return position


def judge(record: dict[str, Any]) -> dict[str, Any]:
    """GNU Go's verdicts on a finished game: score, dead and seki stones, per rule set."""
    size = int(record["size"])
    verdicts: dict[str, Any] = {}
    for name, flags in (("chinese", " --chinese-rules"), ("japanese", "")):
        with GtpEngine.popen(f"{GNUGO} --mode gtp{flags}", timeout=JUDGE_TIMEOUT) as engine:
            engine.boardsize(size)
            engine.clear_board()
            engine.komi(float(record["komi"]))
            color = Color.BLACK
            for text in record["moves"]:
                engine.play(color, Move.from_gtp(text, size))
                color = color.opponent
            score = engine.final_score(JUDGE_TIMEOUT)
            dead = engine.final_status_list("dead", JUDGE_TIMEOUT)
            seki = engine.final_status_list("seki", JUDGE_TIMEOUT)
            verdicts[name] = {
                "score": score.result(),
                "dead": sorted(Move.play(p).to_gtp(size) for p in dead),
                "seki": sorted(Move.play(p).to_gtp(size) for p in seki),
            }
    return verdicts


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text.encode("utf-8"))


def sgf_text(record: dict[str, Any]) -> str:
    from imago.records.sgf import write_string
    from imago.records.tree import Game, GameNode

    size = int(record["size"])
    game = Game(new_game(size, corpus_rules(float(record["komi"]))))
    game.set_text("PB", record["black"])
    game.set_text("PW", record["white"])
    game.set_text("KM", f"{float(record['komi']):g}")
    game.set_text("RU", "Chinese")
    verdicts = record.get("gnugo", {})
    if "chinese" in verdicts:
        game.set_text("RE", verdicts["chinese"]["score"])
        dead = " ".join(verdicts["chinese"]["dead"]) or "none"
        game.set_text("GC", f"GNU Go --chinese-rules: {verdicts['chinese']['score']}, dead {dead}")
    node: GameNode = game
    color = Color.BLACK
    for text in record["moves"]:
        node = node.add_variation(Move.from_gtp(text, size), color)
        color = color.opponent
    return write_string(game)


# -- the folder ----------------------------------------------------------------------------------


def game_path(folder: Path, size: int, index: int, suffix: str) -> Path:
    return folder / str(size) / f"{index:05d}{suffix}"


def records(source: Path, size: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The games of ``size`` in ``source`` (a corpus folder, or an archive made by ``pack``),
    in index order, each with its name (``"13/00063.json"``)."""
    if source.is_file():
        with tarfile.open(source, "r:gz") as archive:
            members = sorted(
                (m for m in archive.getmembers() if m.isfile() and _is_game(m.name, size)),
                key=lambda m: m.name,
            )
            for member in members:
                handle = archive.extractfile(member)
                assert handle is not None
                yield member.name, json.loads(handle.read().decode("utf-8"))
        return
    for path in sorted((source / str(size)).glob("*.json")):
        yield f"{size}/{path.name}", json.loads(path.read_text(encoding="utf-8"))


def _is_game(name: str, size: int) -> bool:
    folder, _, file = name.partition("/")
    return folder == str(size) and file.endswith(".json") and "/" not in file


def sizes_in(source: Path) -> list[int]:
    """The board sizes a corpus folder or archive holds games of."""
    if source.is_file():
        with tarfile.open(source, "r:gz") as archive:
            names = {name.partition("/")[0] for name in archive.getnames()}
    else:
        names = {path.name for path in source.iterdir() if path.is_dir()}
    return sorted(int(name) for name in names if name.isdigit())


def pack(folder: Path, archive: Path) -> int:
    """Write the games (``.json`` only) of ``folder`` to the gzipped tar ``archive``, atomically
    and byte for byte the same for the same games (sorted names, no dates or owners)."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        count = 0
        for size in sizes_in(folder):
            for name, record in records(folder, size):
                data = (json.dumps(record, indent=1) + "\n").encode("utf-8")
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(data))
                count += 1
    atomic_write(archive, buffer.getvalue())
    print(f"{count} games -> {archive} ({len(buffer.getvalue()):,} bytes)")
    return 0


def finished_games(folder: Path, size: int) -> int:
    """How many games of ``size`` in ``folder`` ended by two passes (and were judged)."""
    return sum(1 for _, record in records(folder, size) if record["end"] == "passes")


def generate(
    folder: Path, seed: int, wanted: dict[int, int], shard: tuple[int, int] = (0, 1)
) -> None:
    """Play and judge games until each size has ``wanted[size]`` games ended by two passes.

    ``shard = (k, n)`` plays only the game indices ``k, k + n, k + 2n, ...``, so that ``n``
    processes (on one machine or several sharing the folder) share the work; game ``i`` is the
    same whoever plays it. Each counts the folder's finished games after every game and stops
    when there are enough, so a sharded run may end with up to ``n - 1`` games more than asked
    for, and with a few indices below its last left unplayed.
    """
    k, n = shard
    for size, count in wanted.items():
        finished = finished_games(folder, size)
        index = k
        while finished < count:
            path = game_path(folder, size, index, ".json")
            if path.exists():
                index += n
                continue
            started = time.monotonic()
            record = play_game(size, game_seed(seed, size, index))
            if record["end"] == "passes":
                try:
                    record["gnugo"] = judge(record)
                except EngineError as error:
                    record["end"] = f"judge failed: {error}"
            write_atomically(game_path(folder, size, index, ".sgf"), sgf_text(record))
            write_atomically(path, json.dumps(record, indent=1) + "\n")
            finished = (
                finished_games(folder, size) if n > 1 else finished + (record["end"] == "passes")
            )
            verdict = record.get("gnugo", {}).get("chinese", {}).get("score", "-")
            print(
                f"{size}x{size} game {index}: {record['black']} - {record['white']}, "
                f"{len(record['moves'])} moves, {record['end']}, GNU Go {verdict} "
                f"({time.monotonic() - started:.1f} s; {finished}/{count} finished)",
                flush=True,
            )
            index += n


def generate_in_parallel(folder: Path, seed: int, games: list[str], jobs: int) -> int:
    """Run ``generate`` in ``jobs`` processes (shards ``k/jobs``) and wait for all of them;
    an interrupt stops them all. Returns the worst exit status."""
    command = [sys.executable, __file__, "generate", str(folder), "--seed", str(seed)]
    children = [
        subprocess.Popen([*command, "--shard", f"{k}/{jobs}", "--games", *games])
        for k in range(jobs)
    ]
    try:
        return max(child.wait() for child in children)
    except KeyboardInterrupt:
        for child in children:
            child.terminate()
        for child in children:
            child.wait()
        return 130


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> ``(K, N)`` with ``0 <= K < N``."""
    k, _, n = text.partition("/")
    try:
        shard = int(k), int(n)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a shard is K/N, not {text!r}") from None
    if not 0 <= shard[0] < shard[1]:
        raise argparse.ArgumentTypeError(f"a shard K/N needs 0 <= K < N, not {text!r}")
    return shard


# -- the comparison ------------------------------------------------------------------------------


def parse_score(text: str) -> float:
    """``B+3.5`` -> 3.5, ``W+2`` -> -2, ``0`` -> 0 (Black's margin)."""
    text = text.strip()
    if text in ("0", "Draw", "draw"):
        return 0.0
    sign = 1.0 if text[0] in "Bb" else -1.0
    return sign * float(text[2:])


def winner_of(margin: float) -> str:
    return "B" if margin > 0 else "W" if margin < 0 else "0"


@dataclass
class Tally:
    games: int = 0
    same_winner: int = 0
    same_margin: int = 0
    undecided: int = 0
    seconds: list[float] | None = None

    def line(self, name: str) -> str:
        def pct(n: int) -> str:
            return f"{n}/{self.games} ({100 * n / max(self.games, 1):.1f} %)"

        times = sorted(self.seconds or [0.0])
        return (
            f"{name}: {self.games} games; same winner {pct(self.same_winner)}; "
            f"same margin {pct(self.same_margin)}; imago undecided in {self.undecided}; "
            f"CPU per count median {1000 * statistics.median(times):.1f} ms, "
            f"max {1000 * times[-1]:.1f} ms"
        )


def compare(folder: Path, sizes: list[int], rule_sets: list[str], show: bool, as_json: bool) -> int:
    from imago.games.go import count

    tallies: dict[str, Tally] = {}
    disagreements: list[dict[str, Any]] = []
    count(new_game(9))  # load the compiled kernels outside the timing
    for size in sizes:
        for name, record in records(folder, size):
            if record["end"] != "passes" or "gnugo" not in record:
                continue
            for rules_name in rule_sets:
                scoring = Scoring.AREA if rules_name == "chinese" else Scoring.TERRITORY
                rules = GoRules(KoRule.SIMPLE, False, scoring, float(record["komi"]))
                position = replay(record, rules)
                started = time.process_time()
                result = count(position)
                seconds = time.process_time() - started
                verdict = record["gnugo"][rules_name]
                theirs = parse_score(verdict["score"])
                outcome = result.outcome
                ours = (outcome.black_score or 0.0) - (outcome.white_score or 0.0)
                key = f"{size}x{size} {rules_name}"
                tally = tallies.setdefault(key, Tally(seconds=[]))
                tally.games += 1
                assert tally.seconds is not None
                tally.seconds.append(seconds)
                same_winner = winner_of(ours) == winner_of(theirs)
                same_margin = abs(ours - theirs) < 1e-9
                tally.same_winner += same_winner
                tally.same_margin += same_margin
                tally.undecided += bool(result.unsettled)
                if not same_margin:
                    ours_dead = sorted(Move.play(p).to_gtp(size) for p in result.dead)
                    disagreements.append(
                        {
                            "game": name,
                            "rules": rules_name,
                            "players": f"{record['black']} - {record['white']}",
                            "gnugo": verdict["score"],
                            "imago": outcome.result(),
                            "winner": "same" if same_winner else "DIFFERENT",
                            "gnugo_dead_only": sorted(set(verdict["dead"]) - set(ours_dead)),
                            "imago_dead_only": sorted(set(ours_dead) - set(verdict["dead"])),
                            "imago_unsettled": sorted(
                                Move.play(p).to_gtp(size) for p in result.unsettled
                            ),
                        }
                    )
    if as_json:
        summary = {key: vars(t) | {"seconds": None} for key, t in tallies.items()}
        print(json.dumps({"tallies": summary, "disagreements": disagreements}, indent=1))
        return 0
    for key, tally in tallies.items():
        print(tally.line(key))
    if show:
        for item in disagreements:
            print(
                f"  {item['game']} [{item['rules']}] {item['players']}: GNU Go {item['gnugo']}, "
                f"imago {item['imago']} (winner {item['winner']}); dead only for GNU Go: "
                f"{' '.join(item['gnugo_dead_only']) or '-'}; only for imago: "
                f"{' '.join(item['imago_dead_only']) or '-'}; imago unsettled: "
                f"{' '.join(item['imago_unsettled']) or '-'}"
            )
    return 0


def _point_list(size: int, texts: list[str]) -> list[Point]:
    points = []
    for text in texts:
        point = Move.from_gtp(text, size).point
        assert point is not None
        points.append(point)
    return points


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("generate", help="play and judge the games")
    make.add_argument("folder", type=Path)
    make.add_argument("--seed", type=int, default=1)
    make.add_argument(
        "--games",
        nargs="+",
        default=["9=500", "13=150", "19=50"],
        help="SIZE=COUNT: finished games wanted per board size",
    )
    make.add_argument(
        "--shard", type=parse_shard, default=(0, 1), help="K/N: play only the indices K mod N"
    )
    make.add_argument("--jobs", type=int, default=1, help="processes playing games at once")
    packing = commands.add_parser("pack", help="the games of a folder as one .tar.gz")
    packing.add_argument("folder", type=Path)
    packing.add_argument("archive", type=Path)
    check = commands.add_parser("compare", help="imago's count against GNU Go's")
    check.add_argument("folder", type=Path, help="a corpus folder or an archive made by pack")
    check.add_argument("--size", type=int, action="append", help="board sizes (default all)")
    check.add_argument("--rules", choices=("chinese", "japanese", "both"), default="both")
    check.add_argument("--list", action="store_true", help="print every disagreement")
    check.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "generate":
        wanted = {}
        for item in args.games:
            size, _, count = item.partition("=")
            if not (size.isdigit() and count.isdigit()):
                parser.error(f"--games takes SIZE=COUNT items, not {item!r}")
            wanted[int(size)] = int(count)
        if args.jobs < 1:
            parser.error("--jobs must be at least 1")
        if args.jobs > 1 and args.shard != (0, 1):
            parser.error("give --jobs or --shard, not both")
        if not os.access(GNUGO, os.X_OK):
            parser.error(
                f"GNU Go is not at {GNUGO}: install it (Debian: apt-get install gnugo) or set "
                "GNUGO to its path"
            )
        if args.jobs > 1:
            return generate_in_parallel(args.folder, args.seed, args.games, args.jobs)
        with contextlib.suppress(KeyboardInterrupt):
            generate(args.folder, args.seed, wanted, args.shard)
        return 0
    if not args.folder.exists():
        parser.error(f"{args.folder} does not exist")
    if args.command == "pack":
        if not args.archive.parent.is_dir():
            parser.error(f"the folder {args.archive.parent} for the archive does not exist")
        return pack(args.folder, args.archive)
    sizes = args.size or sizes_in(args.folder)
    rule_sets = ["chinese", "japanese"] if args.rules == "both" else [args.rules]
    return compare(args.folder, sizes, rule_sets, args.list, args.json)


if __name__ == "__main__":
    sys.exit(main())
