"""The genetic algorithm of the Othello evaluation: genes, crossover and mutation as seed 002
describes them, fitness from real games, reproducible runs, resuming after ``kill -9``, the
weights it writes played by ``alphabeta:weights=FILE``, plots and the command line."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from imago.agents import Limit, make_agent
from imago.agents.othello.weights import load_othello_weights, save_othello_weights
from imago.cli.app import app
from imago.games.othello import new_game
from imago.tune.genetic import GAConfig, GeneticRun, Layout, genome_of, table_of

TINY = GAConfig(
    size=6,
    population=4,
    generations=2,
    depth=1,
    endgame_empties=4,
    peers=1,
    references=("mask",),
    games_per_pair=2,
    opening_plies=2,
    seed=5,
)
"""A run small enough for a test: 6x6, depth 1, 16 games a generation."""


def _layout(**changes: object) -> Layout:
    config = GAConfig(**{"size": 8, **changes})  # type: ignore[arg-type]
    return Layout(config, genome_of(load_othello_weights(size=8), 8))


def _gene_values(layout: Layout, genome: np.ndarray) -> list[list[int]]:
    return [genome[g.phase, g.indices].tolist() for g in layout.genes]


def test_genes_are_mask_rows_and_feature_sets() -> None:
    layout = _layout(features=True)
    rows = [g for g in layout.genes if g.kind == "row"]
    assert len(rows) == 3 * 8  # three phases, eight rows each
    assert sorted(np.concatenate([g.indices for g in rows if g.phase == 0])) == list(range(64))
    assert [len(g.indices) for g in layout.genes if g.kind == "features"] == [5, 5, 5]
    quarter = _layout(symmetric=True)
    assert len(quarter.genes) == 3 * 4  # a gene: a quarter row, mirrored into two rows


def test_row_crossover_takes_each_gene_from_one_parent() -> None:
    layout = _layout()
    rng = np.random.default_rng(1)
    a, b = layout.random_genome(rng), layout.random_genome(rng)
    child = layout.crossover(a, b, rng)
    genes_a, genes_b = _gene_values(layout, a), _gene_values(layout, b)
    sources = []
    for value, from_a, from_b in zip(_gene_values(layout, child), genes_a, genes_b, strict=True):
        assert value in (from_a, from_b)
        sources.append(value == from_a)
    assert any(sources) and not all(sources)  # both parents contribute (24 coin flips)


def test_average_crossover_is_the_rounded_mean() -> None:
    layout = _layout(crossover="average")
    rng = np.random.default_rng(2)
    a, b = layout.random_genome(rng), layout.random_genome(rng)
    child = layout.crossover(a, b, rng)
    assert np.array_equal(child[:, :64], np.rint((a[:, :64] + b[:, :64]) / 2))


def test_mutation_replaces_whole_genes_at_its_rate() -> None:
    rng = np.random.default_rng(3)
    never, always = _layout(mutation=0.0), _layout(mutation=1.0)
    genome = never.random_genome(rng)
    assert np.array_equal(never.mutate(genome, rng), genome)
    mutant = always.mutate(genome, rng)
    changed = [
        old != new
        for old, new in zip(_gene_values(always, genome), _gene_values(always, mutant), strict=True)
    ]
    assert sum(changed) >= 22  # (a random row equal to the old one is very unlikely)
    assert np.abs(mutant[:, :64]).max() <= 100


def test_symmetric_genomes_stay_symmetric() -> None:
    layout = _layout(symmetric=True, mutation=0.5)
    rng = np.random.default_rng(4)
    genome = layout.mutate(layout.crossover(layout.random_genome(rng), layout.base, rng), rng)
    for phase in range(3):
        mask = genome[phase, :64].reshape(8, 8)
        assert np.array_equal(mask, mask[::-1, :])
        assert np.array_equal(mask, mask[:, ::-1])


def test_weights_round_trip(tmp_path: Path) -> None:
    table = load_othello_weights(size=6)
    genome = genome_of(table, 6)
    assert genome.shape == (3, 36 + 5)
    assert np.array_equal(table_of(genome, 6, table[:, -1]), table)
    path = tmp_path / "w.json"
    save_othello_weights(path, table, 6, names=["a", "b", "c"])
    assert np.array_equal(load_othello_weights(path, 6), table)
    assert [p["name"] for p in json.loads(path.read_text())["phases"]] == ["a", "b", "c"]


def test_config_is_checked() -> None:
    for bad in (
        {"population": 1},
        {"peers": 5},
        {"peers": 0, "references": ()},
        {"crossover": "uniform"},
        {"elite": 4},
        {"mutation": 1.5},
        {"size": 6, "references": ("patterns",)},
    ):
        with pytest.raises(ValueError):
            GAConfig(**{"population": 4, **bad})  # type: ignore[arg-type]


def test_a_tiny_run_plays_its_games_and_scores_them(tmp_path: Path) -> None:
    run = GeneticRun(tmp_path / "run", TINY)
    history = run.run()
    assert [g.number for g in history] == [0, 1]
    for generation in history:
        records = _records(tmp_path / "run" / f"gen_{generation.number:03d}" / "games")
        # each individual: 2 peers x 2 games, and 2 games against the reference
        assert len(records) == (4 * 1 + 4) * 2
        for fitness in generation.fitness:
            mine = [r for r in records if fitness.label in (r["black"], r["white"])]
            assert fitness.games == len(mine) == 6
            points = sum(_points(r, fitness.label) for r in mine)
            assert fitness.points == points
            assert fitness.reference_games == 2
    # individual 0 of generation 0 is 002's masks; the next generation keeps the elite
    first = run.population(0)
    second = run.population(1)
    assert first is not None and second is not None
    assert np.array_equal(first[0], genome_of(load_othello_weights(size=6), 6))
    best = history[0].best
    assert any(np.array_equal(first[best], genome) for genome in second[: TINY.elite])
    # best.json is a weights file the agent plays with
    agent = make_agent("alphabeta", "othello", {"weights": str(tmp_path / "run" / "best.json")})
    state = new_game(6)
    assert state.is_legal(agent.select_move(state, Limit(depth=2)).move)


def _records(folder: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json")) if p.stem.isdigit()]


def _points(record: dict[str, object], label: str) -> float:
    if record["winner"] is None:
        return 0.5
    side = "black" if record["winner"] == "B" else "white"
    return 1.0 if record[side] == label else 0.0


def _outcome(folder: Path) -> tuple[list[list[list[int]]], list[object]]:
    populations = [
        json.loads((folder / f"gen_{n:03d}" / "population.json").read_text())["genomes"]
        for n in range(2)
    ]
    fitness = [json.loads((folder / f"gen_{n:03d}" / "fitness.json").read_text()) for n in range(2)]
    return populations, fitness


def test_same_seed_same_run_and_resume_after_kill(tmp_path: Path, kill_when: Any) -> None:
    """A run killed with SIGKILL in the middle of a generation and started again ends exactly
    as the same run played without interruption."""
    whole = tmp_path / "whole"
    GeneticRun(whole, TINY).run()
    killed = tmp_path / "killed"
    command = [sys.executable, "-m", "imago", "tune", "ga", "--out", str(killed)]
    command += [*_flags(TINY), "--no-final", "--no-plot"]
    games = killed / "gen_000" / "games"
    # a game takes about 4 ms here: kill at the second finished one
    kill_when(command, lambda: len(list(games.glob("*.json"))) >= 2, timeout=600)
    assert 2 <= len(_records(games)) < 16  # killed inside generation 0
    assert not (killed / "gen_000" / "fitness.json").exists()
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "generation 1: best" in done.stdout
    assert _outcome(killed) == _outcome(whole)


def _flags(config: GAConfig) -> list[str]:
    return [
        f"--size={config.size}",
        f"--population={config.population}",
        f"--generations={config.generations}",
        f"--depth={config.depth}",
        f"--endgame-empties={config.endgame_empties}",
        f"--peers={config.peers}",
        f"--games-per-pair={config.games_per_pair}",
        f"--opening-plies={config.opening_plies}",
        f"--seed={config.seed}",
    ]


def test_resume_refuses_other_settings_but_extends_generations(tmp_path: Path) -> None:
    GeneticRun(tmp_path, TINY)
    with pytest.raises(ValueError, match="other settings"):
        GeneticRun(tmp_path, dataclasses.replace(TINY, seed=6))
    GeneticRun(tmp_path, dataclasses.replace(TINY, generations=5))
    assert GAConfig.from_json(TINY.to_json()) == TINY


def test_command_line_final_round_robin_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["tune", "ga", "--out", str(out), *_flags(TINY), "--generations=1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "generation 0: best" in result.output
    assert "round robin of the last generation (12 games)" in result.output  # 6 pairs x 2
    for name in ("best.json", "champion.json", "fitness.png", "masks.png"):
        assert (out / name).is_file(), name
    assert (out / "fitness.png").read_bytes()[:4] == b"\x89PNG"
    again = CliRunner().invoke(app, ["tune", "plot", "--out", str(out)])
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "go"], "Othello evaluation only"),
        (["--population", "1"], "at least 2"),
        (["--crossover", "uniform"], "crossover must be"),
        (["--start", "/nonexistent/w.json"], "cannot read"),
    ],
)
def test_command_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["tune", "ga", "--out", str(tmp_path / "r"), *args])
    assert result.exit_code == 1
    assert message in result.output
    assert not (tmp_path / "r" / "gen_000").exists()


def test_a_node_that_cannot_read_an_individual_is_named_before_any_game(tmp_path: Path) -> None:
    """On a cluster the run's folder must be shared: a node where an individual's weights file
    is missing stops the generation before its first game, naming node and individual."""
    from imago.cluster import ClusterError, InlineExecutor

    run = GeneticRun(tmp_path / "run", TINY)
    run._write_population(0, run.initial_population())
    (tmp_path / "run" / "gen_000" / "weights" / "ind_01.json").unlink()
    with pytest.raises(ClusterError, match=r"node .* cannot run 'g000i01'.*ind_01\.json"):
        run.run(executor=InlineExecutor())
    assert not list((tmp_path / "run" / "gen_000").glob("games/*.json"))
