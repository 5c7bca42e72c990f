"""``imago match``, ``imago tournament`` and ``imago ratings`` through the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from imago.cli.app import app

FAKE = Path(__file__).resolve().parent / "fake_engine.py"
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    """Run the command; its output with rich's line wrapping undone (runs of spaces joined)."""
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def test_match_prints_the_score_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["match", "--game", "othello", "--size", "6", "--black", "random", "--white", "random"]
    code, output = invoke(*args, "--games", "6", "--alternate", "--out", str(out), "--seed", "3")
    assert code == 0, output
    assert "random#1 scores" in output and "Elo" in output
    assert len(list((out / "games").glob("*.sgf"))) == 6
    code, output = invoke(*args, "--games", "8", "--alternate", "--out", str(out), "--seed", "3")
    assert code == 0, output
    assert "8 games" in output
    assert len(list((out / "games").glob("*.json"))) == 8
    # Another seed is another match: the folder refuses it.
    code, output = invoke(*args, "--games", "8", "--out", str(out), "--seed", "4")
    assert code == 1 and "other settings" in output


def test_match_with_sprt_stops_early() -> None:
    bad = f'bad=gtp:command="{sys.executable} {FAKE} --illegal-at 1"'
    code, output = invoke(
        "match", "--game", "go", "--size", "9", "--black", "random", "--white", bad,
        "--games", "100", "--alternate", "--sprt", "0,50",
    )  # fmt: skip
    assert code == 0, output
    assert "H1 accepted" in output
    played = int(output.split(" games")[0].split()[-1])
    assert played < 100


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--black", "nosuchagent", "--white", "random"], "unknown agent"),
        (["--black", "random:speed=3", "--white", "random"], "no option"),
        (
            ["--black", 'gtp:command="/nonexistent/engine"', "--white", "random"],
            "cannot start '/nonexistent/engine': no such file or directory",
        ),
        (["--black", "random", "--white", "random", "--size", "7"], "Othello"),
        (["--black", "random", "--white", "random", "--sprt", "5"], "SPRT"),
    ],
)
def test_match_refuses_bad_input_clearly(args: list[str], message: str) -> None:
    code, output = invoke("match", "--game", "othello", *args, "--games", "2")
    assert code == 1
    assert message in output


def test_tournament_and_ratings(tmp_path: Path) -> None:
    out = tmp_path / "t"
    plot = tmp_path / "ratings.png"
    code, output = invoke(
        "tournament", "--agents", "a=random", "b=random", "c=random:avoid_own_eyes=false",
        "--game", "othello", "--size", "6", "--games-per-pair", "4", "--out", str(out),
        "--anchor", "a=100",
    )  # fmt: skip
    assert code == 0, output
    assert "standings after 12 games" in output and "cross table" in output
    assert "a = 100" in output
    header = json.loads((out / "match.json").read_text())
    assert header["kind"] == "tournament" and set(header["players"]) == {"a", "b", "c"}
    pytest.importorskip("matplotlib")
    code, output = invoke("ratings", str(out), "--plot", str(plot), "--prior", "2")
    assert code == 0, output
    assert "Elo by maximum likelihood" in output
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_gauntlet_plays_only_the_hero(tmp_path: Path) -> None:
    out = tmp_path / "g"
    code, output = invoke(
        "tournament", "x=random", "y=random", "z=random", "--gauntlet", "hero=random",
        "--game", "othello", "--size", "4", "--games-per-pair", "2", "--out", str(out),
    )  # fmt: skip
    assert code == 0, output
    records = [json.loads(p.read_text()) for p in (out / "games").glob("*.json")]
    assert len(records) == 6
    assert all("hero" in (r["black"], r["white"]) for r in records)


def test_ratings_of_a_folder_that_is_not_a_match(tmp_path: Path) -> None:
    code, output = invoke("ratings", str(tmp_path))
    assert code == 1 and "not a match folder" in output


