"""Issue 44: ``imago tune ga`` run twice on one folder says that nothing is left."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from imago.cli.app import app


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def test_ga_run_twice_says_nothing_is_left(tmp_path: Path) -> None:
    out = tmp_path / "ga"
    args = ("tune", "ga", "--out", str(out), "--size", "6", "--population", "4",
            "--depth", "1", "--games-per-pair", "1", "--no-references", "--no-final",
            "--no-plot")  # fmt: skip
    code, output = _invoke(*args, "--generations", "2")
    assert code == 0, output
    code, output = _invoke(*args, "--generations", "2")
    assert code == 0, output
    assert "all 2 generations are already in" in output and "nothing left" in output
    code, output = _invoke(*args, "--generations", "3")
    assert code == 0, output
    assert "2 of 3 generations finished, 1 left" in output
    assert sorted(p.name for p in out.glob("gen_*")) == ["gen_000", "gen_001", "gen_002"]
