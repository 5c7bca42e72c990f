"""A real Ray cluster of two nodes on this machine (``ray.cluster_utils.Cluster``, bound to
127.0.0.1): a match and a self-play generation across both nodes give the same games as the
local executors (same seeds); a killed Ray worker and a lost node cost only the games under
way; a node that lacks a program is named before any game. The cluster is shut down at the
end, every daemon with it."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

from work import (  # noqa: E402
    GA_CONFIG,
    SCHEDULE,
    SETTINGS,
    folder_games,
    ga_outcome,
    new_run,
    selfplay_config,
)
from work import run_games as selfplay_games  # noqa: E402

from imago.arena.match import Player, check_nodes, run_games  # noqa: E402
from imago.cluster import ClusterError, InlineExecutor, Tally  # noqa: E402
from imago.cluster.raycluster import RayExecutor  # noqa: E402
from imago.rl.workers import SelfPlayPool  # noqa: E402
from imago.tune.genetic import GeneticRun, final_round_robin  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from ray.cluster_utils import Cluster

    # every daemon on 127.0.0.1; workers at the tests' priority (Ray's default, nice 15,
    # starves them on a busy machine)
    env = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_worker_niceness": "0"}
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    head = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        head.add_node(num_cpus=1)
        # the job's workers keep their temporary folders in the test's folder: a worker that
        # a test kills cannot remove its own (``SelfPlayWorker``'s network copy)
        worker_tmp = tmp_path_factory.mktemp("ray-workers")
        ray.init(
            address=head.address,
            log_to_driver=False,
            configure_logging=False,
            runtime_env={"env_vars": {"TMPDIR": str(worker_tmp)}},
        )
        head.wait_for_nodes()
        yield head
    finally:
        ray.shutdown()
        head.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _ray_workers(title: str) -> list[int]:
    """Ray worker processes whose title starts with ``title`` (``ray::_located``: a task)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
            except OSError:
                continue
            if cmdline.startswith(title):
                pids.append(int(entry.name))
    return pids


def test_a_match_across_two_nodes_equals_the_local_match(cluster: Any, tmp_path: Path) -> None:
    executor = RayExecutor(cluster.address)
    assert len(executor.nodes()) == 2 and executor.slots == 2
    tally = Tally()
    records = run_games(SETTINGS, SCHEDULE, folder=tmp_path / "ray", executor=executor, tally=tally)
    executor.close()
    assert len(tally.by_node) == 2 and tally.done == len(SCHEDULE)  # both nodes played
    local = run_games(SETTINGS, SCHEDULE, folder=tmp_path / "local", executor=InlineExecutor())
    assert [(r.winner, r.moves) for r in records] == [(r.winner, r.moves) for r in local]
    assert folder_games(tmp_path / "ray") == folder_games(tmp_path / "local")


def test_a_genetic_run_across_two_nodes_equals_the_local_run(cluster: Any, tmp_path: Path) -> None:
    """Seed 002's genetic algorithm with its games on both nodes: the same generations, the
    same fitness and the same round robin as in this process."""
    finals = []
    for name in ("ray", "inline"):
        executor = RayExecutor(cluster.address) if name == "ray" else InlineExecutor()
        tally = Tally()
        run = GeneticRun(tmp_path / name, GA_CONFIG)
        run.run(executor=executor, tally=tally)
        records = final_round_robin(run, executor=executor, tally=tally)
        executor.close()
        if name == "ray":
            assert len(tally.by_node) == 2  # both nodes played
        assert sum(tally.by_node.values()) == 2 * 16 + 12
        finals.append([(r.black, r.white, r.winner, r.moves) for r in records])
    assert ga_outcome(tmp_path / "ray") == ga_outcome(tmp_path / "inline")
    assert finals[0] == finals[1]
    assert folder_games(tmp_path / "ray" / "gen_001") == folder_games(
        tmp_path / "inline" / "gen_001"
    )


def test_selfplay_across_two_nodes_equals_local_selfplay(cluster: Any, tmp_path: Path) -> None:
    config = selfplay_config()
    results = []
    for name in ("ray", "inline"):
        folder = new_run(tmp_path / name)
        executor = RayExecutor(cluster.address) if name == "ray" else InlineExecutor()
        pool = SelfPlayPool(executor, folder, config, 2, name="A", step_games=2)
        pool.play(games=6)
        if name == "ray":
            assert len(pool.tally.by_node) == 2  # one actor on each node
        pool.close()
        executor.close()
        results.append(selfplay_games(folder))
    assert results[0] == results[1]


def test_a_stopped_selfplay_actor_removes_its_temporary_folder(
    cluster: Any, tmp_path: Path
) -> None:
    from imago.rl.workers import SelfPlayWorker, model_files

    config = selfplay_config()
    folder = new_run(tmp_path / "run")
    executor = RayExecutor(cluster.address)
    try:
        actor = executor.start_actor(SelfPlayWorker, config.spec, config.selfplay, 1, 1)
        actor.call("set_model", 0, model_files(folder, 0)).result()
        kept = Path(actor.call("__getattribute__", "folder").result())
        assert (kept / "000000.pt").is_file()  # the network's copy, on this machine's disk
        actor.stop()
        assert not kept.exists()
    finally:
        executor.close()


