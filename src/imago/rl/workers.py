"""Self-play on many workers: local processes or Ray actors, fed and written by one driver.

A :class:`SelfPlayPool` keeps ``workers`` self-play workers (:class:`SelfPlayWorker`, each a
:class:`~imago.rl.selfplay.SelfPlay` over its own batch of games with its own network on one
CPU) on an executor of :mod:`imago.cluster`. The driver (the process that runs the pool) is
the only one that touches the run folder:

* it sends each worker the promoted network as bytes (through Ray's object store on a
  cluster: one copy per node), and sends the next one when a trainer promotes it; the workers
  go on with their games under way, without a restart;
* workers answer with their finished games, which the driver writes with the same
  :class:`~imago.rl.examples.GameWriter` a local worker uses, under the worker's name. The
  folder therefore looks the same whichever executor played the games, and a run can move
  between one process, local processes and Ray, and back.

Every worker plays a fixed share of the games asked for, seeded by the run's seed and its
name, so the same run on another executor plays the same games. A worker that dies (its
process killed, its node lost) loses only its games under way: the driver reports it and
starts a replacement (a new name, so no file is written twice) that plays the rest of its
share.
"""

from __future__ import annotations

import concurrent.futures
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from imago.agents.base import StopFlag
from imago.cluster import Actor, Executor, Tally, WorkerLost
from imago.rl.config import LoopConfig
from imago.rl.examples import GameWriter, worker_name, worker_seed
from imago.rl.folder import RunError, RunFolder
from imago.rl.selfplay import FinishedGame, GameSpec, SelfPlay, SelfPlayConfig, SelfPlayStats
from imago.rl.starts import StartGame, start_games

if TYPE_CHECKING:
    from imago.nn.server import Address, ServerConfig
    from imago.nn.store import ModelSpec

ModelFiles = dict[str, bytes]
"""A generation's network as bytes by file suffix (``.pt``, and ``.onnx`` where exported,
``.int8.onnx`` where self-play runs an int8 copy)."""


def model_files(folder: RunFolder, generation: int) -> ModelFiles:
    """The files of a generation's network, to send to workers that cannot see the folder."""
    files = {}
    for suffix in (".pt", ".onnx", ".int8.onnx"):
        path = folder.model_path(generation, suffix)
        if path.is_file():
            files[suffix] = path.read_bytes()
    if ".pt" not in files:
        raise RunError(f"generation {generation} has no model file in {folder.root}")
    return files


