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
    assert "good.sgf: ok, 1 game\n" in result.output
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


# -- one meaning per extension; check and stats read the same things (issue 16) ---------------


def test_convert_refuses_a_go_game_as_a_transcript(tmp_path: Path) -> None:
    go = write(tmp_path / "go.sgf", "(;GM[1]SZ[9];B[ee];W[dd])")
    target = tmp_path / "out.txt"
    result = runner.invoke(app, ["records", "convert", str(go), str(target)])
    assert result.exit_code == 1
    assert ".txt is an Othello transcript, which holds 8x8 Othello games only" in result.output
    assert "write .sgf instead" in result.output and not target.exists()
    small = write(tmp_path / "six.sgf", "(;GM[2]SZ[6];B[bc])")
    result = runner.invoke(app, ["records", "convert", str(small), str(tmp_path / "six.wtb")])
    assert result.exit_code == 1 and "not 6x6 othello" in result.output


def records_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    folder.mkdir()
    write(folder / "README.txt", "These are the games of a club.\nOne per line.\n")
    write(folder / "games.txt", "f5d6c3\nf5d6zz\n")
    write(folder / "a.sgf", "(;SZ[9];B[ee];W[ee])")
    write(folder / "b.sgf", "(;SZ[9];B[ee])")
    with tarfile.open(tmp_path / "archive.tar.gz", "w:gz") as tar:
        tar.add(folder / "a.sgf", arcname="inner/a.sgf")
    return folder


def test_check_and_stats_take_the_same_inputs_and_find_the_same_problems(tmp_path: Path) -> None:
    folder = records_folder(tmp_path)
    archive = tmp_path / "archive.tar.gz"
    check = runner.invoke(app, ["records", "check", str(folder), str(archive)])
    stats = runner.invoke(app, ["records", "stats", "--problems", str(folder), str(archive)])
    assert check.exit_code == 1 and stats.exit_code == 0
    problems = [
        "games.txt:2: column 5: not a move: 'zz'",
        "a.sgf:1:14: W E5: illegal move E5: the point is occupied",
        "archive.tar.gz:inner/a.sgf:1:14: W E5: illegal move E5: the point is occupied",
    ]
    for output in (check.output, stats.output):
        for problem in problems:
            assert problem in output
        assert "skipped" in output and "README.txt: no Othello transcript" in output
    lines = {" ".join(line.replace("│", " ").split()) for line in stats.output.splitlines()}
    assert "files 4" in lines and "problems 3" in lines  # README.txt is not a record file
    assert "1 of 4 files clean" in check.output
    quiet = runner.invoke(app, ["records", "stats", str(folder)])
    assert "2 problems: list them with --problems, or with `imago records check`" in quiet.output


def test_a_named_file_that_is_not_a_transcript_is_one_problem(tmp_path: Path) -> None:
    readme = write(tmp_path / "README.txt", "line one\nline two\nline three\n")
    result = runner.invoke(app, ["records", "check", str(readme)])
    assert result.exit_code == 1
    assert result.output.count("README.txt") == 1
    assert "README.txt:1: no Othello transcript (one game a line: f5d6c3...)" in result.output


def test_messages_are_written_for_people(tmp_path: Path) -> None:
    odd = write(tmp_path / "games.gz", "not records")
    result = runner.invoke(app, ["records", "check", str(odd)])
    assert (
        ".gz is not a record format; imago reads .sgf, .wtb, .txt, .ggf, .csv files"
        in result.output
    )
    assert "(known: (" not in result.output
    good = write(tmp_path / "good.sgf", "(;SZ[9];B[ee])(;SZ[9];B[dd])")
    assert "good.sgf: ok, 2 games" in runner.invoke(app, ["records", "check", str(good)]).output
