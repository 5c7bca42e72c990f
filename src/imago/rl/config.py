"""The settings of a reinforcement-learning run, in one frozen object saved in ``run.json``."""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from imago.nn.rl_train import StepsConfig
from imago.rl.folder import RunError
from imago.rl.selfplay import GameSpec, SelfPlayConfig


@dataclass(frozen=True, slots=True)
class EvalConfig:
    """Gating (an option): the new network against the best, promoted at ``gate`` (or by SPRT).

    ``games=0``, the default, turns gating off: every new generation is promoted as soon as
    it is trained (continuous training, as KataGo and Leela Chess Zero do), and the run is
    measured against fixed anchors instead (:attr:`ReferenceConfig.anchors`). Gates chained
    on each other walked networks down here: a 40-game gate at 55 % promotes a network no
    stronger than the best about a third of the time."""

    games: int = 0
    simulations: int = 100
    gate: float = 0.55
    sprt: bool = False
    """Decide by an SPRT (Elo 0 against ``sprt_elo``) instead, up to ``games`` games."""
    sprt_elo: float = 35.0
    opening_plies: int = 4
    """Random opening moves, the same for both games of a colour-swapped pair."""
    jobs: int = 1

    def __post_init__(self) -> None:
        if self.games < 0:
            raise ValueError("evaluation.games must be >= 0 (0: no gate)")


@dataclass(frozen=True, slots=True)
class ReferenceConfig:
    """Fixed opponents every ``every`` generations, for an Elo curve (``label=spec`` each),
    and fixed generations of the run itself (``anchors``)."""

    opponents: tuple[str, ...] = ()
    anchors: tuple[int, ...] = (0,)
    """Generations of this run that each measured generation newer than them also plays
    (``0``: the network the run started from, the anchor its Elo curve is measured against),
    at the same simulations: each anchor is one more match of ``games`` games. A checkpoint
    keeps their networks; ``imago rl set`` refuses one the run no longer holds."""
    games: int = 20
    simulations: int = 200
    every: int = 1
    opening_plies: int = 4
    jobs: int = 1

    def __post_init__(self) -> None:
        generations = isinstance(self.anchors, tuple) and all(
            isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in self.anchors
        )
        if not generations:
            shown = list(self.anchors) if isinstance(self.anchors, tuple) else self.anchors
            raise ValueError(
                f"references.anchors is a list of generations (whole numbers >= 0), not {shown!r}"
            )
        if self.games < 1:
            raise ValueError(f"references.games must be >= 1 (got {self.games})")


