"""The stages of the loop, each a plain function over the run folder (MiniGo's ``rl_loop``).

    bootstrap -> self-play -> gather -> train -> validate -> evaluate (-> references) -> ...

Each stage reads the folder, does its work and writes its results back atomically, so each can
run alone (``imago rl selfplay``, ``imago rl train``, ...), in another process or on another
machine sharing the folder, and any of them can be killed and run again: it picks up what the
folder says is left. :func:`loop` calls them in turn.

A *round* is the self-play done while generation ``L`` is the newest model (its examples go to
``examples/L``; the games are played by the *promoted* generation); training on the window of
recent rounds makes generation ``L + 1``, which is validated, and promoted when it beats the
best in the gating match.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from imago.agents.base import StopFlag
from imago.rl.config import LoopConfig, changed_settings
from imago.rl.examples import GameWriter, merge_leftovers, worker_name, worker_seed
from imago.rl.folder import RunError, RunFolder, iter_round_files
from imago.rl.precision import selfplay_onnx
from imago.rl.selfplay import SelfPlay, SelfPlayStats
from imago.rl.starts import start_games

if TYPE_CHECKING:
    from imago.nn.models import ResNetConfig
    from imago.nn.store import LoadedModel, ModelSpec

_T = TypeVar("_T")

WAIT_SECONDS = 5.0
"""How often a trainer without self-play of its own looks for its workers' games."""

Report = Callable[[str, float, float, str], None]
"""``(stage, done, total, text)``: progress of a stage (for progress bars)."""


def _quiet(stage: str, done: float, total: float, text: str) -> None:
    pass


@dataclass(frozen=True, slots=True)
class Deadline:
    """A stop flag that is set at a time (or by another flag)."""

    at: float | None = None
    other: StopFlag | None = None

    def is_set(self) -> bool:
        if self.other is not None and self.other.is_set():
            return True
        return self.at is not None and time.time() >= self.at


# -- the run's settings ----------------------------------------------------------------------------
def init(folder: RunFolder, config: LoopConfig) -> None:
    """Create a run folder with its settings."""
    folder.create({"config": config.to_json()})


def load_config(folder: RunFolder) -> LoopConfig:
    """The settings of the run in ``folder``."""
    return LoopConfig.from_json(folder.settings()["config"])


FIXED_SETTINGS = ("spec", "model", "features", "bootstrap")
"""What a run cannot change once created: the game and the network's shape and inputs (its
examples and checkpoints depend on them)."""


def changed_config(folder: RunFolder, changes: dict[str, Any]) -> LoopConfig:
    """The settings of the run in ``folder`` with ``changes`` (dotted names, as ``--set`` takes
    them), checked as a new run's are; nothing is written. The changes apply to the settings
    as stored, so settings that no longer pass the checks (written by an older imago) can be
    mended. :class:`RunError` for an unknown or fixed setting or a value the settings refuse."""
    fixed = sorted(name for name in changes if name.split(".")[0] in FIXED_SETTINGS)
    if fixed:
        raise RunError(
            f"{', '.join(fixed)}: fixed once a run exists (the game, the network's shape and "
            "inputs); start a new run with `imago rl init`"
        )
    stored = folder.settings()["config"]
    config = LoopConfig.from_json(changed_settings(stored, changes))
    if config.references.anchors != tuple(stored.get("references", {}).get("anchors", (0,))):
        latest = folder.latest()
        anchor_generations(folder, config, -1 if latest is None else latest + 1)
    return config


def change_settings(folder: RunFolder, changes: dict[str, Any]) -> LoopConfig:
    """Change settings of an existing run (:func:`changed_config`) and log the change in
    ``metrics.jsonl``; the loop uses them from its next start. :class:`RunError`, and nothing
    changed, for a change :func:`changed_config` refuses."""
    after = changed_config(folder, changes)
    settings = folder.settings()
    settings["config"] = after.to_json()
    folder.replace_settings({k: v for k, v in settings.items() if k not in ("format", "version")})
    folder.log("settings", changes=changes)
    return after