def test_match_with_a_time_control(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["match", "--game", "othello", "--size", "6", "--black", "random", "--white", "random"]
    code, output = invoke(*args, "--games", "2", "--time-control", "5+0.1", "--out", str(out))
    assert code == 0, output
    sgf = (out / "games" / "00001.sgf").read_text()
    assert "OT[5+0.1 (Fischer +0.1 s per move)]" in sgf and "BL[" in sgf
    code, output = invoke(*args, "--time-control", "5 minutes")
    assert code == 1 and "bad time control '5 minutes'" in output and "60+5" in output
    code, output = invoke(*args, "--time-control", "60", "--time-per-move", "1")
    assert code == 1 and "not both" in output


def test_a_disputed_count_is_reported_and_counted(tmp_path: Path) -> None:
    # The program passes at once and claims a White win; imago's count of the board the random
    # player filled says Black: the game is disputed, imago's count stands, the summary says so.
    liar = f'liar=gtp:command="{sys.executable} {FAKE} --score W+50"'
    out = tmp_path / "m"
    code, output = invoke(
        "match", "--game", "go", "--size", "5", "--komi", "0.5", "--black", "random",
        "--white", liar, "--games", "1", "--out", str(out),
    )  # fmt: skip
    assert code == 0, output
    assert "0 of 1 counted games agree with the programs; 1 disputed" in output
    assert "White's program counts W+50" in output or "program counts W+50" in output
    (path,) = (out / "games").glob("*.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["disputed"] is True and record["result"].startswith("B+")
    assert record["engine_scores"] == {"W": "W+50"}
    sgf_text = path.with_suffix(".sgf").read_text(encoding="utf-8")
    assert "disputed" in sgf_text and "W+50" in sgf_text


# -- checked up front, alternating, one komi, groups rated apart (issue 16) ---------------------


def test_an_agent_that_does_not_fit_the_game_is_refused_before_any_game(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from imago.nn.shipped import SHIPPED_MODELS

    out = tmp_path / "m"
    othello_model = SHIPPED_MODELS[("othello", 8)]
    code, output = invoke(
        "match", "--game", "go", "--black", f"policy:model={othello_model}", "--white", "random",
        "--games", "2", "--out", str(out),
    )  # fmt: skip
    assert code == 1 and "is a model for 8x8 othello, not 9x9 go" in output
    assert not (out / "games").exists() or not list((out / "games").iterdir())


def test_colours_alternate_by_default_and_komi_is_the_one_default(tmp_path: Path) -> None:
    out = tmp_path / "m"
    code, output = invoke(
        "match", "--black", "a=random", "--white", "b=random", "--games", "2", "--out", str(out)
    )
    assert code == 0, output
    records = sorted(
        (json.loads(p.read_text()) for p in (out / "games").glob("*.json")),
        key=lambda r: r["index"],
    )
    assert [(r["black"], r["white"]) for r in records] == [("a", "b"), ("b", "a")]
    from imago.games import make

    komi = make("go", size=9).komi  # type: ignore[attr-defined]
    assert komi == 7.0
    assert f"KM[{komi:g}]" in (out / "games" / "00001.sgf").read_text()


def test_ratings_of_groups_that_never_met_are_fitted_apart(tmp_path: Path) -> None:
    for name, players in (("m1", ("a", "b")), ("m2", ("c", "d"))):
        code, output = invoke(
            "match", "--game", "othello", "--size", "4", "--black", f"{players[0]}=random",
            "--white", f"{players[1]}=random", "--games", "4", "--out", str(tmp_path / name),
        )  # fmt: skip
        assert code == 0, output
    code, output = invoke("ratings", str(tmp_path / "m1"), str(tmp_path / "m2"))
    assert code == 0, output
    assert "the players form 2 groups that never met (a, b | c, d)" in output
    assert "each group is rated on its own" in output
    assert "group 1: Elo by maximum likelihood" in output
    assert "group 2: Elo by maximum likelihood" in output
    code, output = invoke("ratings", "--help")
    assert "default: random=0 if present, else mean 0" in " ".join(output.replace("│", " ").split())