@dataclass(frozen=True, slots=True)
class LoopConfig:
    """Everything a run decides (see ``imago rl init --help`` for the command-line names)."""

    spec: GameSpec
    model: str = "b4c32"
    """The network's size (``bBcC``) when the run starts from random weights."""
    features: str = "legal4"
    bootstrap: str = ""
    """A model file to start from (``imago train supervised``'s, say); empty: random."""
    games_per_round: int = 500
    """Self-play games between two trainings."""
    holdout_fraction: float = 0.05
    window_rounds: int = 5
    """Train on the examples of this many most recent rounds (with ``window_growth``, the
    most) ..."""
    window_positions: int = 500_000
    """... at most this many positions."""
    window_growth: float = 0.0
    """Above 0: the window grows with the run, as KataGo's does (Wu 2019, section 5.1; its
    ``shuffle.py``): ``window_start`` rounds while the run is young, then
    ``start * (1 + growth * ((rounds / start) ** exponent - 1) / exponent)`` of the
    ``rounds`` played so far (KataGo's 0.4 and 0.75, counted in rounds of
    ``games_per_round`` games where KataGo counts positions), at most ``window_rounds``. Early
    networks are weak and their games soon outdated; later ones change less from one
    generation to the next, so a longer history is worth keeping. 0: a fixed window."""
    window_start: int = 4
    """... the rounds it starts from (KataGo's ``c``, there 250,000 positions)."""
    window_exponent: float = 0.75
    """... how fast it grows (KataGo's ``alpha``: 1 keeps the share ``growth`` of every new
    round, lower tapers off)."""
    train: StepsConfig = field(default_factory=StepsConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    evaluation: EvalConfig = field(default_factory=EvalConfig)
    references: ReferenceConfig = field(default_factory=ReferenceConfig)
    nn_threads: int = 0
    """ONNX Runtime's threads for self-play (0: one per core)."""
    nn_precision: str = "fp32"
    """The network's precision in self-play: ``fp32``, or ``int8`` (an int8 copy of each
    generation, calibrated on its own self-play positions: about 3.5x faster on a CPU with
    int8 dot products, see :mod:`imago.rl.precision`); training and matches stay float32."""
    records: tuple[str, ...] = ()
    """Real game records to validate each generation on (SGF files or archives, WTHOR files
    or folders): how well the network predicts the moves people (or strong programs) played
    and the results of their games."""
    records_years: tuple[int, int] | None = None
    """Only the records of these years (first, last)."""
    records_min_rank: str | None = None
    """Only Go games whose players both hold at least this rank (``1d``)."""
    records_limit: int = 20_000
    """Positions of the records evaluated per generation."""
    train_records: tuple[str, ...] = ()
    """Real game records to train on beside self-play (``train.records_share`` of every batch):
    other records than ``records``, so that validation stays on games no generation saw."""
    train_records_min_rank: str | None = None
    """Only Go games to train on whose players both hold at least this rank (``1d``)."""
    train_records_years: tuple[int, int] | None = None
    """Only the records of these years to train on (first, last)."""
    train_records_games: int = 5_000
    """The games of ``train_records`` to train on (the first ones that pass the filters)."""
    start_records: tuple[str, ...] = ()
    """Game records (SGF files, folders or archives: games against other engines, say) that
    ``selfplay.start_fraction`` of the self-play games start part-way through
    (:mod:`imago.rl.starts`)."""
    solver_positions: int = 0
    """Othello: validate each generation on this many positions the exact endgame solver
    labelled (0: none): how often the network's first choice, and the search's move, is one
    of the solver's best moves."""
    solver_empties: int = 16
    """... positions with at most this many empty squares."""
    solver_simulations: int = 200
    """... the search's simulations per position."""
    exact_targets: int = 0
    """Othello: the value target of a self-play position with at most this many empty squares
    is its exact result, from the endgame solver, instead of the result of the game played
    from it (0: the game's result everywhere). Late positions then teach the value head what
    perfect play gives, not what a noisy self-play endgame happened to give."""
    exact_backup: bool = False
    """Othello, with ``exact_targets``: the positions before a game's first solved example
    take its exact result too (the game as played to there, then perfect play), instead of
    the game's result: the moves of a fast, noisy self-play endgame no longer decide what the
    value head learns about the middle game. The solver's work is the same."""
    seed: int = 0

    def __post_init__(self) -> None:
        if self.window_rounds < 1 or self.window_start < 1:
            raise ValueError("window_rounds and window_start must be >= 1")
        if self.window_growth < 0:
            raise ValueError(f"window_growth must be >= 0 (got {self.window_growth})")
        if not 0.0 < self.window_exponent <= 1.0:
            raise ValueError(f"window_exponent must be above 0, at most 1 ({self.window_exponent})")
        if self.exact_targets < 0:
            raise ValueError("exact_targets must be >= 0")
        if self.exact_targets and self.spec.game != "othello":
            raise ValueError("exact_targets needs Othello (the endgame solver's game)")
        if self.exact_backup and not self.exact_targets:
            raise ValueError("exact_backup needs exact_targets (the positions the solver takes)")
        if self.train.records_share > 0 and not self.train_records:
            raise ValueError("train.records_share needs train_records (real records to train on)")
        validated = {Path(path).resolve() for path in self.records}
        shared = [path for path in self.train_records if Path(path).resolve() in validated]
        if shared:
            raise ValueError(
                f"{', '.join(sorted(shared))}: train_records and records (validation) must be "
                "other records, or the validation measures games the network trained on"
            )
        if self.nn_precision not in ("fp32", "int8"):
            raise ValueError(f"nn_precision is fp32 or int8, not {self.nn_precision!r}")
        if self.selfplay.start_fraction > 0 and not self.start_records:
            raise ValueError(
                "selfplay.start_fraction needs start_records (the games self-play starts in)"
            )
        if self.train_records_games < 1:
            raise ValueError("train_records_games must be >= 1")

    def window_size(self, round_: int) -> int:
        """The rounds in the training window that ends at ``round_`` (rounds count from 0)."""
        played = max(0, round_ + 1)
        if self.window_growth <= 0:
            return min(self.window_rounds, played)
        start, alpha = self.window_start, self.window_exponent
        if played <= start:
            return min(self.window_rounds, played)
        grown = start * (1 + self.window_growth * ((played / start) ** alpha - 1) / alpha)
        return min(self.window_rounds, played, int(grown))

    def window(self, round_: int) -> list[int]:
        """The rounds of the training window that ends at ``round_``, newest first (the one
        place that says which rounds a generation trains on, validates on and a checkpoint
        keeps)."""
        return list(range(round_, round_ - self.window_size(round_), -1))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["references"]["opponents"] = list(self.references.opponents)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LoopConfig:
        try:
            parts = {  # the game is required, the other parts default
                part: _build(kind, data["spec"] if part == "spec" else data.get(part, {}))
                for part, kind in _SECTIONS.items()
            }
            rest = _top_level(
                {k: v for k, v in data.items() if k in _names(cls) and k not in parts}
            )
            return cls(**parts, **rest)
        except (KeyError, TypeError, ValueError) as error:
            raise RunError(f"run settings are not readable: {error}") from None

    def with_changes(self, changes: dict[str, Any]) -> LoopConfig:
        """A copy with dotted-name changes (``{"selfplay.simulations": 400}``)."""
        return LoopConfig.from_json(changed_settings(self.to_json(), changes))


_SECTIONS: dict[str, type] = {
    "spec": GameSpec,
    "train": StepsConfig,
    "selfplay": SelfPlayConfig,
    "evaluation": EvalConfig,
    "references": ReferenceConfig,
}
"""The parts of :class:`LoopConfig` that are settings of their own (``selfplay.simulations``)."""


def setting_names() -> set[str]:
    """Every name a run's settings have, as ``--set`` and ``imago rl set`` take them: the
    top-level ones (``window_rounds``, and each part as a whole) and each part's fields
    (``selfplay.simulations``)."""
    names = _names(LoopConfig)
    return names | {f"{part}.{name}" for part, kind in _SECTIONS.items() for name in _names(kind)}


def changed_settings(data: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A copy of settings as JSON (:meth:`LoopConfig.to_json`) with dotted-name changes, not
    yet checked (:meth:`LoopConfig.from_json` checks them). Names are those of this imago's
    settings (:func:`setting_names`), so a run stored before a setting existed can set it;
    :class:`RunError` for any other name."""
    data = copy.deepcopy(data)
    known = setting_names()
    for name, value in changes.items():
        if name not in known:
            raise RunError(f"unknown setting {name!r}")
        *path, last = name.split(".")
        target = data
        for part in path:
            target = target.setdefault(part, {})
        target[last] = value
    return data


def _names(cls: type) -> set[str]:
    return {f.name for f in fields(cls)}


def _build(cls: type, data: dict[str, Any]) -> Any:
    unknown = set(data) - _names(cls)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} settings: {', '.join(sorted(unknown))}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return cls(**values)


_PATH_LISTS = ("records", "train_records", "start_records")
"""Settings that are lists of paths: one path alone (``imago rl set RUN records=FILE``) is a
list of one."""


def _top_level(data: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v,)
        if k in _PATH_LISTS and isinstance(v, str)
        else tuple(v)
        if isinstance(v, list)
        else v
        for k, v in data.items()
    }


def smoke_config(spec: GameSpec) -> LoopConfig:
    """``--test``: a tiny network and tiny settings, the whole loop in seconds."""
    return LoopConfig(
        spec=spec,
        model="b1c8",
        games_per_round=8,
        window_rounds=2,
        train=StepsConfig(steps=20, batch_size=32, lr=0.01, checkpoint_every=10),
        selfplay=SelfPlayConfig(parallel=8, simulations=8, considered=4, max_moves=40),
        evaluation=EvalConfig(games=4, simulations=8, opening_plies=2),
        references=ReferenceConfig(opponents=("random",), games=2, simulations=8),
        nn_threads=1,
    )


def preset(name: str, spec: GameSpec) -> LoopConfig:
    """Named starting points (options and ``--set`` change any field afterwards):

    * ``test``: a tiny network and tiny settings, the whole loop in seconds (``--test``);
    * ``scratch``: learning from random weights on a small board (6x6 Othello, 7x7 Go);
    * ``improve``: improving a supervised network (``--bootstrap MODEL``) on 8x8 Othello or
      9x9 Go.
    """
    if name == "test":
        return smoke_config(spec)
    if name == "scratch":
        return LoopConfig(
            spec=spec,
            model="b4c32",
            games_per_round=400,
            window_rounds=4,
            train=StepsConfig(steps=600, samples_per_position=8, batch_size=256, lr=0.02),
            selfplay=SelfPlayConfig(parallel=128, simulations=32, considered=8),
            references=ReferenceConfig(games=40, simulations=64, every=2),
        )
    if name == "improve":
        return LoopConfig(
            spec=spec,
            games_per_round=1000,
            window_rounds=4,
            train=StepsConfig(steps=600, samples_per_position=4, batch_size=256, lr=0.005),
            selfplay=SelfPlayConfig(
                parallel=128,
                simulations=64,
                fast_simulations=16,
                full_fraction=0.3,
                temperature_moves=20,
            ),
            references=ReferenceConfig(games=60, simulations=100, every=2),
        )
    raise RunError(f"unknown preset {name!r} (test, scratch, improve)")


PRESETS = ("test", "scratch", "improve")
