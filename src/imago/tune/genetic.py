"""A genetic algorithm for the Othello evaluation (seed 002), with fitness from games.

Seed 002 evolves the positional mask of its alpha-beta evaluation: a gene is one row of the
mask, a genome the whole mask; a child takes each row from one of two parents (or their
average), each row mutates with probability 0.1 into a new random row, fitness comes from games
between individuals, and a round robin of the last generation names the winner. Here:

* the genome is the mask of every game phase of the alpha-beta agent's phase evaluation
  (opening, midgame, late: :func:`imago.agents.othello.weights.load_othello_weights`), optionally
  with the phases' feature weights (mobility, potential mobility, corners, stable discs, discs);
  ``symmetric`` evolves a quarter of each mask (002's suggestion) mirrored to the whole board;
* fitness is the score (win 1, draw 1/2) in games against other individuals (``peers``) and
  against fixed ``references`` (by default 002's hand-made masks), each pairing played as
  colour-swapped pairs of games from the same openings, every individual meeting the
  references on the same openings; the games are played by the arena
  (:func:`imago.arena.match.run_games`, over ``jobs`` processes or a cluster's executor) at a
  fixed search depth, so they are reproducible wherever they run;
* the next generation keeps the ``elite`` best and is filled with children of parents chosen
  by tournament selection (the fittest of ``tournament`` drawn at random), crossed (``rows``,
  as 002: each gene from one parent; or ``average``) and mutated (each gene replaced, with
  probability ``mutation``, by a random one);
* :func:`final_round_robin` plays the round robin of the last generation, as 002 does.

A run lives in a folder::

    ga.json                      the configuration (a resumed run must have the same one)
    gen_003/weights/ind_00.json  each individual of generation 3 as a weights file
    gen_003/population.json      the generation's genomes (written last: the generation exists)
    gen_003/match.json, games/   its games (an arena tournament folder, one file per game)
    gen_003/fitness.json         the fitness of each individual (the generation is done)
    best.json                    the fittest individual of the last finished generation
    gen_003/final/               generation 3's round robin, played when it is the last one
    champion.json                the winner of the last round robin played

Every random choice comes from ``(seed, generation, purpose)`` and every file is written
atomically, so the same configuration gives the same run, and a run stopped at any point (even
by ``kill -9``) resumes where it stopped, keeping the games already played.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from imago.agents.othello.weights import (
    WEIGHT_FEATURES,
    load_othello_weights,
    save_othello_weights,
)
from imago.arena.game import GameSettings
from imago.arena.match import (
    GameRecord,
    MatchSettings,
    Pairing,
    Player,
    check_nodes,
    derived_seed,
    run_games,
    write_atomically,
)

if TYPE_CHECKING:
    from imago.cluster import Executor, Tally

FEATURES = len(WEIGHT_FEATURES) - 1
"""Feature weights per phase in a genome (``min_empties`` is not evolved)."""
CROSSOVERS = ("rows", "average")
SIZES = (4, 6, 8)
_PURPOSE_INITIAL, _PURPOSE_SCHEDULE, _PURPOSE_BREED = 1, 2, 3

Genome = npt.NDArray[np.int64]
"""``int64[phases, size * size + FEATURES]``: each phase's mask (row by row) and features."""