# -- bootstrap -------------------------------------------------------------------------------------
def bootstrap(folder: RunFolder, config: LoopConfig, report: Report = _quiet) -> int:
    """Generation 0: random weights of ``config.model``, or the model ``config.bootstrap``
    (a supervised network, say); promoted at once. Nothing happens when it exists."""
    from imago.nn.export import export_onnx
    from imago.nn.rl_train import initial_model

    latest = folder.latest()
    if latest is not None:
        return latest
    report("bootstrap", 0, 1, "making generation 0")
    spec = config.spec
    path = folder.model_path(0)
    path.parent.mkdir(parents=True, exist_ok=True)
    source = config.bootstrap or f"random {config.model} ({config.features})"
    made = initial_model(
        path,
        game=spec.game,
        size=spec.size,
        arch=config.model,
        features=config.features,
        seed=config.seed,
        start=Path(config.bootstrap) if config.bootstrap else None,
        score_weight=config.train.score_weight,
        ownership=config.train.ownership_weight > 0,
    )
    export_onnx(path, folder.model_path(0, ".onnx"))
    folder.write_lineage(
        0, {"generation": 0, "parent": None, "source": source, "time": time.time(), **made}
    )
    if folder.best() is None:
        folder.promote(0, "bootstrap")
    folder.log("bootstrap", generation=0, source=source, **made)
    report("bootstrap", 1, 1, f"generation 0: {source}")
    return 0


# -- self-play -------------------------------------------------------------------------------------
def grow(folder: RunFolder, config: LoopConfig, arch: str, *, seed: int = 0) -> int:
    """The next generation: the newest one grown to ``arch`` (more blocks or channels), playing
    as it does (:mod:`imago.nn.grow`), promoted at once; the run goes on training it on the
    same window. Returns the new generation."""
    from imago.nn.grow import grow as grown
    from imago.nn.store import ModelSpec

    latest, loaded, resnet = _newest_resnet(folder)
    net, arch_config = grown(loaded.net, resnet, arch, seed=seed)
    spec = ModelSpec(loaded.spec.game, loaded.spec.size, loaded.spec.features, arch_config)
    source = f"generation {latest} grown to {spec.name}"
    return _save_grown(folder, latest, loaded, net, spec, source, {"seed": seed})


def grow_features(folder: RunFolder, features: str) -> int:
    """The next generation: the newest one reading ``features`` (a set that begins with its
    own, :func:`imago.nn.grow.grow_input`), playing as it does, promoted at once. The window's
    examples must hold ``features`` already: :func:`imago.rl.checkpoint.restore` with
    ``features`` re-encodes them and calls this. Returns the new generation."""
    from imago.nn.features import feature_set
    from imago.nn.grow import grow_input
    from imago.nn.models import ModelError
    from imago.nn.store import ModelSpec

    latest, loaded, resnet = _newest_resnet(folder)
    try:
        inputs = feature_set(features, loaded.spec.game)
        net = grow_input(loaded.net, resnet, loaded.spec.feature_set, inputs)
    except (ModelError, ValueError) as error:
        raise RunError(f"generation {latest} cannot read {features}: {error}") from None
    spec = ModelSpec(loaded.spec.game, loaded.spec.size, features, loaded.spec.arch)
    return _save_grown(folder, latest, loaded, net, spec, f"generation {latest} reading {features}")


def _newest_resnet(folder: RunFolder) -> tuple[int, LoadedModel, ResNetConfig]:
    """The newest generation, its loaded model and its architecture: a residual network, the
    kind that grows."""
    from imago.nn.models import ResNetConfig
    from imago.nn.store import load_model

    latest = folder.latest()
    if latest is None:
        raise RunError(f"{folder.root} has no network yet: run `imago rl bootstrap` first")
    loaded = load_model(folder.model_path(latest))
    if not isinstance(loaded.spec.arch, ResNetConfig):
        raise RunError(f"generation {latest} is a {loaded.spec.name} network: only bBcC grow")
    return latest, loaded, loaded.spec.arch


