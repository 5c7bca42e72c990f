"""Differential tests against GNU Go: random legal games, played move by move in both engines.

After every move the stones agree (``list_stones``) and so does the legality of every point for
the side to move (``is_legal``), under matching rules: simple ko, positional superko
(``--positional-superko``) and situational superko, suicide forbidden; and suicide allowed
(``--allow-all-suicide``) under simple ko. Also fixed handicap
placements (``fixed_handicap``) on every board size GNU Go supports.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from gnugo_driver import GnuGo

from imago.core import Color, Move, Point
from imago.games.go import (
    GoPosition,
    GoRules,
    KoRule,
    Scoring,
    fixed_handicap_points,
    max_fixed_handicap,
    new_game,
)

pytestmark = [pytest.mark.engine, pytest.mark.slow]

# size, games, ko rule, GNU Go option
CASES = [
    (9, 4, KoRule.SIMPLE, "--simple-ko"),
    (9, 3, KoRule.POSITIONAL_SUPERKO, "--positional-superko"),
    (9, 2, KoRule.SITUATIONAL_SUPERKO, "--situational-superko"),
    (13, 2, KoRule.SIMPLE, "--simple-ko"),
    (13, 1, KoRule.POSITIONAL_SUPERKO, "--positional-superko"),
    (19, 1, KoRule.SIMPLE, "--simple-ko"),
    (19, 1, KoRule.POSITIONAL_SUPERKO, "--positional-superko"),
]


def _random_move(position: GoPosition, rng: random.Random, wild: float) -> Move:
    """Mostly a random sensible move; sometimes a pass, sometimes (``wild``) any legal move (eye
    fills, suicides where allowed), so kos, captures of big groups and passes all happen."""
    roll = rng.random()
    if roll < 0.01:
        return Move.PASS
    moves = position.legal_moves() if roll < wild else position.sensible_moves()
    plays = [m for m in moves if m.is_play]
    return rng.choice(plays) if plays else Move.PASS


def _vertices(size: int) -> list[str]:
    return [Move.play(Point(r, c)).to_gtp(size) for r in range(size) for c in range(size)]


def _check_agreement(engine: GnuGo, position: GoPosition, vertices: list[str], where: str) -> None:
    color = "black" if position.to_play is Color.BLACK else "white"
    answers = engine.batch(
        ["list_stones black", "list_stones white"] + [f"is_legal {color} {v}" for v in vertices]
    )
    size = position.size
    for answer, stone in zip(answers[:2], (Color.BLACK, Color.WHITE), strict=True):
        theirs = {Move.from_gtp(v, size) for v in answer.split()}
        ours = {Move.play(p) for p in position.stones(stone)}
        assert ours == theirs, f"{where}: {stone} stones differ\n{position.diagram()}"
    legal = position.legal_mask()
    for index, (vertex, answer) in enumerate(zip(vertices, answers[2:], strict=True)):
        assert bool(legal[index]) == (answer == "1"), (
            f"{where}: legality of {vertex} for {color} differs (GNU Go says {answer})\n"
            f"{position.diagram()}"
        )


def _play_and_compare(
    engine: GnuGo, size: int, games: int, rules: GoRules, rng: random.Random, wild: float
) -> tuple[int, int]:
    """Play ``games`` random games in both engines, comparing after every move; returns the
    stones captured and the stones lost to suicide."""
    vertices = _vertices(size)
    captured = suicided = 0
    for game in range(games):
        engine.batch([f"boardsize {size}", "clear_board", "komi 7.5"])
        position = new_game(size, rules)
        while not position.is_over() and position.move_number < 4 * size * size:
            move = _random_move(position, rng, wild)
            color = position.to_play
            mine, theirs = position.captures(color), position.captures(color.opponent)
            engine.command(f"play {color.name.lower()} {move.to_gtp(size)}")
            position = position.play(move)
            captured += position.captures(color) - mine
            suicided += position.captures(color.opponent) - theirs
            if not position.is_over():  # GNU Go has no notion of a finished game
                where = f"game {game} move {position.move_number}"
                _check_agreement(engine, position, vertices, where)
    return captured, suicided


@pytest.mark.parametrize(("size", "games", "ko", "option"), CASES)
def test_random_games_agree_with_gnugo(gnugo: str, size: int, games: int, ko: KoRule, option: str):
    rules = GoRules(ko=ko, suicide_allowed=False, scoring=Scoring.AREA, komi=7.5)
    rng = random.Random(size * 1000 + games + len(option))
    with GnuGo(gnugo, option, "--forbid-suicide") as engine:
        captured, suicided = _play_and_compare(engine, size, games, rules, rng, 0.05)
    assert captured > 0 and suicided == 0


def test_suicide_allowed_agrees_with_gnugo(gnugo: str):
    """``--allow-all-suicide``: suicide of one or more stones is legal (simple ko)."""
    rules = GoRules(ko=KoRule.SIMPLE, suicide_allowed=True, scoring=Scoring.AREA, komi=7.5)
    with GnuGo(gnugo, "--simple-ko", "--allow-all-suicide") as engine:
        captured, suicided = _play_and_compare(engine, 9, 2, rules, random.Random(5), 0.3)
    assert captured > 0 and suicided > 0


@pytest.mark.parametrize("size", range(7, 20))
def test_fixed_handicap_matches_gnugo(gnugo: str, size: int):
    with GnuGo(gnugo) as engine:
        for stones in range(2, max_fixed_handicap(size) + 1):
            engine.batch([f"boardsize {size}", "clear_board"])
            answer = engine.command(f"fixed_handicap {stones}")
            theirs = [Move.from_gtp(v, size).point for v in answer.split()]
            assert sorted(fixed_handicap_points(size, stones)) == sorted(theirs)  # type: ignore
            position = new_game(size, handicap=stones)
            assert set(position.stones(Color.BLACK)) == set(theirs)
            assert position.to_play is Color.WHITE
        engine.batch([f"boardsize {size}", "clear_board"])
        too_many = max_fixed_handicap(size) + 1
        with pytest.raises(Exception, match="handicap"):
            engine.command(f"fixed_handicap {too_many}")
        with pytest.raises(ValueError):
            fixed_handicap_points(size, too_many)


def test_liberty_counts_agree_with_gnugo_countlib(gnugo: str):
    """The rules' liberty count of every stone (``fastpath.liberties``, behind alpha-beta's
    evaluation and the ``libs8`` network inputs) against GNU Go's ``countlib``, along random
    9x9 games; and the ``libs8`` planes, the stones of groups with exactly 1, 2, 3 of them."""
    from imago.games.go import fastpath
    from imago.nn.features import feature_set

    size, rng, checked = 9, random.Random(81), 0
    rules = GoRules(ko=KoRule.SIMPLE, suicide_allowed=False, scoring=Scoring.AREA, komi=7.5)
    counts = np.empty(size * size, dtype=np.int64)
    with GnuGo(gnugo, "--simple-ko", "--forbid-suicide") as engine:
        for game in range(3):
            engine.batch([f"boardsize {size}", "clear_board"])
            position = new_game(size, rules)
            while not position.is_over() and position.move_number < 150:
                move = _random_move(position, rng, 0.05)
                engine.command(f"play {position.to_play.name.lower()} {move.to_gtp(size)}")
                position = position.play(move)
                if position.move_number % 5 or position.is_over():
                    continue
                board = position.board().ravel()
                assert fastpath.liberties(board, size, counts) == fastpath.OK
                planes = feature_set("libs8").encode_states([position])[0, 4:7].reshape(3, -1)
                stones = [Move.play(p) for c in Color for p in position.stones(c)]
                answers = engine.batch([f"countlib {m.to_gtp(size)}" for m in stones])
                for move, answer in zip(stones, answers, strict=True):
                    point = move.point
                    assert point is not None
                    at = point.row * size + point.col
                    assert counts[at] == int(answer), (
                        f"game {game} move {position.move_number}, {move.to_gtp(size)}: GNU Go "
                        f"counts {answer} liberties, imago {counts[at]}\n{position.diagram()}"
                    )
                    assert [int(planes[k, at]) for k in range(3)] == [
                        int(counts[at] == k + 1) for k in range(3)
                    ]
                    checked += 1
    assert checked > 1000
