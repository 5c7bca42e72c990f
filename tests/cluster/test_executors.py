"""The execution layer on this machine: tasks and actors in this process or in worker
processes, a killed worker losing only its own work (replayed), no process left behind, and
Ray asked for where it is not installed or cannot be reached."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from imago.cluster import (
    ClusterError,
    Execution,
    InlineExecutor,
    ProcessExecutor,
    Tally,
    WorkerLost,
    map_unordered,
    open_executor,
)


def square(x: int) -> int:
    return x * x


def slow_square(x: int) -> tuple[int, int]:
    time.sleep(0.3)
    return x * x, os.getpid()


def refuse(x: int) -> int:
    raise ValueError(f"no {x}")


class Counter:
    """An actor: state that stays between calls."""

    def __init__(self, start: int) -> None:
        self.total = start

    def add(self, n: int) -> int:
        self.total += n
        return self.total

    def pid(self) -> int:
        return os.getpid()


class Scratch:
    """An actor that keeps a folder on disk and removes it when closed (as self-play workers
    keep their network files)."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.folder.mkdir()

    def wait(self, seconds: float) -> None:
        time.sleep(seconds)

    def close(self) -> None:
        self.folder.rmdir()


@pytest.mark.parametrize("busy", [False, True])
def test_a_stopped_actor_closes_even_in_the_middle_of_a_call(tmp_path: Path, busy: bool) -> None:
    """Stopping an actor busy with a long call terminates its process after a few seconds;
    its close runs all the same (before, such workers left their temporary folders)."""
    executor = ProcessExecutor(1)
    actor = executor.start_actor(Scratch, str(tmp_path / "kept"))
    actor.call("wait", 0.0).result(timeout=60)  # started
    assert (tmp_path / "kept").is_dir()
    if busy:
        actor.call("wait", 600.0)
        time.sleep(0.2)  # the call has begun
    actor.stop()
    executor.close()
    assert not (tmp_path / "kept").exists()


@pytest.mark.parametrize(
    ("execution", "kind"),
    [(Execution(), "inline"), (Execution(workers=2), "processes")],
)
def test_every_task_answers_once_and_an_actor_keeps_its_state(
    execution: Execution, kind: str
) -> None:
    with open_executor(execution) as executor:
        assert executor.kind == kind
        tally = Tally()
        answers = {
            item: value for item, value, _ in map_unordered(executor, square, range(7), tally=tally)
        }
        assert answers == {i: i * i for i in range(7)}
        assert tally.done == 7 and set(tally.by_node) == {"local"}
        actor = executor.start_actor(Counter, 10)
        assert [actor.call("add", n).result() for n in (1, 2, 3)] == [11, 13, 16]
        in_process = actor.call("pid").result() == os.getpid()
        assert in_process == (kind == "inline")


def test_a_task_s_own_exception_comes_back_as_raised() -> None:
    for executor in (InlineExecutor(), ProcessExecutor(2)):
        with executor, pytest.raises(ValueError, match="no 3"):
            list(map_unordered(executor, refuse, [3]))


def test_a_killed_worker_loses_only_its_task_which_is_replayed() -> None:
    lost: list[tuple[int, str]] = []
    with ProcessExecutor(2) as executor:
        seen: dict[int, int] = {}
        tasks = map_unordered(
            executor, slow_square, range(8), on_lost=lambda item, e, n: lost.append((item, str(e)))
        )
        for item, (value, _pid), _node in tasks:
            assert value == item * item and item not in seen
            seen[item] = value
            if len(seen) == 1:
                busy = executor.pids(busy=True)
                assert busy
                os.kill(busy[0], signal.SIGKILL)
        assert sorted(seen) == list(range(8))  # every task answered, once
        assert len(lost) == 1 and "died (signal 9)" in lost[0][1]


def test_a_killed_actor_fails_with_worker_lost_and_closing_ends_every_process() -> None:
    executor = ProcessExecutor(2)
    actor = executor.start_actor(Counter, 0)
    pid = actor.call("pid").result()
    list(map_unordered(executor, square, range(4)))
    pids = executor.pids()
    assert pid in pids and len(pids) == 3
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(WorkerLost, match="died"):
        actor.call("add", 1).result(timeout=30)
    executor.close()
    time.sleep(0.2)
    for other in pids:
        assert not Path(f"/proc/{other}").exists() or _zombie(other)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


NO_RAY = "import sys; sys.modules['ray'] = None; from imago.cli.app import main; main()"


def _imago_without_ray(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-c", NO_RAY, *args], capture_output=True, text=True, timeout=300
    )
    done.stderr = " ".join(done.stderr.split())
    return done


@pytest.mark.slow
def test_without_ray_the_local_default_works_and_ray_says_how_to_install_it(
    tmp_path: Path,
) -> None:
    match = ["match", "--game", "othello", "--black", "random", "--white", "random"]
    done = _imago_without_ray(*match, "--games", "2", "--jobs", "2", "--out", str(tmp_path / "m"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "m" / "games").glob("*.json"))) == 2
    asked = _imago_without_ray(*match, "--games", "2", "--ray", "auto")
    assert asked.returncode == 1
    assert "pip install 'imago[ray]'" in asked.stderr and "Traceback" not in asked.stderr
    with pytest.raises(ClusterError, match="pip install"):
        # in this process too, whether or not Ray is installed here
        saved = sys.modules.get("ray")
        sys.modules["ray"] = None  # type: ignore[assignment]
        try:
            open_executor(Execution(ray="auto"))
        finally:
            if saved is None:
                del sys.modules["ray"]
            else:
                sys.modules["ray"] = saved


def test_a_cluster_out_of_reach_is_one_clear_line() -> None:
    pytest.importorskip("ray")
    started = time.perf_counter()
    with pytest.raises(ClusterError, match=r"cannot reach the Ray cluster at 127\.0\.0\.1:1"):
        open_executor(Execution(ray="127.0.0.1:1"))
    with pytest.raises(ClusterError, match="HOST:PORT"):
        open_executor(Execution(ray="nowhere"))
    assert time.perf_counter() - started < 30


def test_a_worker_whose_caller_has_gone_ends_without_a_traceback(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # Seen at the end of `imago match`: a worker finished a call after the command had
    # closed its pipe, and its answer failed twice (a BrokenPipeError traceback on stderr).
    import multiprocessing

    from imago.cluster.local import _serve

    context = multiprocessing.get_context("spawn")
    caller, child = context.Pipe()
    worker = context.Process(target=_serve, args=(child,))
    worker.start()
    child.close()
    caller.send(("call", 1, time.sleep, (0.5,)))
    caller.close()  # gone before the answer
    worker.join(timeout=30)
    assert worker.exitcode == 0
    assert "Traceback" not in capfd.readouterr().err