def _save_grown(
    folder: RunFolder,
    latest: int,
    loaded: LoadedModel,
    net: Any,
    spec: ModelSpec,
    source: str,
    extra: dict[str, Any] | None = None,
) -> int:
    """Save ``net`` (of ``spec``, grown from generation ``latest``, ``loaded``) as the next
    generation and promote it; returns it."""
    from imago.nn.models import parameter_count
    from imago.nn.store import save_model

    new = latest + 1
    save_model(
        folder.model_path(new), net, spec, {**loaded.info, "source": source, **(extra or {})}
    )
    made = {"arch": spec.name, "features": spec.features, "parameters": parameter_count(net)}
    _promote_made(folder, new, "grown", source, "grow", made)
    return new


def _promote_made(
    folder: RunFolder, new: int, source: str, reason: str, event: str, made: dict[str, Any]
) -> None:
    """Export generation ``new`` (written just now, out of the newest by ``event``: grow or
    adopt), record its lineage, promote it and log it."""
    from imago.nn.export import export_onnx

    latest = new - 1
    export_onnx(folder.model_path(new), folder.model_path(new, ".onnx"))
    lineage = {"generation": new, "parent": latest, "source": source, "time": time.time(), **made}
    folder.write_lineage(new, lineage)
    folder.promote(new, reason)
    folder.log(event, generation=new, parent=latest, **made)


def adopt(folder: RunFolder, config: LoopConfig, model: Path) -> int:
    """The next generation: a copy of the network in ``model`` (an earlier generation's file,
    or a shipped or distilled network of the run's game, board and input features), promoted at
    once; the run goes on training it on the same window. This is how a run is rolled back when
    its newest networks play worse than an earlier one, and how it starts learning ownership:
    with ``train.ownership_weight`` above 0, a network without an ownership head gets one (its
    policy and value unchanged). Returns the new generation."""
    from imago.nn.models import ModelError
    from imago.nn.rl_train import initial_model
    from imago.nn.store import load_model

    latest = folder.latest()
    if latest is None:
        raise RunError(f"{folder.root} has no network yet: run `imago rl bootstrap` first")
    spec = config.spec
    features = load_model(folder.model_path(latest)).spec.features
    try:
        offered = load_model(model, game=spec.game, size=spec.size).spec
    except (ModelError, OSError, ValueError) as error:
        raise RunError(f"{model} cannot be adopted: {error}") from None
    if offered.features != features:
        raise RunError(
            f"{model} reads the {offered.features} features, the run's examples hold {features}"
        )
    new = latest + 1
    path = folder.model_path(new)
    try:
        made = initial_model(
            path,
            game=spec.game,
            size=spec.size,
            arch=offered.name,
            features=features,
            seed=config.seed,
            start=model,
            ownership=config.train.ownership_weight > 0,
        )
    except ModelError as error:
        raise RunError(f"{model} cannot be adopted: {error}") from None
    source = f"adopted {model}"
    _promote_made(folder, new, source, source, "adopt", {"model": str(model), **made})
    return new


def load_evaluator(
    folder: RunFolder, generation: int, threads: int, onnx_file: Path | None = None
) -> Any:
    """A network evaluator for a generation's model (ONNX Runtime where installed;
    ``onnx_file``: this export of it, :func:`imago.rl.precision.selfplay_onnx`)."""
    from imago.nn.evaluator import NetworkEvaluator
    from imago.nn.models import ModelError

    try:
        return NetworkEvaluator.load(
            folder.model_path(generation),
            backend="auto",
            device="cpu",
            threads=threads,
            onnx_file=onnx_file,
        )
    except ModelError as error:
        raise RunError(f"generation {generation}'s model cannot be used: {error}") from None