class SelfPlayWorker:
    """The worker side (runs wherever the executor puts it): plays games with the network it
    was last sent and returns them finished."""

    def __init__(
        self,
        spec: GameSpec,
        config: SelfPlayConfig,
        seed: int,
        threads: int,
        starts: Sequence[StartGame] = (),
    ) -> None:
        self.spec = spec
        self.config = config
        self.starts = starts
        self.seed = seed
        self.threads = threads
        self.folder: Path | None = None
        """Where this worker keeps its copies of the networks, made with the first one (a
        worker that plays from an inference server, or is never sent a network, makes none)."""
        self.play: SelfPlay | None = None
        self.generation: int | None = None
        self.cpu_seconds = 0.0
        """CPU time of this worker's process spent playing (for benchmarks on busy machines)."""

    def set_model(self, generation: int, files: ModelFiles) -> None:
        """Play with this network from now on, a copy of its own on this CPU (games under
        way go on with it)."""
        from imago.nn.evaluator import NetworkEvaluator

        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="imago-selfplay-"))
        path = self.folder / f"{generation:06d}.pt"
        for suffix, data in sorted(files.items()):  # .onnx after .pt: no older than it
            path.with_suffix(suffix).write_bytes(data)
        int8 = path.with_suffix(".int8.onnx")
        evaluator = NetworkEvaluator.load(
            path,
            backend="auto",
            device="cpu",
            threads=self.threads,
            onnx_file=int8 if ".int8.onnx" in files else None,
        )
        self._use(evaluator, generation)

    def set_server(
        self,
        generation: int,
        spec: ModelSpec,
        servers: dict[str, Address],
        score_weight: float = 0.0,
    ) -> None:
        """Play with the network ``generation`` that this node's inference server holds
        (``servers``: their addresses by node; ``spec`` and ``score_weight``: the network's)."""
        from imago.cluster import ClusterError, here
        from imago.nn.server import RemoteEvaluator

        node = here()
        if node not in servers:
            raise ClusterError(f"no inference server on this worker's node {node}")
        self._use(RemoteEvaluator(servers[node], spec, generation, score_weight), generation)

    def _use(self, evaluator: Any, generation: int) -> None:
        evaluator.check(self.spec.game, self.spec.size)
        if self.play is None:
            self.play = SelfPlay(
                self.spec, evaluator, self.config, seed=self.seed, starts=self.starts
            )
        else:
            self._close_evaluator()
            self.play.set_evaluator(evaluator)
        self.generation = generation

    def _close_evaluator(self) -> None:
        """Close the connection of a remote evaluator (a network of its own has none)."""
        close = getattr(getattr(self.play, "evaluator", None), "close", None)
        if callable(close):
            close()

    def play_games(self, games: int) -> tuple[list[FinishedGame], dict[str, Any]]:
        """Play until ``games`` more games have finished; those games, and the worker's
        counters so far."""
        if self.play is None:
            raise RunError("the worker has no network yet")
        finished: list[FinishedGame] = []
        begun = time.process_time()
        stats = self.play.play(games, finished.append)
        self.cpu_seconds += time.process_time() - begun
        return finished, {**stats.to_json(), "cpu_seconds": self.cpu_seconds}

    def close(self) -> None:
        self._close_evaluator()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


@dataclass(slots=True)
class _Slot:
    """The driver's view of one worker: its actor, its share, what it holds."""

    name: str
    root: str
    """The name of the first worker in this place (a replacement is ``ROOTrK``)."""
    actor: Actor
    generation: int = -1
    loading: concurrent.futures.Future[Any] | None = None
    share: int = 0
    """Games still to play in this call of :meth:`SelfPlayPool.play` (follow: unbounded)."""
    call: concurrent.futures.Future[Any] | None = None
    call_generation: int = -1
    stats: dict[str, Any] = field(default_factory=dict)
    restarts: int = 0


class _Server:
    """The driver's view of one node's inference server: its actor, its address, the
    networks it holds (their specs by generation) and where it runs them."""

    def __init__(self, node: str, actor: Actor) -> None:
        self.node = node
        self.actor = actor
        self.address: Address = actor.call("address").result()
        self.specs: dict[int, ModelSpec] = {}
        self.device = "?"

    def load(self, generation: int, files: Any) -> ModelSpec:
        """Make the server hold ``generation`` (waiting for it: the workers ask at once);
        the network's spec."""
        if generation not in self.specs:
            self.specs[generation], self.device = self.actor.call(
                "set_model", generation, files
            ).result()
        return self.specs[generation]

    def alive(self, seconds: float = 10.0) -> bool:
        try:
            return bool(self.actor.call("ping").result(timeout=seconds))
        except (WorkerLost, concurrent.futures.TimeoutError):
            return False


Report = Any  # imago.rl.stages.Report, kept loose to avoid an import cycle


