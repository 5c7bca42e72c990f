"""Matches and self-play on local worker processes: the same games as in one process (same
seeds), and a worker killed mid-way losing only its games under way, replayed, nothing
counted twice."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from imago.arena.match import run_games
from imago.cluster import InlineExecutor, ProcessExecutor, Tally

pytest.importorskip("torch")

from work import SCHEDULE, SETTINGS, folder_games, new_run, selfplay_config
from work import run_games as selfplay_games

from imago.rl.folder import read_infos
from imago.rl.stages import ComputeClock, worker_cpu
from imago.rl.workers import SelfPlayPool


@pytest.fixture(autouse=True)
def _worker_temporary_folders_in_the_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes (spawned, so they read ``TMPDIR`` afresh) keep their temporary folders
    in the test's: a worker killed here cannot remove its own."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))


@pytest.mark.slow
def test_a_match_on_processes_with_a_worker_killed_plays_every_game_once(tmp_path: Path) -> None:
    alone = run_games(SETTINGS, SCHEDULE, folder=tmp_path / "one")
    lost: list[int] = []
    tally = Tally()
    with ProcessExecutor(2) as executor:

        def on_result(record: object) -> bool:
            if not lost and tally.done == 1:
                busy = executor.pids(busy=True)
                assert busy, "no game under way to kill"
                os.kill(busy[0], signal.SIGKILL)
            return False

        records = run_games(
            SETTINGS, SCHEDULE, folder=tmp_path / "two", executor=executor, tally=tally,
            on_result=on_result, on_lost=lambda p, e, n: lost.append(p.index),
        )  # fmt: skip
    assert len(lost) == 1  # one game was under way in the killed process ...
    assert [r.index for r in records] == list(range(len(SCHEDULE)))  # ... and played again
    # the same games as in one process (same seeds), each saved once
    assert [(r.winner, r.moves) for r in records] == [(r.winner, r.moves) for r in alone]
    assert folder_games(tmp_path / "two") == folder_games(tmp_path / "one")


@pytest.mark.slow
def test_selfplay_on_processes_plays_the_games_of_one_process_and_survives_a_kill(
    tmp_path: Path,
) -> None:
    config = selfplay_config()
    results = []
    for name, executor in (("inline", InlineExecutor()), ("processes", ProcessExecutor(2))):
        folder = new_run(tmp_path / name)
        with executor:
            pool = SelfPlayPool(executor, folder, config, 2, name="A", step_games=2)
            stats = pool.play(games=6)
            pool.close()
        assert stats.games >= 6
        results.append(selfplay_games(folder))
    inline, processes = results
    assert inline == processes  # the same games, by worker and index, on either executor
    assert {worker for worker, _ in inline} == {"Aw0", "Aw1"}

    # a worker killed in the middle: its share is played by the other, nothing twice. Killed
    # only while every worker has games still to play (at most `early` of the 12 done, 6 a
    # worker): a worker killed after its last game came back has lost nothing, and the pool
    # would rightly count no loss (a busy machine can starve this watcher that long).
    folder = new_run(tmp_path / "killed")
    games, early = 12, 4
    with ProcessExecutor(2) as executor:
        pool = SelfPlayPool(executor, folder, config, 2, name="K", step_games=1)
        killed: list[int] = []
        missed: list[int] = []
        finished = threading.Event()

        def kill_a_busy_worker() -> None:  # polled, not at reports: a game may be short
            while not killed and not missed and not finished.wait(0.005):
                busy, done = executor.pids(busy=True), pool.tally.done
                if done > early:
                    missed.append(done)
                elif done >= 1 and busy:
                    os.kill(busy[-1], signal.SIGKILL)
                    killed.append(busy[-1])

        watcher = threading.Thread(target=kill_a_busy_worker, daemon=True)
        watcher.start()
        try:
            pool.play(games=games)
        finally:  # a failing pool leaves no thread polling a closed executor
            finished.set()
            watcher.join()
        pool.close()
    played = selfplay_games(folder)
    if missed and not killed:
        pytest.skip(f"the machine was too busy: {missed[0]} games done before the watcher ran")
    assert killed and pool.lost == 1
    assert any(name.endswith("r1") for name in pool.names())  # a replacement, named anew
    assert len(played) >= games and folder.games_in_round(0) == len(played)
    assert [row["worker"] for row in folder.metrics("worker_lost")] == [
        n for n in ("Kw0", "Kw1") if n not in pool.names()
    ]


@pytest.mark.slow
def test_the_compute_clock_counts_the_cpu_of_worker_processes_still_running(
    tmp_path: Path,
) -> None:
    folder = new_run(tmp_path / "run")
    with InlineExecutor() as inline:  # inline workers are this process: counted once already
        assert worker_cpu(SelfPlayPool(inline, folder, selfplay_config(), 1, name="I")) is None
    with ProcessExecutor(2) as executor:
        pool = SelfPlayPool(executor, folder, selfplay_config(), 2, name="C", step_games=2)
        counted, own = ComputeClock(folder, worker_cpu(pool)), ComputeClock(folder)
        pool.play(games=100)
        workers = pool.cpu_seconds()
        with_workers, without = counted.log(1)["cpu_s"], own.log(1)["cpu_s"]
        pool.close()
    assert workers > 0.5  # the workers, alive, did the playing ...
    assert with_workers == pytest.approx(without + workers, abs=0.15)  # ... and are counted


@pytest.mark.slow
def test_following_workers_take_up_a_newly_promoted_network_without_a_restart(
    tmp_path: Path,
) -> None:
    import shutil
    import threading

    folder = new_run(tmp_path / "run")
    stop = threading.Event()
    with ProcessExecutor(2) as executor:
        pool = SelfPlayPool(executor, folder, selfplay_config(), 2, name="F", step_games=1)
        pids = sorted(executor.pids())

        def report(stage: str, done: float, total: float, text: str) -> None:
            if folder.latest() == 0 and folder.games_in_round(0) >= 2:
                # a trainer elsewhere makes generation 1 and promotes it
                for suffix in (".pt", ".onnx"):
                    shutil.copy(folder.model_path(0, suffix), folder.model_path(1, suffix))
                folder.write_lineage(1, {"generation": 1, "parent": 0, "source": "test"})
                folder.promote(1, "test")
            if folder.latest() == 1 and 1 in generations(folder, 1):
                stop.set()

        pool.play(follow=True, stop=stop, report=report)
        assert sorted(executor.pids()) == pids  # the same worker processes throughout
        pool.close()
    assert pool.names() == ["Fw0", "Fw1"] and pool.lost == 0
    assert selfplay_games(folder, 1)  # the new round's games, each once
    assert 1 in generations(folder, 1)  # played by the promoted network
    assert generations(folder, 0) == {0}


def generations(folder: Any, round_: int) -> set[int]:
    """The generations that played a round's games (as written beside them)."""
    return {
        info["generation"]
        for holdout in (False, True)
        for path in folder.example_files(round_, holdout)
        for info in read_infos(path)
    }