def self_play(
    folder: RunFolder,
    config: LoopConfig,
    *,
    games: int | None = None,
    follow: bool = False,
    stop: StopFlag | None = None,
    report: Report = _quiet,
    worker: str | None = None,
    chunk_games: int = 64,
    pool: Any = None,
) -> SelfPlayStats:
    """Play self-play games with the promoted network into the newest round.

    ``games``: how many (default: what the round still lacks of ``games_per_round``). With
    ``follow``, play on until ``stop`` is set, switching to each newly promoted network and to
    each new round as a trainer elsewhere makes them (the self-play worker of a shared
    folder). ``pool``: an :class:`imago.rl.workers.SelfPlayPool` plays the games instead
    (local processes or Ray actors), this process writing them."""
    if pool is not None:
        played: SelfPlayStats = pool.play(games=games, follow=follow, stop=stop, report=report)
        return played
    best = folder.best()
    latest = folder.latest()
    if best is None or latest is None:
        raise RunError(f"{folder.root} has no network yet: run `imago rl bootstrap` first")
    threads = config.nn_threads or _cores()
    int8 = selfplay_onnx(folder, config, best)
    evaluator = load_evaluator(folder, best, threads, int8)
    name = worker or worker_name()
    seed = worker_seed(config.seed, name)
    play = SelfPlay(config.spec, evaluator, config.selfplay, seed=seed, starts=start_games(config))
    total = SelfPlayStats()
    while True:
        writer = GameWriter(
            folder,
            latest,
            config.spec,
            evaluator.features,
            generation=best,
            holdout_fraction=config.holdout_fraction,
            chunk_games=chunk_games,
            worker=name,
            exact_targets=config.exact_targets,
            exact_backup=config.exact_backup,
        )
        if follow:
            wanted = config.selfplay.parallel
        else:
            wanted = (
                games
                if games is not None
                else config.games_per_round - folder.games_in_round(latest)
            )
        if wanted <= 0:
            break
        progress = _SelfPlayProgress(report, latest, best, wanted, play.stats.games)
        stats = play.play(wanted, writer.add, stop=stop, on_round=progress)
        writer.flush()
        folder.log(
            "selfplay",
            round=latest,
            generation=best,
            worker=name,
            precision="fp32" if int8 is None else "int8",
            **stats.to_json(),
        )
        total = stats
        if not follow or (stop is not None and stop.is_set()):
            break
        newest, promoted = folder.latest(), folder.best()
        if promoted is not None and promoted != best:
            best = promoted
            int8 = selfplay_onnx(folder, config, best)
            play.set_evaluator(load_evaluator(folder, best, threads, int8))
        if newest is not None:
            latest = newest
    return total


@dataclass(frozen=True, slots=True)
class _SelfPlayProgress:
    report: Report
    round: int
    generation: int
    wanted: int
    begun: int

    def __call__(self, stats: SelfPlayStats) -> None:
        done = stats.games - self.begun
        rate = stats.evaluations / max(stats.seconds, 1e-9)
        self.report(
            "self-play",
            done,
            self.wanted,
            f"round {self.round}, gen {self.generation}: {done}/{self.wanted} games, "
            f"{rate:,.0f} positions/s",
        )


def _cores() -> int:
    import os

    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


# -- gather and train ------------------------------------------------------------------------------
def gather(folder: RunFolder, config: LoopConfig, round_: int) -> list[Path]:
    """The example files of the training window ending at ``round_``: the rounds of
    :meth:`LoopConfig.window`, newest first, up to ``window_positions`` positions."""
    return _listed_again(lambda: _gather_once(folder, config, round_))


def _gather_once(folder: RunFolder, config: LoopConfig, round_: int) -> list[Path]:
    rounds = config.window(round_)
    files: list[Path] = []
    positions = 0
    for path in iter_round_files(folder, rounds, holdout=False):
        if positions >= config.window_positions:
            break
        files.append(path)
        positions += _positions_in(path)
    return files


class _Vanished(Exception):
    """A listed example file was gone when read: a worker merged it into a chunk."""


def _positions_in(path: Path) -> int:
    from imago.nn.dataset import DatasetError, read_shard

    try:
        return len(read_shard(path))
    except DatasetError:
        if not path.exists():
            raise _Vanished(path) from None
        raise


def _listed_again(read: Callable[[], _T], attempts: int = 20) -> _T:
    """``read()``, listed and read again while a worker sharing the folder merges its game
    files into a chunk under it (the chunk names its sources, so nothing counts twice)."""
    for _ in range(attempts - 1):
        try:
            return read()
        except _Vanished:
            time.sleep(0.05)
    return read()


