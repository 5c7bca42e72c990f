"""Search benchmarks: the Othello endgame solver on the FFO suite, alpha-beta nodes per second,
MCTS simulations per second against OpenSpiel's C++ ``MCTSBot`` in the same run, and the
agents' score against the random agent."""

from __future__ import annotations

import contextlib
import statistics
import time
from pathlib import Path

from imago.bench import BenchConfig, Figure, benchmark, progress


def _ffo_positions(data_dir: Path | None, first: int, last: int) -> list[list[str]]:
    if data_dir is None:
        return []
    path = data_dir / "ffo" / "ffo_40_59.txt"
    if not path.is_file():
        return []
    rows = [line.split() for line in path.read_text().splitlines() if line[:1].isdigit()]
    return [row for row in rows if first <= int(row[0]) <= last]


HARD_NODE_CAP = 60_000_000_000
"""Per-position node cap of ``search.endgame_hard``: above what every position of #50-#59
needs (the largest, #55, about 30 G nodes: 12-13 CPU-minutes at 40 M nodes/s), so that the
benchmark solves them all and its ``total_cpu`` is the whole set's time (about 38 CPU-minutes)."""


def _solve_ffo(rows: list[list[str]], prefix: str, node_cap: int | None = None) -> list[Figure]:
    """Solve each FFO row with a cleared table; wall and CPU seconds, nodes, correctness.

    With ``node_cap`` a position that needs more nodes is given up and reported as capped
    (its time still counts in the totals)."""
    from imago.agents.othello.endgame import EndgameSolver, SearchAborted

    solver = EndgameSolver(table_bits=22)
    with contextlib.suppress(SearchAborted):  # compile (or load) every kernel outside the timing
        solver.solve_board(rows[0][1], rows[0][2], node_limit=100_000)
    figures = []
    total_time = 0.0
    total_cpu = 0.0
    total_nodes = 0
    correct = 0
    capped = 0
    progress(f"{prefix}: solving {len(rows)} FFO positions, one at a time")
    for row in rows:
        solver.clear()
        cpu = time.process_time()
        wall = time.perf_counter()
        try:
            result = solver.solve_board(row[1], row[2], node_limit=node_cap)
        except SearchAborted:
            cpu = time.process_time() - cpu
            wall = time.perf_counter() - wall
            total_cpu += cpu
            total_time += wall
            total_nodes += node_cap or 0
            capped += 1
            figures.append(
                Figure(
                    f"{prefix}.ffo{row[0]}",
                    wall,
                    "s",
                    f"{row[5]} empties, NOT SOLVED within the cap of {node_cap:,} nodes, "
                    f"{cpu:.2f} s CPU",
                )
            )
            progress(f"  #{row[0]}: {figures[-1].note}")
            continue
        cpu = time.process_time() - cpu
        total_cpu += cpu
        ok = result.score == int(row[4]) and result.move_text in row[3].split(",")
        correct += ok
        total_time += result.seconds
        total_nodes += result.nodes
        figures.append(
            Figure(
                f"{prefix}.ffo{row[0]}",
                result.seconds,
                "s",
                f"{row[5]} empties, {result.move_text} {result.score:+d} "
                f"({'ok' if ok else 'WRONG, listed ' + row[3] + ' ' + row[4]}), "
                f"{result.nodes:,} nodes, {cpu:.2f} s CPU",
            )
        )
        progress(f"  #{row[0]}: {figures[-1].note}")
    figures.append(Figure(f"{prefix}.total", total_time, "s", f"{len(rows)} positions, wall"))
    figures.append(Figure(f"{prefix}.total_cpu", total_cpu, "s", "CPU time of this process"))
    figures.append(Figure(f"{prefix}.correct", correct, "positions", f"of {len(rows)}"))
    if node_cap is not None:
        figures.append(Figure(f"{prefix}.capped", capped, "positions", f"over {node_cap:,} nodes"))
    figures.append(
        Figure(f"{prefix}.nodes_per_second", total_nodes / max(total_time, 1e-9), "nodes/s")
    )
    figures.append(
        Figure(f"{prefix}.nodes_per_cpu_second", total_nodes / max(total_cpu, 1e-9), "nodes/s")
    )
    return figures


