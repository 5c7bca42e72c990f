"""A Go network's value against the result, on the settled last positions of finished games.

    python bench/settled_values.py MODEL FOLDER_OR_SGF... [--tail 10] [--margin 0.2]
        [--player LABEL] [--against OTHER_MODEL]

Each argument is an SGF file or a folder of them (a match folder's ``games/`` is searched too):
``imago match`` games, or a run's self-play rounds (``RUN/games/GGGGGG``). Of each game, the
last ``--tail`` positions that the count settles -- :func:`imago.games.go.scoring.count`, which
agrees with GNU Go's ``final_score`` on finished games, finds no stone unsettled -- are
evaluated by the network (one symmetry). A value is wrong when it is more than ``--margin`` on
the side of the player who lost the game (its ``RE``: by the count, or by resignation).
Printed per argument: positions, the share with a wrong value and its 95 % interval, split by
whether the count of the position names the game's winner (a game resigned before its end
may still have open borders that the count misjudges), and the games they are in. With
``--player``, the games of the player whose SGF name (``PB`` / ``PW``) starts with ``LABEL``
are split into those it won and those it lost. With ``--against``, both networks judge the
same positions: printed are the positions only one of them gets wrong and the games in which
one gets more wrong than the other, each with the exact sign test's two-sided p-value that
neither is wrong more often (McNemar's test). A pairing tells a small change apart from noise
far better than two separate intervals; the positions of one game are not independent, so
the test by games is the one to trust, the one by positions the more sensitive.

Where a network judges its own games' endings right and another program's wrong, its value
has not seen the positions that program reaches.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from imago.arena.stats import score_interval
from imago.core.color import Color
from imago.games.go.position import GoPosition
from imago.games.go.scoring import count
from imago.nn.inference import Network
from imago.records.sgf import read_file

AGREE, DISAGREE = "the count names the winner", "the count names the loser or no one"


def sgf_files(source: Path) -> list[Path]:
    """The SGF files of ``source`` (itself, or those in it and in its ``games/``)."""
    if source.is_file():
        return [source]
    return sorted(source.glob("*.sgf")) + sorted(source.glob("games/*.sgf"))


def game_winner(result: str) -> Color | None:
    """The winner an SGF ``RE`` names (``None``: a draw, a void game or no result)."""
    text = result.strip().upper()
    return {"B": Color.BLACK, "W": Color.WHITE}.get(text[:1]) if text[1:2] == "+" else None


def player_outcome(black: str | None, white: str | None, winner: Color, player: str) -> str:
    """``won`` or ``lost`` for the side whose name starts with ``player``; empty when no
    player is asked for or neither side is it."""
    if not player:
        return ""
    for name, colour in ((black, Color.BLACK), (white, Color.WHITE)):
        if name is not None and name.startswith(player):
            return "won" if winner is colour else "lost"
    return ""


def settled_tail(
    positions: list[GoPosition], tail: int, winner: Color
) -> list[tuple[GoPosition, bool, bool]]:
    """The last ``tail`` positions the count settles, each with whether its player to move won
    the game and whether the count names the game's winner."""
    found: list[tuple[GoPosition, bool, bool]] = []
    for position in reversed(positions):
        if len(found) == tail:
            break
        if position.is_over():
            continue
        counted = count(position)
        if counted.unsettled:
            continue
        found.append((position, winner is position.to_play, counted.outcome.winner is winner))
    return found


Game = tuple[str | None, str | None, Color, list[tuple[GoPosition, bool, bool]]]
"""A finished game's black and white names, its winner and its :func:`settled_tail`."""


def settled_games(source: Path, tail: int) -> Iterator[Game]:
    """Each finished Go game of ``source`` with a winner (its settled tail empty when the
    count settles none of it). Counting every position back from each game's end is this
    script's costly part, minutes for 80 games, so :func:`main` does it once a source, however
    many networks judge the games."""
    for path in sgf_files(source):
        for game in read_file(path):
            positions = [state for state, _ in game.mainline_states()]
            if not positions or not isinstance(positions[0], GoPosition):
                continue
            winner = game_winner(game.get_text("RE") or "")
            if winner is None:
                continue
            settled = settled_tail(positions, tail, winner)  # type: ignore[arg-type]
            yield game.get_text("PB"), game.get_text("PW"), winner, settled


def wrong_values(
    network: Network, settled: list[tuple[GoPosition, bool, bool]], margin: float
) -> list[bool]:
    """For each settled position, whether ``network``'s value is more than ``margin`` on the
    side of the player who lost."""
    values = network.evaluate([p for p, _, _ in settled]).value
    assert values is not None, "the network has no value head"
    return [
        bool(value < -margin if wins else value > margin)
        for (_, wins, _), value in zip(settled, values, strict=True)
    ]