def train(
    folder: RunFolder,
    config: LoopConfig,
    *,
    stop: StopFlag | None = None,
    report: Report = _quiet,
    ranks: int = 1,
) -> int | None:
    """Train the newest generation on its window and save the next one (``None`` when
    ``stop`` interrupted it: the trainer's checkpoint keeps the progress); ``ranks``:
    data-parallel on that many processes."""
    from imago.nn.export import export_onnx
    from imago.nn.rl_train import train_steps

    latest = folder.latest()
    if latest is None:
        raise RunError(f"{folder.root} has no network yet: run `imago rl bootstrap` first")
    files, window = load_listed(lambda: _gather_once(folder, config, latest))
    if not files:
        raise RunError(f"round {latest} has no self-play examples yet: run `imago rl selfplay`")
    new = latest + 1
    fresh = _listed_again(lambda: sum(map(_positions_in, folder.example_files(latest))))
    steps = config.train.steps_for(fresh)
    settings = replace(config.train, steps=steps, samples_per_position=0.0)

    def on_step(step: int, total: int, loss: float) -> None:
        report("train", step, total, f"generation {new}: step {step}/{total}, loss {loss:.3f}")

    records = None
    if config.train.records_share > 0:
        from imago.nn.store import load_model
        from imago.rl.records import training_records

        report("train", 0, steps, f"generation {new}: reading the records to train on")
        features = load_model(folder.model_path(latest)).spec.features
        records = training_records(folder, config, features, window.target.shape[1])
    result = train_steps(
        folder.model_path(latest),
        window,
        folder.model_path(new),
        folder.checkpoint_path,
        settings,
        tag=new,
        on_step=on_step,
        stop=stop,
        ranks=ranks,
        records=records,
    )
    if result.get("stopped"):
        return None
    export_onnx(folder.model_path(new), folder.model_path(new, ".onnx"))
    lineage = {
        "generation": new,
        "parent": latest,
        "source": "trained",
        "time": time.time(),
        "window_rounds": config.window_size(latest),
        "window_files": len(files),
        "window_positions": len(window),
        "new_positions": fresh,
        "steps": steps,
    }
    folder.write_lineage(new, lineage)
    result.pop("config", None)
    folder.log("train", generation=new, parent=latest, **result)
    report("train", steps, steps, f"generation {new} trained")
    return new


def load_listed(listing: Callable[[], list[Path]]) -> tuple[list[Path], Any]:
    """The example files ``listing()`` names and their examples (``None`` for no file), read
    together; listed and read again while a worker sharing the folder merges its game files
    into a chunk under them."""

    def once() -> tuple[list[Path], Any]:
        from imago.nn.dataset import DatasetError
        from imago.nn.rl_train import load_window

        files = listing()
        try:
            return files, load_window(files) if files else None
        except DatasetError:
            if all(path.exists() for path in files):
                raise
            raise _Vanished(files) from None

    return _listed_again(once)


# -- evaluate --------------------------------------------------------------------------------------
def az_spec(folder: RunFolder, generation: int, simulations: int) -> str:
    """The agent spec that plays a generation's network (for matches)."""
    model = folder.model_path(generation)
    return f'az:model="{model}",simulations={simulations},resign=0,reuse=false,nn_threads=1'