@benchmark("search.endgame", "exact Othello solver on FFO #40-#49 (quick: #40-#42)")
def endgame(config: BenchConfig) -> list[Figure]:
    rows = _ffo_positions(config.data_dir, 40, 42 if config.quick else 49)
    if not rows:
        return [Figure("search.endgame.skipped", 0, "", "no ../shared/data/ffo")]
    return _solve_ffo(rows, "search.endgame")


@benchmark(
    "search.endgame_hard",
    "exact Othello solver on FFO #50-#59, about 38 CPU-minutes (skipped by --quick)",
)
def endgame_hard(config: BenchConfig) -> list[Figure]:
    rows = _ffo_positions(config.data_dir, 50, 59)
    if not rows or config.quick:
        return [Figure("search.endgame_hard.skipped", 0, "", "quick run or no data")]
    return _solve_ffo(rows, "search.endgame_hard", node_cap=HARD_NODE_CAP)


SIX_BY_SIX_START = -4
"""6x6 Othello under perfect play: White wins 20-16 (J. Feinstein, 1993): -4 for Black."""


@benchmark(
    "search.endgame6",
    "exact solve of the 6x6 start position, against the published -4 (--quick: after the "
    "first legal move four times, 28 empties)",
)
def endgame6(config: BenchConfig) -> list[Figure]:
    from imago.agents.othello.endgame import EndgameSolver, SearchAborted
    from imago.games.othello import new_game

    state = new_game(6)
    opening = []
    for _ in range(4 if config.quick else 0):
        opening.append(state.legal_moves()[0])
        state = state.play(opening[-1])
    solver = EndgameSolver(table_bits=22)
    with contextlib.suppress(SearchAborted):  # compile outside the timing
        solver.solve_state(state, node_limit=1000)
    solver.clear()
    cpu = time.process_time()
    result = solver.solve_state(state)
    cpu = time.process_time() - cpu
    where = " ".join(m.to_algebraic() for m in opening) or "the start"
    check = ""
    if not opening:
        ok = result.score == SIX_BY_SIX_START
        check = f" ({'equals' if ok else 'DIFFERS FROM'} the published {SIX_BY_SIX_START:+d})"
    return [
        Figure("search.endgame6.score", result.score, "discs", f"{where}, Black to move{check}"),
        Figure("search.endgame6.seconds", result.seconds, "s", f"wall; {cpu:.1f} s CPU"),
        Figure("search.endgame6.nodes", result.nodes, "nodes", f"best move {result.move_text}"),
        Figure("search.endgame6.nodes_per_cpu_second", result.nodes / max(cpu, 1e-9), "nodes/s"),
    ]