def test_selfplay_sharing_a_network_per_node_equals_local_selfplay(
    cluster: Any, tmp_path: Path
) -> None:
    """One inference server on each node, each serving that node's worker: the same games
    as networks of their own in one process."""
    from imago.nn.server import ServerConfig

    config = selfplay_config()
    results = []
    for name in ("ray", "inline"):
        folder = new_run(tmp_path / name)
        executor = RayExecutor(cluster.address) if name == "ray" else InlineExecutor()
        server = ServerConfig(device="cpu") if name == "ray" else None
        pool = SelfPlayPool(executor, folder, config, 2, name="A", step_games=2, server=server)
        pool.play(games=6)
        if name == "ray":
            assert len(pool.tally.by_node) == 2  # one actor on each node ...
            served = pool.server_stats()
            assert sorted(served) == sorted(executor.nodes())  # ... each served on its node
            assert all(s["positions"] > 0 and s["clients"] == 1 for s in served.values())
        pool.close()
        executor.close()
        results.append(selfplay_games(folder))
    assert results[0] == results[1]


def test_a_killed_ray_worker_costs_only_its_game(cluster: Any, tmp_path: Path) -> None:
    executor = RayExecutor(cluster.address)
    lost: list[int] = []
    killed: list[int] = []

    def on_result(record: Any) -> bool:
        victims = _ray_workers("ray::_located")
        if not killed and victims:
            os.kill(victims[0], signal.SIGKILL)
            killed.append(victims[0])
        return False

    records = run_games(
        SETTINGS, SCHEDULE, folder=tmp_path / "m", executor=executor, on_result=on_result,
        on_lost=lambda p, e, n: lost.append(p.index),
    )  # fmt: skip
    executor.close()
    assert killed and len(lost) == 1
    assert [r.index for r in records] == list(range(len(SCHEDULE)))
    local = run_games(SETTINGS, SCHEDULE, executor=InlineExecutor())
    assert [(r.winner, r.moves) for r in records] == [(r.winner, r.moves) for r in local]


def test_a_killed_selfplay_actor_costs_only_its_games_under_way(
    cluster: Any, tmp_path: Path
) -> None:
    folder = new_run(tmp_path / "run")
    executor = RayExecutor(cluster.address)
    pool = SelfPlayPool(executor, folder, selfplay_config(), 2, name="K", step_games=1)
    killed: list[int] = []

    def report(stage: str, done: float, total: float, text: str) -> None:
        actors = _ray_workers("ray::_Host")
        if not killed and pool.tally.done >= 1 and actors:
            os.kill(actors[0], signal.SIGKILL)
            killed.append(actors[0])

    pool.play(games=6, report=report)
    pool.close()
    executor.close()
    games = selfplay_games(folder)
    assert killed and pool.lost == 1
    assert len(games) >= 6 and folder.games_in_round(0) == len(games)


def test_a_node_that_lacks_a_program_is_named_before_any_game(cluster: Any) -> None:
    executor = RayExecutor(cluster.address)
    missing = Player.parse('ghost=gtp:command="no-such-engine-here --mode gtp"')
    with pytest.raises(ClusterError, match="cannot run 'ghost'") as error:
        check_nodes(executor, [Player.parse("random"), missing], "go")
    assert str(error.value).count("node ") == 2  # both nodes named
    check_nodes(executor, [Player.parse("random")], "go")  # and what they can run passes
    executor.close()


def test_selfplay_goes_on_when_a_node_is_lost(cluster: Any, tmp_path: Path) -> None:
    """Last: it takes the second node away."""
    folder = new_run(tmp_path / "run")
    executor = RayExecutor(cluster.address)
    pool = SelfPlayPool(executor, folder, selfplay_config(), 2, name="N", step_games=1)
    (second,) = cluster.worker_nodes

    def report(stage: str, done: float, total: float, text: str) -> None:
        if pool.tally.done >= 2 and second in cluster.worker_nodes:
            cluster.remove_node(second)

    stats = pool.play(games=8, report=report)
    pool.close()
    executor.close()
    games = selfplay_games(folder)
    assert second not in cluster.worker_nodes and pool.lost == 1
    assert len(games) >= 8 and folder.games_in_round(0) == len(games)
    assert stats.games >= 0

    # a match that loses a node: a new node joins, and goes away after the first game
    third = cluster.add_node(num_cpus=1)
    executor = RayExecutor(cluster.address)
    lost: list[int] = []

    def on_result(record: Any) -> bool:
        if third in cluster.worker_nodes:
            cluster.remove_node(third)
        return False

    records = run_games(
        SETTINGS, SCHEDULE, folder=tmp_path / "m", executor=executor, on_result=on_result,
        on_lost=lambda p, e, n: lost.append(p.index),
    )  # fmt: skip
    executor.close()
    assert [r.index for r in records] == list(range(len(SCHEDULE)))
    assert len(folder_games(tmp_path / "m")) == len(SCHEDULE)  # every game once
    local = run_games(SETTINGS, SCHEDULE, executor=InlineExecutor())
    assert [(r.winner, r.moves) for r in records] == [(r.winner, r.moves) for r in local]