def evaluate(
    folder: RunFolder,
    config: LoopConfig,
    generation: int,
    *,
    stop: StopFlag | None = None,
    report: Report = _quiet,
) -> dict[str, Any]:
    """The gating match: ``generation`` against the promoted network, promoted when it
    scores ``gate`` or more (or when the SPRT accepts it)."""
    from imago.arena.match import Player, match_schedule, run_games
    from imago.arena.stats import Sprt, SprtDecision, score_interval

    done = [row for row in folder.metrics("evaluate") if row.get("generation") == generation]
    if done:
        return done[-1]
    best = folder.best()
    if best is None:
        raise RunError("no promoted network to gate against")
    if best == generation:
        return {"generation": generation, "promoted": True, "note": "already the best"}
    if config.evaluation.games == 0:
        folder.promote(generation, "no gate: every generation is promoted")
        return folder.log(
            "evaluate", generation=generation, against=best, promoted=True, gated=False
        )
    settings = _match_settings(config, config.evaluation.opening_plies)
    candidate = Player(
        f"gen{generation}", az_spec(folder, generation, config.evaluation.simulations)
    )
    champion = Player(f"gen{best}", az_spec(folder, best, config.evaluation.simulations))
    games = config.evaluation.games
    schedule = match_schedule(candidate, champion, games, alternate=True)
    sprt = Sprt(0.0, config.evaluation.sprt_elo) if config.evaluation.sprt else None
    tally = {"wins": 0, "draws": 0, "losses": 0}

    def on_result(record: Any) -> bool:
        points = record.points(candidate.label)
        key = "wins" if points == 1.0 else "draws" if points == 0.5 else "losses"
        tally[key] += 1
        played = sum(tally.values())
        report("evaluate", played, games, f"gen {generation} vs gen {best}: {_wdl(tally)}")
        if stop is not None and stop.is_set():
            return True
        return sprt is not None and sprt.decide(**tally) is not SprtDecision.CONTINUE

    records = run_games(
        settings,
        schedule,
        folder=folder.eval_dir(generation),
        jobs=config.evaluation.jobs,
        on_result=on_result,
    )
    wins = sum(r.points(candidate.label) == 1.0 for r in records)
    draws = sum(r.points(candidate.label) == 0.5 for r in records)
    losses = len(records) - wins - draws
    if stop is not None and stop.is_set() and len(records) < games:
        return {"generation": generation, "stopped": True}
    interval = score_interval(wins, draws, losses)
    if sprt is not None:
        decision = sprt.decide(wins, draws, losses)
        promoted = decision is SprtDecision.H1 or (
            decision is SprtDecision.CONTINUE and interval.score >= config.evaluation.gate
        )
    else:
        promoted = interval.score >= config.evaluation.gate
    row = folder.log(
        "evaluate",
        generation=generation,
        against=best,
        wins=wins,
        draws=draws,
        losses=losses,
        score=interval.score,
        low=interval.low,
        high=interval.high,
        elo=_finite(interval.elo),
        promoted=promoted,
    )
    if promoted:
        folder.promote(generation, f"scored {interval.describe()} against gen {best}")
    return row


def _wdl(tally: dict[str, int]) -> str:
    return f"+{tally['wins']} ={tally['draws']} -{tally['losses']}"


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _match_settings(config: LoopConfig, opening_plies: int) -> Any:
    from imago.arena.game import GameSettings
    from imago.arena.match import MatchSettings

    spec = config.spec
    game = GameSettings(
        game=spec.game,
        size=spec.size,
        komi=spec.komi,
        rules=spec.rules,
    )
    return MatchSettings(game=game, seed=config.seed, opening_plies=opening_plies)


# -- references ------------------------------------------------------------------------------------
def references(
    folder: RunFolder,
    config: LoopConfig,
    generation: int,
    *,
    stop: StopFlag | None = None,
    report: Report = _quiet,
) -> dict[str, Any]:
    """``generation`` against each fixed reference (``label=spec``) and each anchor generation
    of the run older than it (``anchors``, played at the same simulations), each an ``imago
    match`` folder under ``refs/``; returns (and logs) the scores."""
    from imago.arena.match import Player, match_schedule, run_games
    from imago.arena.stats import score_interval

    refs = config.references
    done = [row for row in folder.metrics("references") if row.get("generation") == generation]
    opponents = [Player.parse(text) for text in refs.opponents] + [
        Player(f"gen{anchor}", az_spec(folder, anchor, refs.simulations))
        for anchor in anchor_generations(folder, config, generation)
    ]
    if done or not opponents:
        return done[-1] if done else {}
    settings = _match_settings(config, refs.opening_plies)
    hero = Player(f"gen{generation}", az_spec(folder, generation, refs.simulations))
    scores: dict[str, Any] = {}
    for opponent in opponents:
        schedule = match_schedule(hero, opponent, refs.games, alternate=True)
        played = {"n": 0}

        def on_result(
            record: Any, label: str = opponent.label, played: dict[str, int] = played
        ) -> bool:
            played["n"] += 1
            report("references", played["n"], refs.games, f"gen {generation} vs {label}")
            return stop is not None and stop.is_set()

        records = run_games(
            settings,
            schedule,
            folder=folder.refs_dir(generation) / _safe(opponent.label),
            jobs=refs.jobs,
            on_result=on_result,
        )
        if stop is not None and stop.is_set():
            return {"generation": generation, "stopped": True}
        wins = sum(r.points(hero.label) == 1.0 for r in records)
        draws = sum(r.points(hero.label) == 0.5 for r in records)
        interval = score_interval(wins, draws, len(records) - wins - draws)
        scores[opponent.label] = {
            "games": len(records),
            "wins": wins,
            "draws": draws,
            "score": interval.score,
            "low": interval.low,
            "high": interval.high,
            "elo": _finite(interval.elo),
            "elo_low": _finite(interval.elo_low),
            "elo_high": _finite(interval.elo_high),
        }
    return folder.log("references", generation=generation, scores=scores)


