"""A stress test of the Go position under ``python -X dev`` (issue 42): threads sharing
positions, the garbage collector, pickling, fork, long games on 19x19 and 25x25, positions
kept and dropped. It runs in a child process so that ``-X dev`` (debug allocator hooks,
every warning an error) applies; a crash, a warning or a wrong position fails it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import gc, os, pickle, random, sys, threading
    import numpy as np
    from imago.games.go import GoRules, new_game

    def game(position, moves, rng, kept):
        line = [position]
        for _ in range(moves):
            last = line[-1]
            if last.is_over():
                last = last.resume()
            legal = last.legal_moves()
            move = legal[rng.randrange(len(legal) - 1)] if len(legal) > 1 else legal[0]
            line.append(last.play(move))
            if rng.random() < 0.02:
                kept.append(line[-1])
        return line

    def check(position):
        again = pickle.loads(pickle.dumps(position))
        assert again == position
        assert np.array_equal(again.legal_actions(), position.legal_actions())
        assert np.array_equal(again.superko_keys(), position.superko_keys())
        return again

    kept = []
    long19 = game(new_game(19, GoRules.preset("chinese", 19)), 1200, random.Random(19), kept)
    long25 = game(new_game(25), 700, random.Random(25), kept)
    check(long19[-1])
    check(long25[-1])
    shared = [long19[300], long19[-1], long25[200], new_game(9)]
    del long19, long25
    gc.collect()

    errors = []
    def worker(seed):
        rng = random.Random(seed)
        try:
            for i in range(6):
                start = shared[rng.randrange(len(shared))]
                line = game(start, 60, rng, kept)
                check(line[-1])
                if i % 2:
                    gc.collect()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    gc.collect()

    data = pickle.dumps(kept[-20:])
    pid = os.fork()
    if pid == 0:
        try:
            for position in pickle.loads(data):
                game(position, 30, random.Random(7), [])
            code = 0
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    for position in kept:
        assert position.legal_moves() and position.previous is not None
    del kept
    gc.collect()
    print("clean")
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_go_positions_under_python_dev_mode() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error", "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == "clean"
    assert done.stderr == ""