def measure(
    network: Network, source: Path, games_of_source: list[Game], margin: float, player: str
) -> list[list[bool]]:
    """Print the figures of the module docstring for one argument (its :func:`settled_games`,
    counted once for every network that judges them); return, game by game and position by
    position, whether the value is wrong."""
    totals: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    games_wrong = games = 0
    flags: list[list[bool]] = []
    split_total: Counter[str] = Counter()
    split_wrong: Counter[str] = Counter()
    split_games: Counter[str] = Counter()
    for black, white, winner, settled in games_of_source:
        games += 1
        if not settled:
            continue
        side = player_outcome(black, white, winner, player)
        bad_ones = wrong_values(network, settled, margin)
        flags.append(bad_ones)
        for (_, _, agrees), bad in zip(settled, bad_ones, strict=True):
            label = AGREE if agrees else DISAGREE
            totals[label] += 1
            wrong[label] += bad
            if side:
                split_total[side] += 1
                split_wrong[side] += bad
        games_wrong += any(bad_ones)
        if side:
            split_games[side] += 1
    n, w = sum(totals.values()), sum(wrong.values())
    share = score_interval(w, 0, n - w)
    print(
        f"{source}: {n} settled positions of {games} games; value wrong on {w} "
        f"({100 * share.score:.1f} % [{100 * share.low:.1f}, {100 * share.high:.1f}]), "
        f"in {games_wrong} games"
    )
    for name in (AGREE, DISAGREE):
        if totals[name]:
            print(f"  {name}: {wrong[name]} of {totals[name]}")
    for side in ("won", "lost"):
        if split_total[side]:
            share = score_interval(split_wrong[side], 0, split_total[side] - split_wrong[side])
            print(
                f"  games {player} {side} ({split_games[side]}): {split_wrong[side]} of "
                f"{split_total[side]} ({100 * share.score:.1f} % [{100 * share.low:.1f}, "
                f"{100 * share.high:.1f}])"
            )
    return flags


def sign_test(only_first: int, only_second: int) -> float:
    """The exact two-sided p-value that two judges who disagree ``only_first +
    only_second`` times are each wrong alone equally often (McNemar's exact test)."""
    n = only_first + only_second
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(only_first, only_second) + 1))
    return min(1.0, math.ldexp(2 * tail, -n))


def compare(
    first: list[list[bool]], second: list[list[bool]], source: Path, names: tuple[str, str]
) -> None:
    """Print, for one argument, the settled positions only one of two networks gets wrong and
    the games in which one gets more wrong (``first`` and ``second``: :func:`measure`'s flags
    on the same games)."""
    games = list(zip(first, second, strict=True))
    pairs = [pair for a, b in games for pair in zip(a, b, strict=True)]
    only_first = sum(a and not b for a, b in pairs)
    only_second = sum(b and not a for a, b in pairs)
    more_first = sum(sum(a) > sum(b) for a, b in games)
    more_second = sum(sum(b) > sum(a) for a, b in games)
    print(
        f"{source}: {len(pairs)} settled positions; wrong for both "
        f"{sum(a and b for a, b in pairs)}, only {names[0]} {only_first}, only {names[1]} "
        f"{only_second} (sign test p = {sign_test(only_first, only_second):.3f}); of "
        f"{len(games)} games, more wrong for {names[0]} in {more_first}, for {names[1]} in "
        f"{more_second} (p = {sign_test(more_first, more_second):.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a 9x9 Go model file (.pt)")
    parser.add_argument("sources", nargs="+", type=Path, help="SGF files or folders")
    parser.add_argument("--tail", type=int, default=10, help="settled positions a game")
    parser.add_argument("--margin", type=float, default=0.2, help="how wrong a value must be")
    parser.add_argument("--player", default="", help="split games by whether LABEL... won")
    parser.add_argument("--against", default="", help="another model, on the same positions")
    args = parser.parse_args()
    network = Network.load(args.model, game="go", size=9, device="cpu")
    other = Network.load(args.against, game="go", size=9, device="cpu") if args.against else None
    for source in args.sources:
        games = list(settled_games(source, args.tail))
        first = measure(network, source, games, args.margin, args.player)
        if other is not None:
            second = measure(other, source, games, args.margin, args.player)
            compare(first, second, source, (Path(args.model).name, Path(args.against).name))


if __name__ == "__main__":
    main()