def anchor_generations(folder: RunFolder, config: LoopConfig, before: int) -> list[int]:
    """The run's anchor generations (:attr:`~imago.rl.config.ReferenceConfig.anchors`) older
    than ``before``: those generation ``before`` plays in its reference matches, and the
    networks a checkpoint must keep. :class:`RunError` for one whose network the folder lacks
    (a run restored from a checkpoint holds only the networks the checkpoint kept)."""
    anchors = sorted({anchor for anchor in config.references.anchors if anchor < before})
    missing = [str(anchor) for anchor in anchors if not folder.model_path(anchor).is_file()]
    if missing:
        held = ", ".join(map(str, folder.generations()))
        raise RunError(
            f"references.anchors: {folder.root} holds no network of generation "
            f"{', '.join(missing)} (a restored run holds only the networks its checkpoint "
            f"kept); choose among those it holds: {held}"
        )
    return anchors


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)


# -- the loop --------------------------------------------------------------------------------------
def loop(
    folder: RunFolder,
    config: LoopConfig,
    *,
    rounds: int | None = None,
    hours: float | None = None,
    stop: StopFlag | None = None,
    report: Report = _quiet,
    selfplay: bool = True,
    pool: Any = None,
    ranks: int = 1,
    checkpoint: Path | None = None,
) -> int:
    """Run rounds (bootstrap -> self-play -> train -> validate -> evaluate -> references) until
    ``rounds`` more generations exist, ``hours`` have passed or ``stop`` is set; returns the
    newest generation. ``selfplay=False``: only train (self-play workers elsewhere fill the
    rounds; the trainer waits for them). ``pool``: self-play workers elsewhere
    (:class:`imago.rl.workers.SelfPlayPool`); ``ranks``: train data-parallel on this many
    processes; ``checkpoint``: write the run's compact checkpoint there after every
    generation (:mod:`imago.rl.checkpoint`)."""
    from imago.rl.validate import validate

    halt = Deadline(None if hours is None else time.time() + 3600 * hours, stop)
    clock = ComputeClock(folder, worker_cpu(pool))
    latest = bootstrap(folder, config, report)
    if selfplay:
        merged = merge_leftovers(folder, latest, config.spec)
        if merged:
            report("tidy", merged, merged, f"merged {merged} games left by a stopped run")
    goal = None if rounds is None else latest + rounds
    if latest == 0 and not folder.metrics("validate"):
        validate(folder, config, 0, report=report)
    elif latest > 0 and not _finish(folder, config, latest, halt, report):
        # a run stopped while it measured its newest generation: finished first, not skipped
        return _stopped(folder, latest, clock, checkpoint, report)
    while not halt.is_set() and (goal is None or latest < goal):
        if folder.games_in_round(latest) < config.games_per_round:
            if selfplay:
                self_play(folder, config, stop=halt, report=report, pool=pool)
            else:
                report("train", 0, 1, f"waiting for round {latest}'s self-play games")
                time.sleep(WAIT_SECONDS)
            continue
        new = train(folder, config, stop=halt, report=report, ranks=ranks)
        if new is None:
            break
        latest = new
        finished = _finish(folder, config, new, halt, report)
        from imago.rl.plots import plot_run

        plot_run(folder)
        clock.log(new)
        if checkpoint is not None:
            _write_checkpoint(folder, checkpoint, report)
        if not finished:
            return latest
    if halt.is_set():
        return _stopped(folder, latest, clock, checkpoint, report)
    return latest