@benchmark("search.alphabeta", "alpha-beta nodes per second (Othello and 9x9 Go midgames)")
def alphabeta(config: BenchConfig) -> list[Figure]:
    import numpy as np

    from imago.agents import Limit, make_agent
    from imago.games import make

    figures = []
    for game, depth, opening, weights in (
        ("othello", 9, ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"], ""),
        ("othello", 9, ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"], "mask"),
        ("go", 3, ["E5", "E3", "C4", "G5", "D6", "F6"], ""),
    ):
        state = make(game) if game == "othello" else make(game, size=9)
        for text in opening:
            state = state.play(state.parse_move(text))
        depth_used = depth - 1 if config.quick else depth
        rates = []
        nodes = 0
        options = {"endgame_empties": "0"} | ({"weights": weights} if weights else {})
        for _ in range(max(1, config.repeats // 2)):
            agent = make_agent("alphabeta", game, options, seed=1)
            agent.select_move(state, Limit(depth=1))
            agent.reset()
            result = agent.select_move(state, Limit(depth=depth_used))
            rates.append(result.nodes / max(result.seconds, 1e-9))
            nodes = result.nodes
        evaluation = {"": "pattern evaluation", "mask": "002's mask evaluation"}[weights]
        name = f"search.alphabeta.{game}{'_' + weights if weights else ''}"
        where = f"depth {depth_used} after {len(opening)} moves" + (
            f", {evaluation}" if game == "othello" else ""
        )
        rate = float(np.median(rates))
        figures.append(Figure(f"{name}_nodes_per_second", rate, "nodes/s", where))
        same = " (the same tree every run: a change to the search shows here)"
        figures.append(Figure(f"{name}_nodes", float(nodes), "nodes", where + same))
    return figures


@benchmark("search.probcut", "Othello alpha-beta with and without multi-ProbCut: depth and nodes")
def probcut(config: BenchConfig) -> list[Figure]:
    """On midgame positions of seeded random games (12-36 plies), the same agent with
    ``probcut=0`` and with the default: the depth its iterative deepening completes within a
    node budget (load-independent stand-in for a second of search), and its nodes to a fixed
    depth."""
    import numpy as np

    from imago.agents import Limit, make_agent
    from imago.games import make

    rng = np.random.default_rng(20)
    states = []
    for plies in np.linspace(12, 36, 6 if config.quick else 12).astype(int):
        state = make("othello")
        while state.move_number < plies and not state.is_over():
            moves = state.legal_moves()
            state = state.play(moves[int(rng.integers(len(moves)))])
        states.append(state)
    budget = 100_000 if config.quick else 600_000
    fixed = 6 if config.quick else 8
    depth: dict[str, list[int]] = {"0": [], "": []}
    nodes: dict[str, list[int]] = {"0": [], "": []}
    for state in states:
        for key in depth:
            options = {"endgame_empties": "0"} | ({"probcut": key} if key else {})
            agent = make_agent("alphabeta", "othello", options, seed=1)
            depth[key].append(agent.select_move(state, Limit(nodes=budget)).depth)
            agent.reset()
            nodes[key].append(agent.select_move(state, Limit(depth=fixed)).nodes)
    ratio = [cut / max(full, 1) for cut, full in zip(nodes[""], nodes["0"], strict=True)]
    where = f"{len(states)} midgame positions"
    return [
        Figure("search.probcut.depth_off", float(np.median(depth["0"])), "plies",
               f"median depth completed in {budget:,} nodes, probcut=0, {where}"),
        Figure("search.probcut.depth_on", float(np.median(depth[""])), "plies",
               f"the same with the default probcut, {where}"),
        Figure("search.probcut.node_ratio", float(np.median(ratio)), "x",
               f"nodes to depth {fixed}, default probcut over probcut=0 (median), {where}"),
    ]  # fmt: skip


def _openspiel_rate(game: str, simulations: int, c: float) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    params = {"board_size": 9, "komi": 7.5} if game == "go" else {}
    spiel_game = pyspiel.load_game(game, params)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 1)
    bot = pyspiel.MCTSBot(spiel_game, evaluator, c, simulations, 1000, False, 1, False)
    state = spiel_game.new_initial_state()
    bot.step(state)
    start = time.perf_counter()
    bot.step(state)
    return simulations / (time.perf_counter() - start)


def _imago_rate(
    game: str, simulations: int, c: float, rave: bool, *, default: bool = False
) -> float:
    """Simulations/s of the mcts agent; Go playouts uniformly random (OpenSpiel's kind)
    unless ``default`` (the agent's default playout policy and priors)."""
    from imago.agents import Limit, make_agent
    from imago.games import make

    state = make(game) if game == "othello" else make(game, size=9)
    options = {"c": str(c), "rave": str(rave), "reuse": "false", "resign": "0"}
    if game == "go" and not default:
        options |= {"playout_policy": "random", "priors": "0"}
    agent = make_agent("mcts", game, options, seed=1)
    agent.select_move(state, Limit(playouts=200))
    agent.reset()
    result = agent.select_move(state, Limit(playouts=simulations))
    return simulations / result.seconds


@benchmark("search.mcts", "MCTS simulations/s from the start (9x9 Go, Othello) vs OpenSpiel")
def mcts(config: BenchConfig) -> list[Figure]:
    simulations = 2000 if config.quick else 10000
    c = 1.4
    figures = []
    for game in ("go", "othello"):
        rounds = max(1, config.repeats // 2)
        ours = statistics.median(_imago_rate(game, simulations, c, False) for _ in range(rounds))
        rave = statistics.median(_imago_rate(game, simulations, c, True) for _ in range(rounds))
        note = f"{simulations} simulations, UCT c={c}, one random playout per leaf"
        figures.append(Figure(f"search.mcts.{game}_uct", ours, "sims/s", note))
        figures.append(Figure(f"search.mcts.{game}_rave", rave, "sims/s", note))
        if game == "go":
            default = statistics.median(
                _imago_rate(game, simulations, c, True, default=True) for _ in range(rounds)
            )
            figures.append(
                Figure(
                    "search.mcts.go_default",
                    default,
                    "sims/s",
                    f"{simulations} simulations, the agent's defaults (playouts, priors)",
                )
            )
        rates = [_openspiel_rate(game, simulations, c) for _ in range(rounds)]
        theirs = [r for r in rates if r is not None]
        if theirs:
            peer = statistics.median(theirs)
            figures.append(Figure(f"search.mcts.{game}_openspiel", peer, "sims/s", note))
            figures.append(
                Figure(f"search.mcts.{game}_ratio", ours / peer, "x", "imago UCT / OpenSpiel")
            )
    return figures


def _score_against_random(agent_text: str, game: str, games: int, limit_text: str) -> float:
    from imago.agents import Limit, make_agent
    from imago.agents.registry import parse_agent_spec
    from imago.games import make

    name, options = parse_agent_spec(agent_text)
    kind, _, value = limit_text.partition("=")
    limit = Limit(time=float(value)) if kind == "time" else Limit(**{kind: int(value)})
    wins = 0
    for index in range(games):
        ours_black = index % 2 == 0
        ours = make_agent(name, game, options, seed=index)
        theirs = make_agent("random", game, {}, seed=1000 + index)
        state = make(game) if game == "othello" else make(game, size=9)
        winner = None
        while not state.is_over():
            our_turn = (state.to_play == 1) == ours_black
            result = (ours if our_turn else theirs).select_move(state, limit)
            if result.move.is_resign:
                winner = not our_turn
                break
            state = state.play(result.move)
        if winner is None:
            outcome = state.outcome()
            assert outcome is not None
            winner = outcome.winner is not None and (outcome.winner == 1) == ours_black
        wins += bool(winner)
    return 100.0 * wins / games


@benchmark("search.vs_random", "alphabeta and mcts against the random agent (win %)")
def vs_random(config: BenchConfig) -> list[Figure]:
    games = 10 if config.quick else 100
    figures = []
    for agent, game, limit in (
        ("alphabeta", "othello", "depth=4"),
        ("alphabeta:top_k=8", "go", "depth=2"),
        ("mcts", "othello", "playouts=1000"),
        ("mcts", "go", "playouts=1000"),
    ):
        rate = _score_against_random(agent, game, games, limit)
        name = agent.partition(":")[0]
        figures.append(
            Figure(
                f"search.vs_random.{name}_{game}",
                rate,
                "% won",
                f"{games} games, colours alternated, {agent} {limit}"
                + (", 9x9 komi 7.5" if game == "go" else ""),
            )
        )
    return figures


@benchmark(
    "search.go_playout_policy", "9x9 Go MCTS playouts/s from the start: random, heavy, pattern"
)
def go_playout_policy(config: BenchConfig) -> list[Figure]:
    import time

    import numpy as np

    from imago.agents.go import _mcts as mk
    from imago.agents.go._patterns import POLICY_PATTERN, pattern_table
    from imago.agents.go._playouts import POLICY_HEAVY, POLICY_RANDOM
    from imago.games.go import fastpath, new_game

    position = new_game(size=9)
    start = fastpath.to_arrays(position)
    count = 200 if config.quick else 2000
    rates = {}
    table = pattern_table()
    policies = (("random", POLICY_RANDOM), ("heavy", POLICY_HEAVY), ("pattern", POLICY_PATTERN))
    for name, policy in policies:
        rng = fastpath.seed_rng(1)

        def run(policy: int = policy, rng: np.ndarray = rng) -> None:
            for _ in range(count):
                first = np.zeros(82, dtype=np.int8)
                mk.playout(start.copy(), 9, 7.0, False, 1000, rng, first, policy, table)

        run()  # compile or load from the cache
        started = time.thread_time()
        run()
        rates[name] = count / (time.thread_time() - started)
    return [
        Figure("search.go_playouts_random_s", rates["random"], "playouts/cpu-s"),
        Figure("search.go_playouts_heavy_s", rates["heavy"], "playouts/cpu-s"),
        Figure("search.go_playouts_pattern_s", rates["pattern"], "playouts/cpu-s"),
        Figure("search.go_heavy_cost", rates["random"] / rates["heavy"], "x", "random / heavy"),
        Figure(
            "search.go_pattern_cost", rates["random"] / rates["pattern"], "x", "random / pattern"
        ),
    ]


AZ_THREADS = {
    "one_thread": "az:mix=0.35,reuse=false",
    "playout_thread": "az:mix=0.35,playout_thread=true,reuse=false",
    "two_trees": "az:mix=0.35,threads=2,reuse=false",
    "nn_threads2": "az:mix=0.35,nn_threads=2,reuse=false",
}
"""The ways ``az`` with playouts mixed in (as it plays Pachi) can use the CPU: one thread; the
playouts of each batch on a second thread (one tree); two trees (root parallelisation); the
network's calls on two threads."""


@benchmark(
    "search.az_threads",
    "9x9 Go az:mix=0.35 simulations in a second of search: one thread, a playout thread, "
    "two trees, two network threads",
)
def az_threads(config: BenchConfig) -> list[Figure]:
    from imago.agents import Limit, make_agent
    from imago.agents.registry import agent_from_spec
    from imago.games import make

    state = make("go", size=9)
    guide = make_agent("policy", "go", {}, seed=1)
    positions = []
    for ply in range(1, 61):  # the shipped network's own game: plies 20, 40 and 60
        state = state.play(guide.select_move(state, Limit()).move)
        if ply % 20 == 0:
            positions.append(state)
    seconds = 0.25 if config.quick else 1.0
    rates = {}
    for name, spec in AZ_THREADS.items():
        agent = agent_from_spec(spec, "go", size=9, seed=1)
        try:
            agent.select_move(positions[0], Limit(time=seconds))  # load the network and kernels
            results = [agent.select_move(position, Limit(time=seconds)) for position in positions]
        finally:
            agent.close()  # its playout threads end before the next way is timed
        found = [result.nodes / result.seconds for result in results]
        progress(f"search.az_threads: {name} {', '.join(f'{r:,.0f}' for r in found)} sims/s")
        rates[name] = statistics.median(found)
    note = f"median of plies 20, 40, 60 of the policy network's game, {seconds} s each"
    figures = [
        Figure(f"search.az_{name}_sims_s", rate, "sims/s", note) for name, rate in rates.items()
    ]
    figures.append(
        Figure(
            "search.az_playout_thread_gain",
            rates["playout_thread"] / rates["one_thread"],
            "x",
            "playout_thread / one thread (one tree)",
        )
    )
    return figures
