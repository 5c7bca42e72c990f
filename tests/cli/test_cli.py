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