def _finish(
    folder: RunFolder, config: LoopConfig, generation: int, halt: StopFlag, report: Report
) -> bool:
    """Validate, gate and measure a trained ``generation`` against the references, each step
    once (a logged step is skipped, a match stopped half-way resumes from its folder); False
    when ``halt`` stopped it before the end."""
    from imago.rl.validate import validate

    validate(folder, config, generation, report=report)
    if evaluate(folder, config, generation, stop=halt, report=report).get("stopped"):
        return False
    if config.references.every > 0 and generation % config.references.every == 0:
        references(folder, config, generation, stop=halt, report=report)
    return not halt.is_set()


def _stopped(
    folder: RunFolder,
    latest: int,
    clock: ComputeClock,
    checkpoint: Path | None,
    report: Report,
) -> int:
    """Log the compute of the work under way (and checkpoint) when the loop stops early."""
    clock.log(latest)
    if checkpoint is not None:
        _write_checkpoint(folder, checkpoint, report)
    return latest


def _write_checkpoint(folder: RunFolder, target: Path, report: Report) -> None:
    from imago.rl.checkpoint import write

    written = write(folder, target)
    report(
        "checkpoint",
        1,
        1,
        f"generation {written.generation}, {written.games} games: {written.bytes / 1e6:.1f} MB",
    )


class ComputeClock:
    """Logs the compute each generation took (``compute`` rows of ``metrics.jsonl``: CPU and
    wall seconds, the machine), so that a run continued on many machines adds up its
    CPU-hours (:func:`compute_used`). The CPU is this process's and its finished children's,
    plus ``elsewhere()``: what the process cannot see of its own, the CPU of self-play workers
    still running (see :func:`worker_cpu`)."""

    def __init__(self, folder: RunFolder, elsewhere: Callable[[], float] | None = None) -> None:
        self.folder = folder
        self.elsewhere = elsewhere
        self._cpu = self._cpu_seconds()
        self._wall = time.time()

    def _cpu_seconds(self) -> float:
        return _cpu_seconds() + (self.elsewhere() if self.elsewhere is not None else 0.0)

    def log(self, generation: int) -> dict[str, Any]:
        import socket

        cpu, wall = self._cpu_seconds(), time.time()
        row = self.folder.log(
            "compute",
            generation=generation,
            cpu_s=round(cpu - self._cpu, 1),
            wall_s=round(wall - self._wall, 1),
            host=socket.gethostname(),
            cores=_cores(),
            gpu=_has_gpu(),
        )
        self._cpu, self._wall = cpu, wall
        return row


def worker_cpu(pool: Any) -> Callable[[], float] | None:
    """The CPU seconds a self-play pool's live workers have spent playing, where this
    process's own resource usage misses them (``None`` where it does not): worker processes
    are counted there only once they have ended, Ray actors never. A worker that has ended
    leaves the pool's sum as its process's CPU enters this process's children's."""
    if pool is None or pool.executor.kind == "inline":  # inline workers are this process
        return None
    cpu_seconds: Callable[[], float] = pool.cpu_seconds
    return cpu_seconds


def compute_used(folder: RunFolder) -> dict[str, float]:
    """The run's compute so far, from its ``compute`` rows: CPU-hours, wall hours, and wall
    hours on machines with a GPU."""
    rows = folder.metrics("compute")
    return {
        "cpu_hours": sum(float(r.get("cpu_s", 0)) for r in rows) / 3600,
        "wall_hours": sum(float(r.get("wall_s", 0)) for r in rows) / 3600,
        "gpu_hours": sum(float(r.get("wall_s", 0)) for r in rows if r.get("gpu")) / 3600,
    }


def _cpu_seconds() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _has_gpu() -> bool:
    import sys

    torch = sys.modules.get("torch")
    return bool(torch is not None and torch.cuda.is_available())
