"""The first hour of a new user, scripted (issue 16): ``imago play`` for each game through a
pseudo-terminal, with mistakes of every kind, hints, save, load, resign and quit; then every
``imago`` command with a missing file, a file of the wrong kind and an option it does not have.

No traceback (or Python's own error text) may reach the terminal, and every error must name
the problem and what to do about it.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from imago.cli.app import app

pytestmark = pytest.mark.slow

TIMEOUT = 300  # a busy machine; a cold start compiles numba kernels
PROMPT = r"(black|white) to play> "
PYTHON_TEXT = re.compile(
    r"Traceback \(most recent call last\)|\[Errno \d+\]|\b[A-Z][A-Za-z]*(Error|Exception): "
)
"""What must never reach a person: a traceback, errno text, an exception's class name."""


def plain(text: str) -> str:
    """The text without terminal escapes and with rich's line wrapping undone."""
    return " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).split())


class Session:
    """``imago ARGS`` in a pseudo-terminal, keeping everything it wrote."""

    def __init__(self, *args: str, cwd: Path) -> None:
        env = dict(os.environ, NO_COLOR="1", COLUMNS="200", TERM="xterm")
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "imago", *args],
            env=env,
            encoding="utf-8",
            timeout=TIMEOUT,
            dimensions=(60, 200),
            cwd=str(cwd),
        )
        self.seen: list[str] = []

    def expect(self, pattern: str) -> str:
        """Wait for ``pattern``; the text before it (plain)."""
        self.child.expect(pattern)
        before = plain(self.child.before) + " " + plain(str(self.child.after))
        self.seen.append(before)
        return before

    def say(self, line: str, answer: str, then: str = PROMPT) -> str:
        """Send ``line``; the output must show ``answer`` (a regex) before ``then``."""
        self.child.sendline(line)
        text = self.expect(then)
        assert re.search(answer, text), (line, text)
        return text

    def end(self) -> int:
        self.child.expect(pexpect.EOF)
        self.seen.append(plain(self.child.before))
        self.child.close()
        transcript = " ".join(self.seen)
        assert not PYTHON_TEXT.search(transcript), transcript
        return int(self.child.exitstatus or 0)


def test_a_game_of_go_with_every_mistake(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("My notes about Go.\nNot a record.\n")
    go = Session("play", "--white", "random", "--seed", "3", cwd=tmp_path)
    go.expect(PROMPT)
    go.say("hello", r"'hello' is not a move or command here: .* Type help\.")
    go.say("help", r"commands: a move \(D4\), pass, undo, resign, hint, save FILE\.sgf")
    go.say("E5", r"white \(random\) plays [A-HJ-T]\d")
    go.say("E5", r"E5 is illegal: the point is occupied\.")
    go.say("J10", r"'J10' is not a move or command here")
    go.say("save", r"save needs a file name: save FILE\.sgf")
    go.say("save nowhere/game.sgf", r"cannot save nowhere/game\.sgf: no such file or directory")
    go.say(
        "save game.txt",
        r"cannot save game\.txt: .*\.txt is an Othello transcript, which holds 8x8 Othello games "
        r"only, not 9x9 go; write \.sgf instead",
    )
    go.say("load missing.sgf", r"cannot load missing\.sgf: no such file or directory")
    go.say(
        "load notes.txt", r"cannot load notes\.txt: no game in notes\.txt .*no Othello transcript"
    )
    go.say("hint", r"hint: random would play [A-HJ-T]\d")
    go.say("undo", r"Move taken back\.")
    go.say("D4", r"white \(random\) plays")
    go.say("save game.sgf", r"Saved game\.sgf\.")
    go.say("load game.sgf", r"Loaded game\.sgf\.")
    go.say("resign", r"black resigns\..*Game over: W\+R", then=r"Save the game\? File name")
    go.child.sendline("quit")
    assert go.end() == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.sgf", "notes.txt"]
    assert "B[df]" in (tmp_path / "game.sgf").read_text()  # undo took E5 and its reply back


def test_a_game_of_othello_between_two_people(tmp_path: Path) -> None:
    othello = Session("play", "--game", "othello", "--black", "human", "--white", "human",
                      cwd=tmp_path)  # fmt: skip
    othello.expect(PROMPT)
    othello.say("a1", r"a1 is illegal: the move flips no disc\.")
    othello.say("pass", r"pass is illegal: passing is not allowed while a legal move exists\.")
    othello.say("z9", r"'z9' is not a move or command here: .* Type help\.")
    othello.say("hint", r"hint: alphabeta would play [A-H][1-8]")  # the strongest engine
    othello.say("f5", r"white \(human\) to play")
    othello.say("save opening.txt", r"Saved opening\.txt\.")
    othello.say("load opening.txt", r"Loaded opening\.txt\.")
    othello.child.sendline("quit")
    othello.expect("Bye")
    assert othello.end() == 0
    assert (tmp_path / "opening.txt").read_text() == "f5\n"


# -- every command: a missing file, a file of the wrong kind, an option it does not have --------


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "go.sgf").write_text("(;GM[1]SZ[9];B[ee])")
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / "wrong.pt").write_text("(;GM[1]SZ[9];B[ee])")
    return tmp_path


