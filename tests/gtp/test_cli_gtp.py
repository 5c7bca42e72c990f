"""``imago gtp`` refuses bad options with a message before serving anything."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--agent", "nobody"], "unknown agent 'nobody'"),
        (["--agent", "random:colour=red"], "has no option colour"),
        (["--rules", "chess"], "unknown rules 'chess'"),
        (
            ["--game", "othello", "--size", "9"],
            "Othello is played on 4x4, 6x6, 8x8",
        ),
        (["--size", "26"], "unacceptable size 26: Go boards are 2x2 to 25x25"),
    ],
)
def test_bad_options(args: list[str], message: str):
    done = subprocess.run(
        [sys.executable, "-m", "imago", "gtp", *args],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert message in done.stderr
    assert done.stdout == ""


def gtp_session(args: list[str], commands: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "imago", "gtp", *args],
        input="".join(f"{command}\n" for command in commands),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("/nonexistent/engine", "cannot start '/nonexistent/engine': no such file or directory"),
        ("/bin/false", "'/bin/false' does not answer as a GTP engine"),
    ],
)
def test_an_external_engine_is_checked_before_play(command: str, message: str):
    done = gtp_session(["--agent", f"gtp:command={command}"], ["name"])
    assert done.returncode == 1 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr


def test_an_agent_whose_model_is_for_another_game_is_refused_at_start():
    pytest.importorskip("torch")
    from imago.nn.shipped import SHIPPED_MODELS

    othello_model = SHIPPED_MODELS[("othello", 8)]
    done = gtp_session(["--agent", f"policy:model={othello_model}"], ["name"])
    assert done.returncode == 1 and done.stdout == ""
    assert "is a model for 8x8 othello, not 9x9 go" in done.stderr


def test_a_size_the_agent_cannot_play_is_refused_at_boardsize():
    pytest.importorskip("torch")
    done = gtp_session(
        ["--game", "othello", "--agent", "policy"], ["boardsize 6", "boardsize 8", "genmove b"]
    )
    assert done.stdout.split("\n\n")[:3] == [
        "? unacceptable size",
        "=",
        done.stdout.split("\n\n")[2],
    ]
    assert done.stdout.split("\n\n")[2].startswith("= ")


def test_the_default_agent_is_the_strongest_for_each_board():
    from imago.nn.shipped import strongest_agent

    done = gtp_session([], ["version", "boardsize 19", "version", "boardsize 7", "version"])
    replies = [reply.removeprefix("= ") for reply in done.stdout.split("\n\n")[:5]]
    first, big, small = replies[0], replies[2], replies[4]
    assert first.endswith(f"({strongest_agent('go', 9).split(':')[0]})")
    assert big.endswith(f"({strongest_agent('go', 19).split(':')[0]})") and "nnmcts" in big
    assert small.endswith("(mcts)")  # no network for 7x7: the plain search
    commands = ["version", "boardsize 6", "version", "genmove b", "list_stones black"]
    done = gtp_session(["--game", "othello"], commands)
    first, _, after, move, black = (r.removeprefix("= ") for r in done.stdout.split("\n\n")[:5])
    assert first.endswith("(alphabeta)") and after.endswith("(alphabeta)")  # it plays 6x6 too
    assert move in black.split() and len(black.split()) == 4  # two, the move and one flipped