@dataclass(frozen=True)
class GAConfig:
    """Everything that decides a run (the ``generations`` may grow when a run is resumed)."""

    size: int = 8
    """The board (8, 6 or 4)."""
    population: int = 12
    generations: int = 10
    depth: int = 2
    """Search depth of every player (a fixed depth keeps the games reproducible)."""
    endgame_empties: int = 10
    """Players solve exactly from this many empties (0: never)."""
    peers: int = 1
    """Each individual meets ``2 * peers`` others of its generation; -1: all of them."""
    references: tuple[str, ...] = ("mask",)
    """Fixed opponents, as ``weights`` option values at the same depth: ``mask`` (002's masks),
    ``patterns`` (the WTHOR pattern evaluation, 8x8 only) or a weights file."""
    games_per_pair: int = 4
    """Games of each pairing: colour-swapped pairs, one opening per pair."""
    opening_plies: int = 4
    """Random plies before the players take over (unless ``openings`` are given)."""
    openings: tuple[tuple[str, ...], ...] = ()
    crossover: str = "rows"
    mutation: float = 0.1
    """Probability that a gene is replaced by a random one."""
    elite: int = 2
    tournament: int = 3
    symmetric: bool = False
    """Evolve the top-left quarter of each mask, mirrored to the other three."""
    features: bool = False
    """Evolve the feature weights too (a gene per phase)."""
    mask_range: int = 100
    """Random mask values are integers in ``[-mask_range, mask_range]``."""
    start: str = ""
    """The weights of individual 0 (and of the phases' boundaries); empty: 002's masks."""
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "references", tuple(self.references))
        object.__setattr__(self, "openings", tuple(tuple(o) for o in self.openings))
        checks = [
            (self.size in SIZES, f"size must be one of {SIZES}"),
            (self.population >= 2, "a population needs at least 2 individuals"),
            (self.generations >= 1, "generations must be at least 1"),
            (self.depth >= 1, "depth must be at least 1"),
            (self.endgame_empties >= 0, "endgame_empties must be at least 0"),
            (
                self.peers == -1 or 0 <= self.peers <= (self.population - 1) // 2,
                f"peers must be -1 (all) or 0..{(self.population - 1) // 2}",
            ),
            (self.peers != 0 or bool(self.references), "no games: give peers or references"),
            (self.games_per_pair >= 1, "games_per_pair must be at least 1"),
            (self.opening_plies >= 0, "opening_plies must be at least 0"),
            (self.crossover in CROSSOVERS, f"crossover must be one of {CROSSOVERS}"),
            (0.0 <= self.mutation <= 1.0, "mutation must be within 0..1"),
            (0 <= self.elite < self.population, "elite must be within 0..population-1"),
            (self.tournament >= 1, "tournament must be at least 1"),
            (self.mask_range >= 1, "mask_range must be at least 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        if "patterns" in self.references and self.size != 8:
            raise ValueError("the pattern evaluation (reference 'patterns') is 8x8 only")

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["references"] = list(self.references)
        data["openings"] = [list(o) for o in self.openings]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GAConfig:
        values = dict(data)
        values["references"] = tuple(values.get("references", ()))
        values["openings"] = tuple(tuple(o) for o in values.get("openings", ()))
        return cls(**values)


# -- genomes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gene:
    """The genome entries one gene covers (flat indices of a phase's row) and how a random
    value for it is drawn."""

    phase: int
    indices: npt.NDArray[np.intp]
    kind: str
    """``row``: a mask row (or, symmetric, a mirrored quarter row); ``features``."""


class Layout:
    """The genes of a genome for a configuration and a base (phases and their features)."""

    def __init__(self, config: GAConfig, base: Genome) -> None:
        self.config = config
        self.base = base
        size = config.size
        self.squares = size * size
        phases = base.shape[0]
        genes: list[Gene] = []
        rows = range(size // 2) if config.symmetric else range(size)
        for phase in range(phases):
            for row in rows:
                if config.symmetric:
                    cells = [row * size + c for c in range(size)]
                    cells += [(size - 1 - row) * size + c for c in range(size)]
                else:
                    cells = [row * size + c for c in range(size)]
                genes.append(Gene(phase, np.array(cells, dtype=np.intp), "row"))
            if config.features:
                cells = list(range(self.squares, self.squares + FEATURES))
                genes.append(Gene(phase, np.array(cells, dtype=np.intp), "features"))
        self.genes = tuple(genes)

    def random_value(self, gene: Gene, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """A new random value of ``gene`` (002's mutation: a whole new row)."""
        size = self.config.size
        if gene.kind == "features":
            base = self.base[gene.phase, gene.indices].astype(np.float64)
            scaled: npt.NDArray[np.int64] = np.rint(base * rng.uniform(0.0, 2.0, len(base))).astype(
                np.int64
            )
            return scaled
        span = self.config.mask_range
        if not self.config.symmetric:
            return rng.integers(-span, span + 1, size=size).astype(np.int64)
        quarter = rng.integers(-span, span + 1, size=size // 2).astype(np.int64)
        row = np.concatenate([quarter, quarter[::-1]])
        return np.concatenate([row, row])

    def random_genome(self, rng: np.random.Generator) -> Genome:
        """A genome with every mask gene random (features as the base)."""
        genome = self.base.copy()
        for gene in self.genes:
            if gene.kind == "row":
                genome[gene.phase, gene.indices] = self.random_value(gene, rng)
        return genome

    def crossover(self, a: Genome, b: Genome, rng: np.random.Generator) -> Genome:
        """A child of ``a`` and ``b``: each gene from one of them (``rows``) or their mean."""
        child = a.copy()
        for gene in self.genes:
            if self.config.crossover == "average":
                mean = (a[gene.phase, gene.indices] + b[gene.phase, gene.indices]) / 2
                child[gene.phase, gene.indices] = np.rint(mean).astype(np.int64)
            elif rng.random() < 0.5:
                child[gene.phase, gene.indices] = b[gene.phase, gene.indices]
        return child

    def mutate(self, genome: Genome, rng: np.random.Generator) -> Genome:
        """Each gene replaced by a random one with probability ``mutation``."""
        mutant = genome.copy()
        for gene in self.genes:
            if rng.random() < self.config.mutation:
                mutant[gene.phase, gene.indices] = self.random_value(gene, rng)
        return mutant


def genome_of(table: npt.NDArray[np.int64], size: int) -> Genome:
    """The genome of a ``(phases, 70)`` weights table (masks on bits ``row * 8 + col``)."""
    squares = [r * 8 + c for r in range(size) for c in range(size)]
    return np.concatenate([table[:, squares], table[:, 64 : 64 + FEATURES]], axis=1)


def table_of(
    genome: Genome, size: int, min_empties: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """The ``(phases, 70)`` weights table of a genome, with the phases' ``min_empties``."""
    table = np.zeros((genome.shape[0], 64 + len(WEIGHT_FEATURES)), dtype=np.int64)
    for index in range(size * size):
        table[:, index // size * 8 + index % size] = genome[:, index]
    table[:, 64 : 64 + FEATURES] = genome[:, size * size :]
    table[:, -1] = min_empties
    return table


# -- the run folder ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Fitness:
    """How an individual did in its generation's games."""

    label: str
    games: int
    points: float
    reference_games: int
    reference_points: float

    @property
    def score(self) -> float:
        """Points per game (the fitness); 0 without games."""
        return self.points / self.games if self.games else 0.0

    @property
    def reference_score(self) -> float | None:
        """Points per game against the references (``None`` without references)."""
        return self.reference_points / self.reference_games if self.reference_games else None


@dataclass(frozen=True)
class Generation:
    """A finished generation: its individuals' fitness, in population order."""

    number: int
    fitness: tuple[Fitness, ...]

    @property
    def best(self) -> int:
        """The index of the fittest individual (the first of equals)."""
        return max(range(len(self.fitness)), key=lambda i: (self.fitness[i].score, -i))

    @property
    def mean(self) -> float:
        return float(np.mean([f.score for f in self.fitness]))


GameCallback = Callable[[int, GameRecord, int, int], None]
"""Receives ``(generation, record, games finished, games scheduled)`` after each game."""
GenerationCallback = Callable[[Generation], None]


class GeneticRun:
    """A run of the genetic algorithm in ``folder`` (see the module docstring)."""

    def __init__(self, folder: str | Path, config: GAConfig) -> None:
        self.folder = Path(folder)
        self.config = config
        start = load_othello_weights(config.start or None, config.size)
        self.min_empties = start[:, -1].copy()
        self.phase_count = start.shape[0]
        self.start = genome_of(start, config.size)
        self.layout = Layout(config, self.start)
        self._check_folder()

    # -- files ---------------------------------------------------------------------------------
    def _check_folder(self) -> None:
        header = self.folder / "ga.json"
        if header.exists():
            saved = GAConfig.from_json(json.loads(header.read_text(encoding="utf-8")))
            if dataclasses.replace(saved, generations=self.config.generations) != self.config:
                raise ValueError(
                    f"{self.folder} holds a run with other settings (only --generations may "
                    "change when a run is resumed)"
                )
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomically(header, json.dumps(self.config.to_json(), indent=1) + "\n")

    def generation_folder(self, number: int) -> Path:
        return self.folder / f"gen_{number:03d}"

    def weights_path(self, number: int, index: int) -> Path:
        return self.generation_folder(number) / "weights" / f"ind_{index:02d}.json"

    def label(self, number: int, index: int) -> str:
        return f"g{number:03d}i{index:02d}"

    def population(self, number: int) -> list[Genome] | None:
        """The genomes of generation ``number`` (``None`` if not made yet)."""
        path = self.generation_folder(number) / "population.json"
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return [np.array(genome, dtype=np.int64) for genome in data["genomes"]]

    def generation(self, number: int) -> Generation | None:
        """Generation ``number`` with its fitness (``None`` if not finished)."""
        path = self.generation_folder(number) / "fitness.json"
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return Generation(number, tuple(Fitness(**item) for item in data["fitness"]))

    def history(self) -> list[Generation]:
        """The finished generations, in order."""
        found = []
        number = 0
        while (generation := self.generation(number)) is not None:
            found.append(generation)
            number += 1
        return found

    def table(self, genome: Genome) -> npt.NDArray[np.int64]:
        """The weights table of a genome."""
        return table_of(genome, self.config.size, self.min_empties)

    def save_weights(self, path: Path, genome: Genome, description: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        names = ["opening", "midgame", "late"] if self.phase_count == 3 else ()
        save_othello_weights(
            path, self.table(genome), self.config.size, names=names, description=description
        )

    def _write_population(self, number: int, genomes: Sequence[Genome]) -> None:
        for index, genome in enumerate(genomes):
            self.save_weights(
                self.weights_path(number, index),
                genome,
                f"imago tune ga: generation {number}, individual {index} "
                f"({self.label(number, index)}) of the run in {self.folder}",
            )
        data = {"generation": number, "genomes": [g.tolist() for g in genomes]}
        write_atomically(
            self.generation_folder(number) / "population.json", json.dumps(data) + "\n"
        )

    # -- players and games ---------------------------------------------------------------------
    def player_spec(self, weights: str) -> str:
        """The agent spec of a player with ``weights`` at the run's depth (no time limit, so the
        search is deterministic)."""
        return (
            f'alphabeta:weights="{weights}",depth={self.config.depth},'
            f"endgame_empties={self.config.endgame_empties},table_bits=16,time=1000000"
        )

    def reference_players(self) -> list[Player]:
        players = []
        for reference in self.config.references:
            weights = "" if reference == "patterns" else reference
            name = reference if reference in ("mask", "patterns") else Path(reference).stem
            players.append(Player(f"ref_{name}", self.player_spec(weights)))
        return players

    def individual_players(self, number: int) -> list[Player]:
        size = self.config.population
        return [
            Player(self.label(number, i), self.player_spec(str(self.weights_path(number, i))))
            for i in range(size)
        ]

    def settings(self, number: int) -> MatchSettings:
        return MatchSettings(
            game=GameSettings("othello", self.config.size),
            seed=derived_seed(self.config.seed, number),
            opening_plies=self.config.opening_plies,
            openings=self.config.openings,
        )

    def schedule(self, number: int) -> list[Pairing]:
        """The generation's games: each individual against its peers (the circle method over a
        shuffled order) and against each reference, ``games_per_pair`` games a pairing with
        colours alternating and opening ``k // 2`` for game ``k``."""
        from imago.arena.tournament import pair_schedule

        config = self.config
        players = self.individual_players(number)
        pairs: list[tuple[Player, Player]] = []
        n = len(players)
        if config.peers == -1:
            pairs += [(players[i], players[j]) for i in range(n) for j in range(i + 1, n)]
        elif config.peers > 0:
            rng = np.random.default_rng(derived_seed(config.seed, number, _PURPOSE_SCHEDULE))
            order = [int(i) for i in rng.permutation(n)]
            for offset in range(1, config.peers + 1):
                pairs += [(players[order[j]], players[order[(j + offset) % n]]) for j in range(n)]
        for reference in self.reference_players():
            pairs += [(player, reference) for player in players]
        return pair_schedule(pairs, config.games_per_pair)

    def fitness(self, number: int, records: Sequence[GameRecord]) -> Generation:
        labels = [p.label for p in self.individual_players(number)]
        references = {p.label for p in self.reference_players()}
        fitness = []
        for label in labels:
            mine = [r for r in records if label in (r.black, r.white)]
            against = [r for r in mine if ({r.black, r.white} - {label}) <= references]
            fitness.append(
                Fitness(
                    label,
                    len(mine),
                    sum(r.points(label) for r in mine),
                    len(against),
                    sum(r.points(label) for r in against),
                )
            )
        return Generation(number, tuple(fitness))

    # -- breeding ------------------------------------------------------------------------------
    def initial_population(self) -> list[Genome]:
        """Individual 0 is the start (002's masks); the others have random masks."""
        rng = np.random.default_rng(derived_seed(self.config.seed, 0, _PURPOSE_INITIAL))
        rest = [self.layout.random_genome(rng) for _ in range(self.config.population - 1)]
        return [self.start.copy(), *rest]

    def next_population(self, genomes: Sequence[Genome], generation: Generation) -> list[Genome]:
        """The elite, then children of tournament-selected parents, crossed and mutated."""
        config = self.config
        rng = np.random.default_rng(
            derived_seed(config.seed, generation.number + 1, _PURPOSE_BREED)
        )
        scores = [f.score for f in generation.fitness]
        ranked = sorted(range(len(genomes)), key=lambda i: (-scores[i], i))
        children = [genomes[i].copy() for i in ranked[: config.elite]]

        def select() -> Genome:
            drawn = rng.choice(len(genomes), size=config.tournament, replace=True)
            return genomes[min((int(i) for i in drawn), key=lambda i: (-scores[i], i))]

        while len(children) < config.population:
            child = self.layout.crossover(select(), select(), rng)
            children.append(self.layout.mutate(child, rng))
        return children

    # -- the loop ------------------------------------------------------------------------------
    def run(
        self,
        *,
        jobs: int = 1,
        on_game: GameCallback | None = None,
        on_generation: GenerationCallback | None = None,
        executor: Executor | None = None,
        tally: Tally | None = None,
    ) -> list[Generation]:
        """Make, play and score the generations not finished yet; all finished ones.

        The games run on ``jobs`` local processes, or on ``executor`` (:mod:`imago.cluster`,
        a Ray cluster for one) when one is given: then every node is first asked to make each
        individual of the generation, so that a node that cannot read the weights files (the
        run's folder must be at the same path everywhere, on a shared filesystem) is named
        before any game (:class:`~imago.cluster.ClusterError`); ``tally`` counts the games by
        node."""
        for number in range(self.config.generations):
            if self.generation(number) is not None:
                continue
            genomes = self.population(number)
            if genomes is None:
                if number == 0:
                    genomes = self.initial_population()
                else:
                    previous = self.population(number - 1)
                    finished = self.generation(number - 1)
                    assert previous is not None and finished is not None
                    genomes = self.next_population(previous, finished)
                self._write_population(number, genomes)
            generation = self._play(number, jobs, on_game, executor, tally)
            self._finish(number, genomes, generation)
            if on_generation is not None:
                on_generation(generation)
        return self.history()

    def _play(
        self,
        number: int,
        jobs: int,
        on_game: GameCallback | None,
        executor: Executor | None,
        tally: Tally | None,
    ) -> Generation:
        schedule = self.schedule(number)
        if executor is not None:
            players = {p.label: p for g in schedule for p in (g.black, g.white)}
            check_nodes(executor, list(players.values()), "othello")
        folder = self.generation_folder(number)  # match.json beside weights/, games/ below
        finished = [0]

        def on_result(record: GameRecord) -> bool:
            finished[0] += 1
            if on_game is not None:
                on_game(number, record, finished[0], len(schedule))
            return False

        records = run_games(
            self.settings(number),
            schedule,
            folder=folder,
            jobs=jobs,
            on_result=on_result,
            kind="tournament",
            executor=executor,
            tally=tally,
        )
        return self.fitness(number, records)

    def _finish(self, number: int, genomes: Sequence[Genome], generation: Generation) -> None:
        best = generation.best
        fitness = generation.fitness[best]
        self.save_weights(
            self.folder / "best.json",
            genomes[best],
            f"imago tune ga: the fittest of generation {number} ({fitness.label}, score "
            f"{fitness.score:.3f} over {fitness.games} games) of the run in {self.folder}",
        )
        data = {
            "generation": number,
            "fitness": [dataclasses.asdict(f) for f in generation.fitness],
        }
        write_atomically(
            self.generation_folder(number) / "fitness.json", json.dumps(data, indent=1) + "\n"
        )


FinalStart = Callable[[int, Path, int, int], None]
"""``(generation, folder, games already played, games scheduled)`` before a round robin."""


def final_folder(run: GeneticRun, number: int) -> Path:
    """Where generation ``number``'s round robin is played: ``gen_NNN/final``, or the run's
    ``final/`` where an older run played that generation's round robin there."""
    legacy = run.folder / "final"
    header = legacy / "match.json"
    if header.is_file():
        players = json.loads(header.read_text(encoding="utf-8")).get("players", {})
        if set(players) == {p.label for p in run.individual_players(number)}:
            return legacy
    return run.generation_folder(number) / "final"


def final_round_robin(
    run: GeneticRun,
    *,
    games_per_pair: int | None = None,
    jobs: int = 1,
    on_result: Callable[[GameRecord], bool] | None = None,
    executor: Executor | None = None,
    tally: Tally | None = None,
    on_start: FinalStart | None = None,
) -> list[GameRecord]:
    """The round robin of the last finished generation (002's final tournament), played in
    its :func:`final_folder` with the run's depth and openings (on ``jobs`` processes or on
    ``executor``, as :meth:`GeneticRun.run`); its winner (most points) is written to
    ``champion.json``. Resumable like every match folder: the games already in the folder are
    not played again (``on_start`` is told how many), and a run extended by more generations
    plays the new last generation's round robin in that generation's folder."""
    from imago.arena.match import MatchFolder
    from imago.arena.tournament import round_robin, standings

    history = run.history()
    if not history:
        raise ValueError(f"{run.folder} has no finished generation")
    number = history[-1].number
    genomes = run.population(number)
    assert genomes is not None
    players = run.individual_players(number)
    schedule = round_robin(players, games_per_pair or run.config.games_per_pair)
    settings = dataclasses.replace(run.settings(number), seed=derived_seed(run.config.seed, 999))
    if executor is not None:
        check_nodes(executor, players, "othello")
    folder = final_folder(run, number)
    if on_start is not None:
        planned = {pairing.index for pairing in schedule}
        played = sum(index in planned for index in MatchFolder(folder).records())
        on_start(number, folder, played, len(schedule))
    records = run_games(
        settings, schedule, folder=folder, jobs=jobs, on_result=on_result,
        kind="tournament", executor=executor, tally=tally,
    )  # fmt: skip
    table = standings(records, [p.label for p in players])
    winner = table[0].player
    index = [p.label for p in players].index(winner)
    run.save_weights(
        run.folder / "champion.json",
        genomes[index],
        f"imago tune ga: the winner of the round robin of generation {number} ({winner}, "
        f"{table[0].points:g} points in {table[0].games} games) of the run in {run.folder}",
    )
    return records