class SelfPlayPool:
    """Self-play workers on an executor (see the module docstring). ``workers``: how many
    (each one CPU); ``name``: the prefix of their names (default: unique to this driver)."""

    def __init__(
        self,
        executor: Executor,
        folder: RunFolder,
        config: LoopConfig,
        workers: int,
        *,
        name: str | None = None,
        chunk_games: int = 64,
        step_games: int = 0,
        server: ServerConfig | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("a self-play pool needs at least one worker")
        self.executor = executor
        self.server = server
        """Shared inference: one :class:`~imago.nn.server.InferenceServer` per node serves
        that node's workers (``None``: each worker its own copy of the network)."""
        self._servers: dict[str, _Server] = {}
        self.folder = folder
        self.config = config
        self.base = name or worker_name()
        self.chunk_games = chunk_games
        self.step_games = step_games or max(1, config.selfplay.parallel // 2)
        """Games a worker plays per call (its games come back this many at a time)."""
        self.tally = Tally()
        self._starts = start_games(config)
        if server is not None:
            for node in executor.nodes():
                self._servers[node] = self._start_server(node)
        self._slots = [self._start(f"{self.base}w{i}") for i in range(workers)]
        self._models: dict[int, Any] = {}
        self._weights: dict[int, float] = {}
        self._writers: dict[str, GameWriter] = {}
        self._following = False
        self.lost = 0

    # -- workers -----------------------------------------------------------------------------------
    def _start(self, name: str, root: str | None = None, restarts: int = 0) -> _Slot:
        config = self.config
        seed = worker_seed(config.seed, name)
        actor = self.executor.start_actor(
            SelfPlayWorker, config.spec, config.selfplay, seed, 1, self._starts
        )
        return _Slot(name, root or name, actor, restarts=restarts)

    def _model(self, generation: int) -> Any:
        if generation not in self._models:
            from imago.rl.precision import selfplay_onnx

            selfplay_onnx(self.folder, self.config, generation)  # the int8 copy, when wanted
            self._models = {generation: self.executor.share(model_files(self.folder, generation))}
        return self._models[generation]

    def _score_weight(self, generation: int) -> float:
        """The share of margin in the values of ``generation``'s network (its file says)."""
        if generation not in self._weights:
            from imago.nn.store import load_model

            info = load_model(self.folder.model_path(generation)).info
            self._weights = {generation: float(info.get("score_weight", 0.0))}
        return self._weights[generation]

    def _send_model(self, slot: _Slot, generation: int) -> None:
        slot.generation = generation
        files = self._model(generation)
        if not self._servers:
            slot.loading = slot.actor.call("set_model", generation, files)
            return
        try:
            specs = [s.load(generation, files) for s in self._servers.values()]
        except WorkerLost:
            self._mend_servers(_quiet)
            specs = [s.load(generation, files) for s in self._servers.values()]
        addresses = {node: s.address for node, s in self._servers.items()}
        weight = self._score_weight(generation)
        slot.loading = slot.actor.call("set_server", generation, specs[0], addresses, weight)

    # -- inference servers -------------------------------------------------------------------------
    def _start_server(self, node: str) -> _Server:
        from imago.nn.server import InferenceServer

        actor = self.executor.start_actor(InferenceServer, self.server, node=node, cpus=0, gpus=1)
        return _Server(node, actor)

    def _mend_servers(self, report: Report) -> None:
        """Start again every server that died (a worker lost its connection, or its node):
        every worker then gets its network again, from the new server."""
        for node, server in list(self._servers.items()):
            if server.alive():
                continue
            report("self-play", self.tally.done, self.tally.done + 1,
                   f"the inference server on {node} was lost; starting it again")  # fmt: skip
            self.folder.log("server_lost", node=node)
            server.actor.stop()
            if node in self.executor.nodes():
                self._servers[node] = self._start_server(node)
            else:
                del self._servers[node]
            for slot in self._slots:
                if slot.actor.node in (node, "?"):  # its node's server is new: connect again
                    slot.generation = -1

    def _replace(self, slot: _Slot, error: Exception, report: Report) -> _Slot:
        """A lost worker's games go to the others (or, alone, to its replacement); a
        replacement takes its place (a new name: no file is written twice), for the games
        after these (it may wait for a CPU on a cluster that lost a node)."""
        self.lost += 1
        self.tally.add_lost()
        self._flush(slot.name)
        slot.actor.stop()
        name = f"{slot.root}r{slot.restarts + 1}"
        fresh = self._start(name, slot.root, slot.restarts + 1)
        others = [s for s in self._slots if s is not slot]
        if self._following or not others:
            fresh.share = slot.share
        else:
            for i, other in enumerate(others):
                other.share += slot.share // len(others) + (i < slot.share % len(others))
        report(
            "self-play",
            self.tally.done,
            self.tally.done + 1,
            f"worker {slot.name} lost ({error}); its {slot.share} games replayed elsewhere",
        )
        self.folder.log("worker_lost", worker=slot.name, replacement=name, error=str(error))
        return fresh

    # -- writing -----------------------------------------------------------------------------------
    def _writer(self, slot: _Slot, round_: int, generation: int) -> GameWriter:
        writer = self._writers.get(slot.name)
        if writer is not None and (writer.round, writer.generation) != (round_, generation):
            writer.flush()
            writer = None
        if writer is None:
            from imago.nn.inference import Network

            features = Network.load(self.folder.model_path(generation)).spec.feature_set
            writer = GameWriter(
                self.folder,
                round_,
                self.config.spec,
                features,
                generation=generation,
                holdout_fraction=self.config.holdout_fraction,
                chunk_games=self.chunk_games,
                worker=slot.name,
                exact_targets=self.config.exact_targets,
                exact_backup=self.config.exact_backup,
            )
            self._writers[slot.name] = writer
        return writer

    def _flush(self, name: str | None = None) -> None:
        for key in [name] if name is not None else list(self._writers):
            writer = self._writers.pop(key, None) if key is not None else None
            if writer is not None:
                writer.flush()

    # -- playing -----------------------------------------------------------------------------------
    def play(
        self,
        *,
        games: int | None = None,
        follow: bool = False,
        stop: StopFlag | None = None,
        report: Report = None,
    ) -> SelfPlayStats:
        """Play ``games`` games (default: what the newest round lacks) shared among the
        workers, writing each into the run folder as it comes back; with ``follow``, play on
        until ``stop`` is set, sending each newly promoted network to the workers and writing
        into each new round (:func:`imago.rl.stages.self_play`'s contract)."""
        report = report or _quiet
        best, latest = self.folder.best(), self.folder.latest()
        if best is None or latest is None:
            raise RunError(f"{self.folder.root} has no network yet: run `imago rl bootstrap`")
        if follow:
            wanted = 0
        elif games is not None:
            wanted = games
        else:
            wanted = self.config.games_per_round - self.folder.games_in_round(latest)
        if not follow and wanted <= 0:
            return SelfPlayStats()
        self._following = follow
        count = len(self._slots)
        for i, slot in enumerate(self._slots):
            slot.share = (1 << 62) if follow else wanted // count + (i < wanted % count)
        started, played = time.perf_counter(), 0
        begun = {slot.name: dict(slot.stats) for slot in self._slots}
        try:
            while True:
                if stop is not None and stop.is_set():
                    break
                if follow:
                    best, latest = self._follow(best, latest)
                self._submit(best)
                calls = {s.call: s for s in self._slots if s.call is not None}
                if not calls:
                    break
                done, _ = concurrent.futures.wait(
                    calls, timeout=1.0, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in done:
                    slot = calls[future]
                    played += self._collect(slot, future, latest, report)
                self._report(report, played, wanted, follow, latest, best, started)
        finally:
            self._flush()
        total = self._total(begun, time.perf_counter() - started)
        self.folder.log("selfplay", round=latest, generation=best, worker=self.base,
                        workers=count, executor=self.executor.kind, **total.to_json())  # fmt: skip
        return total

    def _follow(self, best: int, latest: int) -> tuple[int, int]:
        """Pick up a newly promoted network and a new round (from a trainer elsewhere)."""
        promoted, newest = self.folder.best(), self.folder.latest()
        if newest is not None and newest != latest:
            self._flush()
            latest = newest
        if promoted is not None and promoted != best:
            best = promoted
        return best, latest

    def _submit(self, best: int) -> None:
        for index, slot in enumerate(self._slots):
            if slot.call is not None or slot.share <= 0:
                continue
            if slot.generation != best:
                self._send_model(slot, best)
            slot.call_generation = slot.generation
            slot.call = slot.actor.call("play_games", min(self.step_games, slot.share))
            self._slots[index] = slot

    def _collect(
        self, slot: _Slot, future: concurrent.futures.Future[Any], round_: int, report: Report
    ) -> int:
        """Write what a worker's call brought back (or replace the worker if it died)."""
        slot.call = None
        try:
            if slot.loading is not None and slot.loading.done():
                slot.loading.result()  # a network the worker could not load: say why
            finished, stats = future.result()
        except WorkerLost as error:
            if self._servers:
                self._mend_servers(report)
            index = self._slots.index(slot)
            self._slots[index] = self._replace(slot, error, report)
            return 0
        writer = self._writer(slot, round_, slot.call_generation)
        for record in finished:
            writer.add(record)
        slot.share -= len(finished)
        slot.stats = stats
        self.tally.add(slot.actor.node, len(finished))
        return len(finished)

    def _report(
        self,
        report: Report,
        played: int,
        wanted: int,
        follow: bool,
        round_: int,
        best: int,
        started: float,
    ) -> None:
        total = self._total({}, time.perf_counter() - started)
        rate = total.evaluations / max(time.perf_counter() - started, 1e-9)
        head = f"{played} games" if follow else f"{played}/{wanted} games"
        report(
            "self-play",
            played,
            max(wanted, played, 1),
            f"round {round_}, gen {best}: {head}, {rate:,.0f} positions/s on "
            f"{len(self._slots)} workers{self._shared()} ({self.tally.describe()})",
        )

    def _shared(self) -> str:
        """Where the shared networks run, for the progress line (``""``: not shared)."""
        devices = sorted({server.device for server in self._servers.values()})
        return f", network shared on {'/'.join(devices)}" if devices else ""

    def _total(self, begun: dict[str, dict[str, Any]], seconds: float) -> SelfPlayStats:
        """The workers' counters summed (since ``begun``), over ``seconds`` of the pool's
        wall time."""
        total = SelfPlayStats()
        for slot in self._slots:
            before = begun.get(slot.name, {})
            for key in total.__slots__:  # type: ignore[attr-defined]
                if key == "seconds":
                    continue
                value = slot.stats.get(key, 0) - before.get(key, 0)
                setattr(total, key, getattr(total, key) + value)
        total.seconds = seconds
        return total

    def cpu_seconds(self) -> float:
        """The CPU time the workers (those alive now) have spent playing."""
        return sum(float(slot.stats.get("cpu_seconds", 0.0)) for slot in self._slots)

    def names(self) -> list[str]:
        """The workers' names now (a replaced worker's successor in its place)."""
        return [slot.name for slot in self._slots]

    def server_stats(self) -> dict[str, dict[str, float]]:
        """Each inference server's counters (see :meth:`InferenceServer.stats`), by node."""
        return {node: s.actor.call("stats").result() for node, s in self._servers.items()}

    def close(self) -> None:
        """Stop the workers, then the inference servers (games under way are lost; finished
        ones are written). Each group is stopped at once: an actor busy with a call may take
        its executor's few seconds to close, and those waits overlap instead of adding up."""
        self._flush()
        _stop_all([slot.actor for slot in self._slots])
        _stop_all([server.actor for server in self._servers.values()])


def _stop_all(actors: list[Actor]) -> None:
    """Stop ``actors`` side by side (each in a thread of its own)."""
    if not actors:
        return
    with concurrent.futures.ThreadPoolExecutor(len(actors)) as threads:
        for done in [threads.submit(actor.stop) for actor in actors]:
            done.result()


def _quiet(stage: str, done: float, total: float, text: str) -> None:
    pass
