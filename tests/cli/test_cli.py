"""The command line starts, shows its version and help."""

from __future__ import annotations

import subprocess
import sys

from imago import __version__


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "imago", *args], capture_output=True, text=True, timeout=120
    )


def test_version():
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"imago {__version__}"


def test_help_lists_commands():
    result = run("--help")
    assert result.returncode == 0
    assert "bench" in result.stdout and "agents" in result.stdout


def test_unknown_benchmark_is_an_error():
    result = run("bench", "no-such-benchmark")
    assert result.returncode != 0
    assert "no benchmark" in result.stderr


def test_the_default_opponent_searches_with_two_threads_on_two_cores(monkeypatch):
    import os

    from imago.agents.registry import make_agent, parse_agent_spec
    from imago.cli._common import strongest_agent

    assert strongest_agent("othello", None) == "alphabeta"
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert strongest_agent("go", 13) == "mcts"
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    spec = strongest_agent("go", 13)
    assert spec == "mcts:threads=2"
    name, options = parse_agent_spec(spec)
    assert make_agent(name, "go", options, seed=1, size=13).options.threads == 2
