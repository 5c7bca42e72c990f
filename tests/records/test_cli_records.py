"""``imago records check / stats / convert`` through the typer app."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from imago.cli.app import app
from imago.records import sgf, transcript, wthor

runner = CliRunner()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_check_reports_errors_with_positions(tmp_path: Path) -> None:
    good = write(tmp_path / "good.sgf", "(;SZ[9];B[ee];W[dd])")
    bad = write(tmp_path / "bad.sgf", "(;SZ[9]\n;B[ee]\n;W[ee])")
    result = runner.invoke(app, ["records", "check", str(good), str(bad)])
    assert result.exit_code == 1
    assert "good.sgf: ok (1 games)" in result.output
    assert "bad.sgf:3:1: W E5: illegal move E5: the point is occupied" in result.output
    clean = runner.invoke(app, ["records", "check", str(good)])
    assert clean.exit_code == 0 and "1 of 1 files clean" in clean.output


def test_stats_over_folders_and_archives(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    write(folder / "a.sgf", "(;SZ[9]RE[B+R];B[ee];W[dd])(;SZ[19]RE[W+3.5];B[pd])")
    write(folder / "b.txt", "f5d6c3\n")
    archive = tmp_path / "more.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder / "a.sgf", arcname="inner/a.sgf")
    result = runner.invoke(app, ["records", "stats", str(folder), str(archive)])
    assert result.exit_code == 0, result.output
    lines = {" ".join(line.replace("│", " ").split()) for line in result.output.splitlines()}
    assert "files 3" in lines
    assert "games 5" in lines
    assert "board go 9x9 2" in lines and "board othello 8x8 1" in lines
    assert "result B+R 2" in lines and "result W+score 2" in lines


def test_convert_between_formats(tmp_path: Path) -> None:
    source = write(tmp_path / "games.txt", "f5d6c3d3c4\nf5f6e6f4\n")
    as_sgf = tmp_path / "games.sgf"
    assert runner.invoke(app, ["records", "convert", str(source), str(as_sgf)]).exit_code == 0
    assert [transcript.game_transcript(g) for g in sgf.read_file(as_sgf)] == [
        "f5d6c3d3c4",
        "f5f6e6f4",
    ]
    as_wtb = tmp_path / "games.wtb"
    assert runner.invoke(app, ["records", "convert", str(as_sgf), str(as_wtb)]).exit_code == 0
    assert [g.transcript() for g in wthor.read_games(as_wtb)] == ["f5d6c3d3c4", "f5f6e6f4"]
    again = runner.invoke(app, ["records", "convert", str(as_sgf), str(as_wtb)])
    assert again.exit_code == 1 and "exists" in again.output
    wrong = runner.invoke(app, ["records", "convert", str(as_sgf), str(tmp_path / "x.pdf")])
    assert wrong.exit_code == 1
    go = write(tmp_path / "go.sgf", "(;SZ[9];B[ee])")
    refused = runner.invoke(app, ["records", "convert", str(go), str(tmp_path / "go.wtb")])
    assert refused.exit_code == 1 and "Othello" in refused.output


@pytest.mark.slow
def test_stats_agree_with_the_ogs_readme(data_dir: Path) -> None:
    archive = data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz"
    if not archive.is_file():
        pytest.skip("the OGS archive is missing")
    result = runner.invoke(app, ["records", "stats", str(archive)])
    assert result.exit_code == 0, result.output
    counts: dict[str, int] = {}
    for line in result.output.splitlines():
        words = line.replace("│", " ").split()
        if len(words) >= 2 and words[-1].isdigit():
            counts[" ".join(words[:-1])] = int(words[-1])
    assert counts["games"] == 6792
    # The README's counts (from a stdlib parse): W+ 3,925, B+ 2,703, Void 159.
    white = sum(v for k, v in counts.items() if k.startswith("result W+"))
    black = sum(v for k, v in counts.items() if k.startswith("result B+"))
    assert (white, black, counts["result Void"]) == (3925, 2703, 159)
