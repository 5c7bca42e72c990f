"""The command line starts, shows its version and help."""

from __future__ import annotations

import re
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
    import imago.cluster.local
    from imago.agents.registry import make_agent, parse_agent_spec
    from imago.nn.shipped import strongest_agent

    assert strongest_agent("othello", None) == "alphabeta"
    monkeypatch.setattr(imago.cluster.local, "cpu_count", lambda: 1)
    assert strongest_agent("go", 7) == "mcts"  # no network for 7x7
    monkeypatch.setattr(imago.cluster.local, "cpu_count", lambda: 2)
    spec = strongest_agent("go", 7)
    assert spec == "mcts:threads=2"
    name, options = parse_agent_spec(spec)
    assert make_agent(name, "go", options, seed=1, size=7).options.threads == 2
    assert strongest_agent("go", 13) == strongest_agent("go", 19) == "nnmcts:threads=2"
    # 9x9 ships a self-play network: az with playouts mixed in beats nnmcts there, and on
    # two cores runs its playouts on the second
    spec = strongest_agent("go", 9)
    assert spec == "az:mix=0.5,playout_thread=true"
    name, options = parse_agent_spec(spec)
    agent = make_agent(name, "go", options, seed=1, size=9)
    try:
        assert agent.options.mix == 0.5 and agent.options.playout_thread
    finally:
        agent.close()
    monkeypatch.setattr(imago.cluster.local, "cpu_count", lambda: 1)
    assert strongest_agent("go", 9) == "az:mix=0.5"


def test_the_default_opponent_counts_the_cores_this_process_may_use(monkeypatch):
    """A machine of two cores where this process is pinned to one (taskset, a container's
    cpuset) gets the one-thread engines: a second thread would only share the core."""
    import os

    from imago.nn.shipped import strongest_agent

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert strongest_agent("go", 7) == "mcts"
    assert strongest_agent("go", 9) == "az:mix=0.5"


def all_command_paths() -> list[list[str]]:
    """Every command and subcommand of the app, as argument lists."""
    import typer

    from imago.cli.app import app

    group = typer.main.get_command(app)
    paths: list[list[str]] = [[]]

    def walk(command, prefix: list[str]) -> None:  # type: ignore[no-untyped-def]
        for name, sub in getattr(command, "commands", {}).items():
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(group, [])
    return paths


def test_help_is_written_for_people():
    from typer.testing import CliRunner

    from imago.cli.app import app

    paths = all_command_paths()
    assert ["records", "check"] in paths and ["train", "patterns"] in paths
    for path in paths:
        result = CliRunner().invoke(app, [*path, "--help"], terminal_width=200)
        assert result.exit_code == 0, (path, result.output)
        text = result.output
        assert "<bool>" not in text and "--help " in text, path  # a flag takes no value
        assert "<str>" not in text and "<list[" not in text and "<int>" not in text, path
        assert "``" not in text, path  # no raw reST
        for block in re.split(r"\n│ +(?:\* +)?(?=--|[a-z]+\.\.\.)", text):
            # an option whose help gives its default in words shows no second, wrong one
            assert not ("(default:" in block and "[default:" in block), (path, block)


def test_the_command_line_loads_no_numeric_library_before_a_command_needs_it():
    heavy = "{'numpy', 'numba', 'torch'}"
    code = f"import sys, imago.cli.app; print(sorted({heavy} & sys.modules.keys()))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]"


def test_benchmarks_are_listed_without_the_web_extra():
    """A machine without the optional web extra (starlette) still lists and runs the other
    benchmarks; the browser ones say what to install."""
    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "from imago.bench import benchmarks\n"
        "from imago.bench.web import _missing\n"
        "found = benchmarks()\n"
        "print('rl.shared' in found, 'web.move' in found, _missing())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["True", "True"]
    assert "starlette is not installed: pip install 'imago[web]'" in result.stdout


def test_dataset_help_names_every_feature_set():
    from imago.nn.features import FEATURE_SETS

    result = run("train", "dataset", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.replace("│", " ").split())
    for name in FEATURE_SETS:
        assert name in text, name
