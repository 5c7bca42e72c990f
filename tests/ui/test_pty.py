"""``imago play`` through a pseudo-terminal, as a person uses it (the design's system tests of
the game interface): a game played to the end with no engine; a wrong move shown as wrong with
the game going on unchanged; closing the game closes the interface; a game against an agent;
``hint`` does not change the game; Othello with its forced pass and final count."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

pytestmark = pytest.mark.slow

PROMPT = r"(black|white) to play> "
TIMEOUT = 300  # a busy machine; a cold start compiles numba kernels


def spawn(*args: str, cwd: Path | None = None) -> pexpect.spawn:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="xterm")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "imago", "play", *args],
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(50, 100),
        cwd=str(cwd) if cwd else None,
    )
    return child


def plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_people_play_go_to_the_end_and_a_wrong_move_changes_nothing(tmp_path: Path):
    child = spawn("--black", "human", "--white", "human", cwd=tmp_path)
    child.expect("black to play> ")
    child.sendline("E5")
    child.expect("white to play> ")
    child.sendline("E5")  # occupied
    child.expect("illegal: the point is occupied")
    child.expect("white to play> ")
    child.sendline("J10")  # off the board
    child.expect("not a move or command here")
    child.expect("white to play> ")
    child.sendline("hint")  # two people: the strongest engine answers
    child.expect(r"hint: (az|mcts) would play \w+")
    child.expect("white to play> ")
    child.sendline("pass")
    child.expect("black to play> ")
    before = plain(child.before)
    assert "move 2" in before and "last pass" in before  # the wrong moves changed nothing
    child.sendline("pass")
    child.expect(r"Game over: B\+74 \(black wins\)")
    child.expect("Save the game\\? File name")
    child.sendline("end.sgf")
    child.expect("Saved end.sgf")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "B[ee]" in (tmp_path / "end.sgf").read_text()


def test_quit_closes_the_interface():
    child = spawn()
    child.expect("black to play> ")
    child.sendline("quit")
    child.expect("Bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_main_job_plays_against_the_engine():
    """The main job's default: a person (black) against imago's strongest 9x9 Go engine
    (``az`` with playouts mixed in; plain MCTS where torch is missing)."""
    child = spawn("--seed", "2", "--move-time", "0.2")
    child.expect("black to play> ")
    child.sendline("e5")
    child.expect(r"white \((az|mcts)\) plays [A-HJ-T]\d")
    child.expect("black to play> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_game_against_the_random_agent():
    """A person (black) against the random agent on 9x9 Go. The person passes every turn; the
    agent plays until it has no sensible move and passes too."""
    child = spawn("--seed", "2", "--white", "random")
    child.expect("black to play> ")
    child.sendline("hint")
    child.expect(r"hint: random would play \w+")
    child.expect("black to play> ")
    assert "white (random) plays" not in plain(child.before)  # the hint played nothing
    for _ in range(200):
        child.sendline("pass")
        index = child.expect(["black to play> ", r"Game over: (W|B)\+[\d.]+"])
        if index == 1:
            break
    else:
        pytest.fail("the game did not end")
    assert "white (random) plays" in plain(child.before)
    child.expect("Save the game")
    child.sendline("")
    child.expect(pexpect.EOF)


def test_othello_in_the_terminal():
    child = spawn("--game", "othello", "--black", "human", "--white", "human")
    child.expect("black to play> ")
    assert "3 . . . * . . . . 3" in plain(child.before)  # legal moves marked
    child.sendline("a1")
    child.expect("illegal: the move flips no disc")
    for index, move in enumerate(["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"]):
        if index:
            child.expect(f"{'black' if index % 2 == 0 else 'white'} to play> ")
        child.sendline(move)
    child.expect(r"Game over: B\+64 \(black wins\); discs: black 13, white 0, and the 51 empty")
    child.expect("Save the game")
    child.sendline("")
    child.expect(pexpect.EOF)
