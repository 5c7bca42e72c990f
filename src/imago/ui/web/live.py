"""Engines at work behind the page: a background runner, and the analysis jobs it runs.

A :class:`Runner` owns one thread and runs one job at a time; a new request stops the running
job (through its stop flag) and replaces any that waits, so the page never waits for an
engine and an agent is never used by two threads at once. Jobs publish snapshots (plain
JSON-ready dicts); the session reads the latest one when it wants to (at most a few times a
second) and is told when a job ends.

Live analysis comes in two shapes:

* :func:`root_search` -- any agent that reports :class:`~imago.agents.base.SearchResult`
  candidates (``mcts``, ``nnmcts``, ``alphabeta``, a GTP program...). An agent that keeps its
  search between calls (an MCTS ``reuse`` tree) is run in short slices, each ending in a
  fresh report, so the page sees new figures several times a second; any other agent is run
  once for the whole analysis, its interim reports (``on_info``) forwarded as they come.
* :func:`othello_move_scores` -- Othello with ``alphabeta``: every legal move is scored by
  searching the position after it, depth by depth, and once few enough squares are empty the
  endgame solver gives the exact final disc difference of every move, with its best line.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from imago.agents.base import Agent, Limit, SearchResult
from imago.core.game import GameState
from imago.core.move import Move
from imago.gtp.analysis import candidates as sorted_candidates
from imago.ui.web.view import Json, move_text, point, result_view

Publish = Callable[[Json], None]
Job = Callable[[threading.Event, Publish], None]


@dataclass(frozen=True, slots=True)
class AnalysisConfig:
    """How live analysis runs."""

    slice_seconds: float = 0.15
    """Length of one search slice of an agent that keeps its search between calls."""
    max_seconds: float = 600.0
    """Analysis of one position stops after this long."""
    exact_empties: int = 18
    """Othello: solve every move exactly from this many empty squares on (0: never)."""
    solver_nodes: int = 60_000_000
    """Othello: give up the exact score of one move after this many solver nodes."""


@dataclass
class Snapshot:
    """The latest thing a job published."""

    key: object = None
    seq: int = 0
    data: Json | None = None
    running: bool = False
    started: float = 0.0
    error: str | None = None
    finished: list[object] = field(default_factory=list)


class Runner:
    """One background thread running one job at a time (see the module docstring).

    ``notify(key)`` is called from the runner's thread when a job publishes or ends; it must
    be thread-safe (the app passes ``loop.call_soon_threadsafe``'s wrapper).
    """

    def __init__(self, name: str, notify: Callable[[object], None] | None = None) -> None:
        self.name = name
        self._notify = notify
        self._lock = threading.Condition()
        self._pending: tuple[object, Job] | None = None
        self._stop = threading.Event()
        self._closed = False
        self._snapshot = Snapshot()
        self._thread: threading.Thread | None = None

    def submit(self, key: object, job: Job) -> None:
        """Run ``job`` next under ``key``, stopping the current one."""
        with self._lock:
            if self._closed:
                return
            self._stop.set()
            self._pending = (key, job)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name=f"imago-web-{self.name}", daemon=True
                )
                self._thread.start()
            self._lock.notify()

    def cancel(self) -> None:
        """Stop the current job and drop any that waits."""
        with self._lock:
            self._stop.set()
            self._pending = None

    def close(self) -> None:
        """Stop everything; the thread ends after its current job."""
        with self._lock:
            self._closed = True
            self._stop.set()
            self._pending = None
            self._lock.notify()

    def snapshot(self) -> Snapshot:
        """A copy of the latest snapshot."""
        with self._lock:
            s = self._snapshot
            return Snapshot(s.key, s.seq, s.data, s.running, s.started, s.error, list(s.finished))

    def take_finished(self) -> list[object]:
        """Keys of the jobs that ended since the last call."""
        with self._lock:
            done, self._snapshot.finished = self._snapshot.finished, []
            return done

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._snapshot.running or self._pending is not None

    def _loop(self) -> None:
        while True:
            with self._lock:
                while self._pending is None and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                assert self._pending is not None
                key, job = self._pending
                self._pending = None
                stop = self._stop = threading.Event()
                self._snapshot = Snapshot(
                    key, 0, None, True, time.perf_counter(), None, self._snapshot.finished
                )
            try:
                job(stop, functools.partial(self._publish, key))
            except Exception as error:  # an engine's failure is shown, never fatal
                message = f"{type(error).__name__}: {error}"
                traceback.print_exc()
                with self._lock:
                    if self._snapshot.key is key:
                        self._snapshot.error = message
            with self._lock:
                if self._snapshot.key is key:
                    self._snapshot.running = False
                self._snapshot.finished.append(key)
            self._ping(key)

    def _publish(self, key: object, data: Json) -> None:
        with self._lock:
            if self._snapshot.key is not key:
                return
            self._snapshot.seq += 1
            self._snapshot.data = data
        self._ping(key)

    def _ping(self, key: object) -> None:
        if self._notify is not None:
            with contextlib.suppress(RuntimeError):  # the event loop is closed: nobody listens
                self._notify(key)


# -- analysis jobs ----------------------------------------------------------------------------


def resumes_search(agent: Agent) -> bool:
    """Whether ``agent`` continues its last search when asked about the same position again
    (a tree search that keeps its tree: ``reuse`` on the agent or in its options): then short
    slices lose nothing."""
    own = getattr(agent, "reuse", None)
    if isinstance(own, bool):
        return own
    options = getattr(agent, "options", None)
    return getattr(options, "reuse", False) is True


def search_view(state: GameState, result: SearchResult, engine: str) -> Json:
    """A root search's report for the page."""
    game, size = state.game, state.size
    ordered = sorted_candidates(result)
    view = result_view(game, size, result, ordered)
    view.update(kind="search", engine=engine, to_play=state.to_play.letter)
    return view


def root_search(agent: Agent, state: GameState, engine: str, config: AnalysisConfig) -> Job:
    """A job searching ``state`` with ``agent`` until stopped (see the module docstring)."""

    def job(stop: threading.Event, publish: Publish) -> None:
        def report(result: SearchResult) -> None:
            if result.has_analysis:
                publish(search_view(state, result, engine))

        started = time.perf_counter()
        if resumes_search(agent):
            while not stop.is_set() and time.perf_counter() - started < config.max_seconds:
                result = agent.select_move(
                    state, Limit(time=config.slice_seconds), on_info=report, stop=stop
                )
                report(result)
        else:
            report(
                agent.select_move(state, Limit(time=config.max_seconds), on_info=report, stop=stop)
            )

    return job


@dataclass
class _MoveScore:
    move: Move
    value: float | None = None
    depth: int = 0
    exact: bool = False
    pv: tuple[Move, ...] = ()


def othello_move_scores(
    agent: Agent, solver: Any, state: GameState, engine: str, config: AnalysisConfig
) -> Job:
    """A job scoring every legal Othello move (see the module docstring): ``agent`` (which
    must report ``value``) searches each resulting position at depth 1, 2, ...; ``solver``
    (an :class:`imago.agents.othello.endgame.EndgameSolver`, or ``None``) solves each exactly once
    ``config.exact_empties`` or fewer squares are empty."""

    def job(stop: threading.Event, publish: Publish) -> None:
        moves = [m for m in state.legal_moves() if m.is_play]
        rows = [_MoveScore(m, pv=(m,)) for m in moves]
        empties = int((state.board() == 0).sum())
        exact = solver is not None and state.size == 8 and empties <= config.exact_empties
        started = time.perf_counter()

        def send(phase: str, depth: int) -> None:
            publish(_scores_view(state, rows, engine, phase, depth))

        send("start", 0)
        if not rows:
            return
        last_depth = min(empties - 1, 4 if exact else 60)
        for depth in range(1, max(last_depth, 1) + 1):
            for row in rows:
                if stop.is_set() or time.perf_counter() - started > config.max_seconds:
                    return
                value, pv = _child_value(agent, state, row.move, depth, stop)
                if value is not None and not row.exact:
                    row.value, row.depth, row.pv = value, depth, (row.move, *pv)
                send("depth", depth)
        if not exact:
            send("done", last_depth)
            return
        for row in rows:
            if stop.is_set():
                return
            solved = _solve_child(solver, state, row.move, config.solver_nodes)
            if solved is not None:
                row.value, row.exact, row.depth = float(solved), True, empties
            send("exact", empties)
        for row in sorted(rows, key=lambda r: -(r.value or -99)):
            if stop.is_set():
                return
            if row.exact:
                row.pv = _solved_line(solver, state, row.move, config.solver_nodes)
                send("lines", empties)
        send("done", empties)

    return job


def _child_value(
    agent: Agent, state: GameState, move: Move, depth: int, stop: threading.Event
) -> tuple[float | None, tuple[Move, ...]]:
    """The value of ``move`` for the player making it: a search of the position after it."""
    mover = state.to_play
    child = state.play(move)
    if child.is_over():
        outcome = child.outcome(empties_to_winner=True)  # type: ignore[call-arg]
        assert outcome is not None
        diff = (outcome.black_score or 0.0) - (outcome.white_score or 0.0)
        return (diff if mover.letter == "B" else -diff), ()
    sign = -1.0
    if not any(m.is_play for m in child.legal_moves()):
        child, sign = child.play(Move.PASS), 1.0
    result = agent.select_move(child, Limit(depth=max(1, depth - 1)), stop=stop)
    if result.value is None:
        return None, ()
    return sign * float(result.value), result.pv


def _solve_child(solver: Any, state: GameState, move: Move, nodes: int) -> int | None:
    from imago.agents.othello.endgame import SearchAborted

    try:
        result = solver.solve_state(state.play(move), node_limit=nodes)
    except SearchAborted:
        return None
    return -int(result.score)


def _solved_line(solver: Any, state: GameState, move: Move, nodes: int) -> tuple[Move, ...]:
    """``move`` and the best play after it, as the solver finds it (to the end of the game)."""
    line = [move]
    position = state.play(move)
    while not position.is_over() and len(line) < 40:
        try:
            result = solver.solve_state(position, node_limit=nodes)
        except Exception:
            break
        step = result.move
        if step.is_pass:
            position = position.play(Move.PASS)
            continue
        line.append(step)
        position = position.play(step)
    return tuple(line)


def _scores_view(
    state: GameState, rows: list[_MoveScore], engine: str, phase: str, depth: int
) -> Json:
    game, size = state.game, state.size
    ordered = sorted(rows, key=lambda r: (r.value is None, -(r.value or 0.0)))
    best = ordered[0] if ordered and ordered[0].value is not None else None
    return {
        "kind": "scores",
        "engine": engine,
        "to_play": state.to_play.letter,
        "phase": phase,
        "depth": depth,
        "exact": bool(rows) and all(r.exact for r in rows),
        "move": None if best is None else move_text(game, size, best.move),
        "value": None if best is None else best.value,
        "pv": [] if best is None else [move_text(game, size, m) for m in best.pv],
        "candidates": [
            {
                "move": move_text(game, size, r.move),
                "point": point(r.move.point),
                "value": r.value,
                "depth": r.depth,
                "exact": r.exact,
                "visits": 0,
                "winrate": None,
                "pv": [move_text(game, size, m) for m in r.pv],
                "pv_points": [point(m.point) for m in r.pv],
            }
            for r in ordered
        ],
    }


def hint_job(agent: Agent, state: GameState, limit: Limit, engine: str) -> Job:
    """A job asking ``agent`` for its move in ``state`` once (the page's hint)."""

    def job(stop: threading.Event, publish: Publish) -> None:
        result = agent.select_move(state, limit, stop=stop)
        view = search_view(state, result, engine)
        view["kind"] = "hint"
        publish(view)

    return job
