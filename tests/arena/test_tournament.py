"""Tournament schedules and tables, on hand-made records."""

from __future__ import annotations

from collections import Counter

import pytest

from imago.arena.match import GameRecord, Player
from imago.arena.ratings import PairResult
from imago.arena.tournament import cross_table, gauntlet, pair_results, round_robin, standings

A, B, C, D = (Player(label, "random") for label in "abcd")


def test_round_robin_is_balanced_in_pairs_and_colours() -> None:
    schedule = round_robin([A, B, C, D], 4)
    assert len(schedule) == 6 * 4
    assert [p.index for p in schedule] == list(range(24))
    pairs = Counter(frozenset((p.black.label, p.white.label)) for p in schedule)
    assert set(pairs.values()) == {4}
    blacks = Counter(p.black.label for p in schedule)
    assert set(blacks.values()) == {6}  # each player has Black in half of its 12 games
    # Interleaved: the first six games are the six pairings once each.
    assert len({frozenset((p.black.label, p.white.label)) for p in schedule[:6]}) == 6
    assert {p.round for p in schedule} == {0, 1}


def test_gauntlet_pairs_the_hero_with_each_other_player() -> None:
    schedule = gauntlet(A, [B, C], 3)
    assert len(schedule) == 6
    assert all("a" in (p.black.label, p.white.label) for p in schedule)
    with pytest.raises(ValueError, match="distinct"):
        gauntlet(A, [A], 2)
    with pytest.raises(ValueError, match="at least"):
        round_robin([A, B], 0)


def record(
    index: int, black: str, white: str, winner: str | None, reason: str = "score"
) -> GameRecord:
    result = "0" if winner is None else f"{winner}+1"
    return GameRecord(index, black, white, winner, result, reason)


RECORDS = [
    record(0, "a", "b", "B"),
    record(1, "b", "a", "W"),
    record(2, "a", "c", None),
    record(3, "c", "a", "B", "illegal"),
    record(4, "b", "c", "W", "crash"),
]


def test_standings_count_points_and_forfeits() -> None:
    table = {line.player: line for line in standings(RECORDS, ["a", "b", "c", "d"])}
    assert (table["a"].wins, table["a"].draws, table["a"].losses) == (2, 1, 1)
    assert table["a"].points == 2.5 and table["a"].score == pytest.approx(2.5 / 4)
    assert (table["b"].wins, table["b"].losses, table["b"].forfeits) == (0, 3, 1)
    assert (table["c"].wins, table["c"].draws, table["c"].forfeits) == (2, 1, 0)
    assert table["d"].games == 0
    assert [line.player for line in standings(RECORDS)] == ["c", "a", "b"]


def test_cross_table_and_pair_results() -> None:
    table = cross_table(RECORDS, ["a", "b", "c"])
    assert table[0][1] == (2.0, 2) and table[1][0] == (0.0, 2)
    assert table[0][2] == (0.5, 2) and table[2][0] == (1.5, 2)
    assert table[0][0] is None
    assert sorted(pair_results(RECORDS), key=lambda r: (r.a, r.b)) == [
        PairResult("a", "b", 2, 0, 0),
        PairResult("a", "c", 0, 1, 1),
        PairResult("b", "c", 0, 0, 1),
    ]