@pytest.mark.slow
def test_selfplay_sharing_one_network_plays_the_games_of_networks_of_their_own(
    tmp_path: Path,
) -> None:
    from imago.nn.server import ServerConfig

    config = selfplay_config()
    results = []
    for name, executor, server in (
        ("own", InlineExecutor(), None),
        ("shared", ProcessExecutor(2), ServerConfig(device="cpu")),
    ):
        folder = new_run(tmp_path / name)
        with executor:
            pool = SelfPlayPool(executor, folder, config, 2, name="S", step_games=2, server=server)
            pool.play(games=6)
            served = pool.server_stats() if server else {}
            pool.close()
        results.append(selfplay_games(folder))
    own, shared = results
    assert len(shared) >= 6 and shared == own  # the same games, by worker and index
    (stats,) = served.values()
    assert stats["positions"] > 0 and stats["requests"] >= stats["calls"]


@pytest.mark.slow
def test_a_killed_inference_server_is_started_again_and_no_game_is_lost_or_doubled(
    tmp_path: Path,
) -> None:
    from imago.nn.server import ServerConfig

    folder = new_run(tmp_path / "killed")
    with ProcessExecutor(2) as executor:
        pool = SelfPlayPool(
            executor, folder, selfplay_config(), 2, name="K", step_games=1,
            server=ServerConfig(device="cpu"),
        )  # fmt: skip
        (first,) = pool.server_stats().values()
        killed: list[int] = []

        def report(stage: str, done: float, total: float, text: str) -> None:
            if not killed and pool.tally.done >= 1:
                os.kill(int(first["pid"]), signal.SIGKILL)
                killed.append(int(first["pid"]))

        pool.play(games=8, report=report)
        (again,) = pool.server_stats().values()
        pool.close()
    games = selfplay_games(folder)
    assert killed and again["pid"] != first["pid"]
    assert pool.lost >= 1 and len(folder.metrics("server_lost")) == 1
    assert len(games) >= 8 and folder.games_in_round(0) == len(games)
