"""The ``az`` agent: AlphaZero search with a network, wherever agents play."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from imago.agents.base import AgentError, Limit
from imago.agents.registry import make_agent
from imago.games import make
from imago.nn.models import ModelError, parse_arch
from imago.nn.store import ModelSpec, save_model


def _model(tmp_path: Path, game: str, size: int, arch: str = "b1c8") -> Path:
    spec = ModelSpec(game, size, "legal4", parse_arch(arch))
    path = tmp_path / f"{game}{size}-{arch}.pt"
    save_model(path, spec.build(), spec)
    return path


@pytest.mark.parametrize(("game", "size"), [("go", 9), ("othello", 8)])
def test_plays_legal_moves_with_the_shipped_network(game: str, size: int) -> None:
    agent = make_agent("az", game, {"simulations": "48", "batch": "8"}, seed=1)
    state = make(game, size=size)
    infos = []
    for _ in range(4):
        result = agent.select_move(state, Limit(), on_info=infos.append)
        assert state.is_legal(result.move)
        assert result.nodes == 48
        assert sum(c.visits for c in result.candidates) >= 48  # the kept subtree counts too
        assert result.candidates[0].move == result.move
        assert all(0 <= (c.winrate or 0) <= 1 and c.prior is not None for c in result.candidates)
        state = state.play(result.move)
    assert infos and infos[-1] == result


@pytest.mark.parametrize(("game", "size"), [("go", 9), ("othello", 8)])
def test_playouts_mixed_into_the_values_play_legal_moves(game: str, size: int) -> None:
    agent = make_agent("az", game, {"simulations": "32", "mix": "0.5"}, seed=1)
    state = make(game, size=size)
    for _ in range(3):
        result = agent.select_move(state, Limit())
        assert state.is_legal(result.move) and result.nodes == 32
        state = state.play(result.move)
    with pytest.raises(AgentError, match=r"mix must be in \[0, 1\]"):
        make_agent("az", game, {"mix": "1.5"})


@pytest.mark.parametrize("mix", ["0", "0.5"])
def test_search_threads_share_the_simulations_and_stay_deterministic(mix: str) -> None:
    state = make("go", size=9)
    options = {"threads": "2", "mix": mix, "reuse": "false"}
    a, b = (make_agent("az", "go", options, seed=3).select_move(state, Limit(playouts=97))
            for _ in range(2))  # fmt: skip
    assert a.nodes == 97 and sum(c.visits for c in a.candidates) == 97  # 49 + 48, summed
    assert [(c.move, c.visits, c.winrate) for c in a.candidates] == [
        (c.move, c.visits, c.winrate) for c in b.candidates
    ]
    assert a.move == a.candidates[0].move and state.is_legal(a.move)
    one = make_agent("az", "go", {"mix": mix, "reuse": "false"}, seed=3)
    single = one.select_move(state, Limit(playouts=97))
    assert [c.visits for c in single.candidates] != [c.visits for c in a.candidates]
    with pytest.raises(AgentError, match="threads must be >= 1"):
        make_agent("az", "go", {"threads": "0"})


@pytest.mark.parametrize(("game", "size"), [("go", 9), ("othello", 8)])
def test_a_playout_thread_plays_the_same_search(game: str, size: int) -> None:
    state = make(game, size=size)
    results = [
        make_agent(
            "az", game, {"mix": "0.5", "playout_thread": thread, "reuse": "false"}, seed=4
        ).select_move(state, Limit(playouts=64))
        for thread in ("false", "true")
    ]
    assert [(c.move, c.visits, c.winrate) for c in results[0].candidates] == [
        (c.move, c.visits, c.winrate) for c in results[1].candidates
    ]
    with pytest.raises(AgentError, match="give mix > 0"):
        make_agent("az", game, {"playout_thread": "true"})


def test_closing_an_az_agent_ends_its_playout_threads() -> None:
    def playout_threads() -> set[int]:
        return {t.ident or 0 for t in threading.enumerate() if t.name.startswith("imago-playouts")}

    before = playout_threads()
    agent = make_agent("az", "go", {"mix": "0.5", "playout_thread": "true", "threads": "2"})
    agent.select_move(make("go", size=9), Limit(playouts=32))
    started = playout_threads() - before
    assert len(started) == 2  # one for each search thread's tree
    agent.close()
    assert not started & playout_threads()


def test_gumbel_rule_and_sampling(tmp_path: Path) -> None:
    model = _model(tmp_path, "othello", 6)
    state = make("othello", size=6)
    gumbel = make_agent("az", "othello", {"model": str(model), "rule": "gumbel"}, seed=2, size=6)
    result = gumbel.select_move(state, Limit(playouts=32))
    assert state.is_legal(result.move) and result.nodes == 32
    moves = {
        make_agent(
            "az",
            "othello",
            {"model": str(model), "temperature": "1", "temperature_moves": "10"},
            seed=seed,
            size=6,
        )
        .select_move(state, Limit(playouts=16))
        .move
        for seed in range(12)
    }
    assert len(moves) > 1  # sampled, not always the same


def test_time_limit_and_stop(tmp_path: Path) -> None:
    import threading

    agent = make_agent("az", "go", {"model": str(_model(tmp_path, "go", 7))}, seed=1, size=7)
    result = agent.select_move(make("go", size=7), Limit(time=0.3))
    assert result.seconds < 3 and result.nodes > 0
    stop = threading.Event()
    stop.set()
    assert agent.select_move(make("go", size=7), Limit(time=60), stop=stop).seconds < 5


@pytest.mark.parametrize("game", ["go", "othello"])
def test_a_spent_clock_still_searches_once(tmp_path: Path, game: str) -> None:
    # Found under load: given 0.3 s, az spent it starting up and played an unsearched move (not
    # even the network's first choice). The first simulation runs whatever the clock says.
    size = 7 if game == "go" else 6
    options = {"model": str(_model(tmp_path, game, size))}
    agent = make_agent("az", game, options, seed=1, size=size)
    result = agent.select_move(make(game, size=size), Limit(time=1e-9))
    assert result.nodes >= 1
    assert result.candidates and result.candidates[0].visits >= 1


def test_wrong_networks_are_refused(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="no value head"):
        make_agent("az", "go", {"model": str(_model(tmp_path, "go", 9, "l2c8"))}, seed=1)
    othello = str(_model(tmp_path, "othello", 8))
    with pytest.raises(AgentError, match="for 8x8 othello, not 9x9 go"):  # when made
        make_agent("az", "go", {"model": othello}, seed=1)
    agent = make_agent("az", "go", {"model": othello}, seed=1, check=False)
    with pytest.raises(AgentError, match="for 8x8 othello, not 9x9 go"):  # at the first move
        agent.select_move(make("go", size=9), Limit(playouts=8))
    with pytest.raises(AgentError, match="no network is shipped for go 7x7"):
        make_agent("az", "go", {}, seed=1, size=7)
    with pytest.raises(ModelError, match="no network is shipped for go 7x7"):
        make_agent("az", "go", {}, seed=1).select_move(make("go", size=7), Limit(playouts=8))
    with pytest.raises(ValueError, match="rule"):
        make_agent("az", "go", {"rule": "uct"}, seed=1)


def test_lz_analyze_over_gtp_shows_the_search(tmp_path: Path) -> None:
    model = _model(tmp_path, "go", 9)
    process = subprocess.Popen(
        [sys.executable, "-m", "imago", "gtp", "--agent", f"az:model={model}", "--size", "9"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write("play b E5\nlz-analyze w 10\n")
        process.stdin.flush()
        lines: list[str] = []
        deadline = time.time() + 180  # generous: a loaded machine
        while time.time() < deadline and sum(line.startswith("info") for line in lines) < 3:
            lines.append(process.stdout.readline())
        process.stdin.write("genmove w\nquit\n")
        process.stdin.flush()
        rest = process.stdout.read()
    finally:
        process.wait(timeout=30)
    infos = [line for line in lines if line.startswith("info")]
    assert len(infos) >= 3
    words = infos[-1].split()
    assert words[:2] == ["info", "move"] and "visits" in words and "pv" in words
    visits = int(words[words.index("visits") + 1])
    assert visits > 0
    assert "= " in rest  # genmove answered with a move after the analysis stopped


def test_az_in_a_match(tmp_path: Path) -> None:
    from imago.arena.game import GameSettings
    from imago.arena.match import MatchSettings, Player, match_schedule, run_games

    model = _model(tmp_path, "othello", 6)
    hero = Player("az", f'az:model="{model}",simulations=16,resign=0')
    schedule = match_schedule(hero, Player("random", "random"), 2)
    settings = MatchSettings(GameSettings("othello", 6), seed=1)
    records = run_games(settings, schedule, folder=tmp_path / "match")
    # resign=0: an untrained network can be sure it has lost; the games are played out
    assert len(records) == 2 and all(r.reason == "score" for r in records)
    assert np.isfinite([len(r.moves) for r in records]).all()


def test_the_threads_benchmark_measures_every_way_to_use_two_cores() -> None:
    from imago.bench import BenchConfig
    from imago.bench.search import AZ_THREADS, az_threads

    figures = {f.name: f for f in az_threads(BenchConfig(quick=True, repeats=1))}
    for name in AZ_THREADS:
        assert figures[f"search.az_{name}_sims_s"].value > 0
    gain = figures["search.az_playout_thread_gain"].value
    assert gain == pytest.approx(
        figures["search.az_playout_thread_sims_s"].value
        / figures["search.az_one_thread_sims_s"].value
    )