MODEL = "a model is a model.pt written by imago train"

MISTAKES: list[tuple[list[str], str]] = [
    # a missing file
    (["play", "--black", "policy:model=missing.pt"], rf"missing\.pt: no such file \({MODEL}\)"),
    (["gtp", "--agent", "policy:model=missing.pt"], rf"missing\.pt: no such file \({MODEL}\)"),
    (["match", "--black", "random", "--white", "policy:model=missing.pt"], r"missing\.pt: no such"),
    (["tournament", "random", "policy:model=missing.pt"], r"missing\.pt: no such file"),
    (["match", "--black", "random", "--white", "random", "--openings", "missing.txt"],
     r"cannot read missing\.txt: no such file or directory"),
    (["records", "check", "missing.sgf"], r"'missing\.sgf' does not exist"),
    (["records", "stats", "missing"], r"'missing' does not exist"),
    (["records", "convert", "missing.sgf", "out.sgf"], r"'missing\.sgf' does not exist"),
    (["ratings", "missing"], r"missing is not a match folder .*imago match --out"),
    (["train", "dataset", "missing", "--out", "ds"], r"no such file or folder: missing"),
    (["train", "supervised", "--game", "go", "--data", "missing", "--out", "run"],
     r"no games: missing does not exist"),
    (["train", "evaluate", "missing.pt", "--data", "missing"],
     r"no dataset at missing .*give a folder made by imago train dataset"),
    (["train", "export", "missing.pt", "--onnx", "m.onnx"], r"missing\.pt: no such file"),
    (["train", "export", "missing.pt", "--half", "h.pt"], r"missing\.pt: no such file"),
    (["train", "export", "model.pt"], r"say what to write: --onnx FILE\.onnx, --half .* --int8"),
    (["train", "patterns", "missing", "--out", "p.npz"], r"no such file or folder: missing"),
    (["bench", "startup.version", "--data-dir", "missing"],
     r"no data folder missing \(give --data-dir the shared/data folder\)"),
    (["analyze", "missing.sgf"], r"cannot read missing\.sgf: no such file or directory"),
    (["rl", "status", "run"], r"no run at run \(no run\.json\): start one with `imago rl init`"),
    (["rl", "init", "run", "--bootstrap", "missing.pt"],
     rf"--bootstrap missing\.pt: no such file \({MODEL}\)"),
    (["rl", "init", "run", "--records", "missing"], r"--records missing: no such file or folder"),
    # a file of the wrong kind
    (["play", "--black", "policy:model=go.sgf"], r"go\.sgf is not a model file"),
    (["play", "--white", "gtp:command=/nonexistent/engine"],
     r"cannot start '/nonexistent/engine': no such file or directory; check the program's path"),
    (["play", "--white", "gtp:command=/bin/false"],
     r"'/bin/false' does not answer as a GTP engine .*starts it in GTP mode"),
    (["analyze", "wrong.pt"], r"\.pt is not a record format; imago reads \.sgf, \.wtb"),
    (["analyze", "notes.txt"], r"no game in notes\.txt: .*no Othello transcript"),
    (["rl", "init", "run", "--bootstrap", "go.sgf"], r"go\.sgf is not a model file"),
    (["records", "check", "wrong.pt"],
     r"\.pt is not a record format; imago reads \.sgf, \.wtb, \.txt, \.ggf, \.csv files"),
    (["records", "check", "notes.txt"], r"notes\.txt:1: no Othello transcript \(one game a line"),
    (["records", "convert", "go.sgf", "go.txt"], r"holds 8x8 Othello games only.*write \.sgf"),
    (["records", "convert", "go.sgf", "go.pdf"], r"cannot write \.pdf: give the output one of"),
    (["ratings", "go.sgf"], r"go\.sgf is not a match folder"),
    (["match", "--black", "random", "--white", "random", "--openings", "go.sgf"],
     r"--openings takes a text file"),
    (["train", "export", "wrong.pt", "--onnx", "m.onnx"], r"wrong\.pt is not a model file"),
    (["train", "patterns", "go.sgf", "--out", "p.npz"],
     r"go\.sgf is not a WTHOR file: give a \.wtb file or a folder of them"),
    (["solve", "XXXX", "X"],
     r"an Othello board has 64 squares \(36 on 6x6, 16 on 4x4\), got 4 characters \(BOARD: 64"),
    # a value or option it does not take
    (["play", "--game", "chess"], r"unknown game 'chess' \(go or othello\)"),
    (["play", "--white", "nobody"], r"unknown agent 'nobody' \(known: .*random"),
    (["gtp", "--size", "30"], r"unacceptable size 30: Go boards are 2x2 to 25x25"),
    (["perft", "3", "--game", "chess"], r"unknown game 'chess' \(known: go, othello\)"),
    (["bench", "nosuch"], r"no benchmark 'nosuch' \(known: "),
    (["warmup", "--game", "chess"], r"unknown game 'chess' \(go or othello\)"),
    (["analyze", "go.sgf", "--agent", "nobody"], r"unknown agent 'nobody' \(known: "),
    (["analyze", "go.sgf", "--agent", "policy:model=missing.pt"], r"missing\.pt: no such file"),
    (["analyze", "go.sgf", "--index", "3"], r"go\.sgf holds 1 game\(s\): --index must be 1\.\.1"),
    (["serve", "--port", "99999"], r"--port must be 0\.\.65535"),
    (["rl", "init", "run", "--game", "chess"], r"unknown game 'chess' \(go or othello\)"),
    (["rl", "init", "run", "--size", "30"], r"Go board size must be 2\.\.25, not 30: give --size"),
    (["rl", "init", "run", "--reference", "nobody"], r"--reference: .*unknown agent 'nobody'"),
    (["rl", "init", "run", "--game", "othello", "--size", "6", "--reference", "policy"],
     r"--reference: .*no network is shipped for othello 6x6"),
    (["rl", "loop", "run", "--game", "go", "--size", "40"], r"Go board size must be 2\.\.25"),
    *(
        ([*command, "--nope"], rf"Try 'imago {' '.join(command)} --help'.*No such option: --nope")
        for command in (
            ["play"], ["gtp"], ["match"], ["tournament"], ["ratings"], ["agents"], ["perft"],
            ["solve"], ["bench"], ["warmup"], ["records", "check"], ["records", "stats"],
            ["records", "convert"], ["train", "dataset"], ["train", "supervised"],
            ["train", "evaluate"], ["train", "export"], ["train", "patterns"], ["analyze"],
            ["serve"], ["rl", "init"], ["rl", "loop"], ["rl", "status"], ["rl", "selfplay"],
        )
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"), MISTAKES, ids=[" ".join(args) for args, _ in MISTAKES]
)
def test_every_command_names_the_problem_and_the_fix(
    files: Path, args: list[str], message: str
) -> None:
    if any("policy:" in arg for arg in args) or args[:2] in (["train", "export"],):
        pytest.importorskip("torch")
    result = CliRunner().invoke(app, args, terminal_width=200)
    text = plain(result.output)
    assert result.exit_code in (1, 2), (args, text)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert re.search(message, text), (args, text)
    assert not PYTHON_TEXT.search(text), text
    assert not (files / "ds").exists() and not (files / "run").exists()


@pytest.mark.parametrize("game", ["go", "othello"])
def test_the_cold_start_check_names_kernel_modules_that_exist(game: str) -> None:
    """``imago play`` warns of a cold start by the numba cache of these modules: a module that
    was renamed away would make the check silently say "warm"."""
    import importlib.util

    from imago.cli.warmup import KERNEL_MODULES

    missing = [name for name in KERNEL_MODULES[game] if importlib.util.find_spec(name) is None]
    assert missing == []
