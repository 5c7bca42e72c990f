"""Table-driven rules tests written as ASCII diagrams (X black, O white, . empty; top row first).

Each case: a start diagram, the side to move, moves as GTP vertices, and either the diagram and
captures after them or the reason the last move is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from imago.core import Color, IllegalMoveError, IllegalReason, InvalidMoveError, Move, Point
from imago.games.go import (
    GoPosition,
    GoRules,
    KoRule,
    Scoring,
    StoneStatus,
    area_counts,
    final_status,
    new_game,
    score,
    territory_counts,
)

SIMPLE = GoRules(ko=KoRule.SIMPLE, komi=7.5)
POSITIONAL = GoRules(ko=KoRule.POSITIONAL_SUPERKO, komi=7.5)
SITUATIONAL = GoRules(ko=KoRule.SITUATIONAL_SUPERKO, komi=7.5)
SUICIDE_OK = GoRules(ko=KoRule.SIMPLE, suicide_allowed=True)
TROMP_TAYLOR = GoRules.preset("tromp-taylor")


def norm(diagram: str) -> str:
    rows = [" ".join(line.replace(" ", "")) for line in diagram.strip().splitlines()]
    return "\n".join(row for row in rows if row)


@dataclass
class Case:
    name: str
    before: str
    moves: list[str]
    after: str | None = None  # None: the last move must be refused
    captures: tuple[int, int] = (0, 0)  # by black, by white
    refused: IllegalReason | None = None
    rules: GoRules = SIMPLE
    to_play: Color = Color.BLACK
    extra: dict[str, object] = field(default_factory=dict)


CASES = [
    Case(
        "single stone capture",
        """
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
        """,
        ["C2"],
        """
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
        """,
        captures=(1, 0),
    ),
    Case(
        "three-stone edge group",
        """
        . . . . .
        . . . . .
        . . . . .
        X X . . .
        O O O X .
        """,
        ["C2"],
        """
        . . . . .
        . . . . .
        . . . . .
        X X X . .
        . . . X .
        """,
        captures=(3, 0),
    ),
    Case(
        "two groups at once",
        """
        X O . O X
        . X . X .
        . . . . .
        . . . . .
        . . . . .
        """,
        ["C5"],
        """
        X . X . X
        . X . X .
        . . . . .
        . . . . .
        . . . . .
        """,
        captures=(2, 0),
    ),
    Case(
        "capture rescues a stone in atari (no suicide)",
        """
        . O X . .
        O X . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        ["A5"],
        """
        X . X . .
        O X . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        captures=(1, 0),
    ),
    Case(
        "snapback",
        """
        . . . . .
        . . . . .
        X X X X .
        O O O X .
        . . X X .
        """,
        ["A1", "B1", "A1"],
        """
        . . . . .
        . . . . .
        X X X X .
        . . . X .
        X . X X .
        """,
        captures=(4, 1),
    ),
    Case(
        "suicide of one stone is refused",
        """
        . . . . .
        . . . . .
        . . . . .
        . O . . .
        O . O . .
        """,
        ["B1"],
        refused=IllegalReason.SUICIDE,
    ),
    Case(
        "suicide of two stones is refused",
        """
        . . . . .
        . . . . .
        . . . . .
        O O . . .
        X . O . .
        """,
        ["B1"],
        refused=IllegalReason.SUICIDE,
    ),
    Case(
        "suicide allowed: the stone leaves the board, a prisoner for White",
        """
        . . . . .
        . . . . .
        . . . . .
        . O . . .
        O . O . .
        """,
        ["B1"],
        """
        . . . . .
        . . . . .
        . . . . .
        . O . . .
        O . O . .
        """,
        captures=(0, 1),
        rules=SUICIDE_OK,
    ),
    Case(
        "multi-stone suicide allowed (Tromp-Taylor)",
        """
        . . . . .
        . . . . .
        . . . . .
        O O . . .
        X . O . .
        """,
        ["B1"],
        """
        . . . . .
        . . . . .
        . . . . .
        O O . . .
        . . O . .
        """,
        captures=(0, 2),
        rules=TROMP_TAYLOR,
    ),
    Case(
        "single-stone suicide repeats the position: superko under Tromp-Taylor",
        """
        . . . . .
        . . . . .
        . . . . .
        . O . . .
        O . O . .
        """,
        ["B1"],
        refused=IllegalReason.SUPERKO,
        rules=TROMP_TAYLOR,
    ),
    Case(
        "ko: the immediate retake is refused",
        """
        . . . . .
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        """,
        ["C3", "B3"],
        refused=IllegalReason.KO,
    ),
    Case(
        "ko: retaking after a threat and its answer",
        """
        . . . . .
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        """,
        ["C3", "E5", "E1", "B3"],
        """
        . . . . O
        . X O . .
        X O . O .
        . X O . .
        . . . . X
        """,
        captures=(1, 1),
    ),
]

TRIPLE_KO = """
. X O . . . X O .
X O . O . X O . O
. X O . . . X O .
. . . . . . . . .
. X O . . . . . .
X . X O . . . . .
. X O . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
TRIPLE_KO_CYCLE = ["C8", "B4", "H8", "B8", "C4", "G8"]

SEND_TWO_RETURN_ONE = """
. X . X .
O O X . .
. . . . .
. . . . .
. . . . .
"""
SEND_TWO_MOVES = ["A5", "C5", "B5"]

CASES += [
    Case(
        "triple ko: simple ko lets the cycle repeat",
        TRIPLE_KO,
        TRIPLE_KO_CYCLE,
        norm(TRIPLE_KO),
        captures=(3, 3),
    ),
    Case(
        "triple ko: positional superko refuses the repeat",
        TRIPLE_KO,
        TRIPLE_KO_CYCLE,
        refused=IllegalReason.SUPERKO,
        rules=POSITIONAL,
    ),
    Case(
        "triple ko: situational superko refuses it too",
        TRIPLE_KO,
        TRIPLE_KO_CYCLE,
        refused=IllegalReason.SUPERKO,
        rules=SITUATIONAL,
    ),
    Case(
        "sending two returning one: legal under simple ko",
        SEND_TWO_RETURN_ONE,
        SEND_TWO_MOVES,
        norm(SEND_TWO_RETURN_ONE),
        captures=(1, 2),
    ),
    Case(
        "sending two returning one: positional superko refuses the return",
        SEND_TWO_RETURN_ONE,
        SEND_TWO_MOVES,
        refused=IllegalReason.SUPERKO,
        rules=POSITIONAL,
    ),
    Case(
        "sending two returning one: situational superko allows it (White to move now)",
        SEND_TWO_RETURN_ONE,
        SEND_TWO_MOVES,
        norm(SEND_TWO_RETURN_ONE),
        captures=(1, 2),
        rules=SITUATIONAL,
    ),
]


def start(case: Case) -> GoPosition:
    return GoPosition.from_diagram(case.before, case.to_play, case.rules)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rules_table(case: Case):
    position = start(case)
    for text in case.moves[:-1]:
        position = position.play(position.parse_move(text))
    last = position.parse_move(case.moves[-1])
    if case.refused is not None:
        before = (position.diagram(), position.key, position.to_play, position.move_number)
        assert not position.is_legal(last)
        with pytest.raises(IllegalMoveError) as info:
            position.play(last)
        assert info.value.reason is case.refused
        assert (position.diagram(), position.key, position.to_play, position.move_number) == before
        return
    assert position.is_legal(last)
    position = position.play(last)
    assert position.diagram() == norm(case.after or "")
    assert (position.captures(Color.BLACK), position.captures(Color.WHITE)) == case.captures


def test_superko_cycle_is_the_same_position_under_simple_ko():
    position = GoPosition.from_diagram(TRIPLE_KO, rules=SIMPLE)
    first = position.key
    for text in TRIPLE_KO_CYCLE:
        position = position.play(position.parse_move(text))
    assert position.key == first
    assert position.to_play is Color.BLACK


def test_off_board_and_game_over_errors_change_nothing():
    position = new_game(9)
    with pytest.raises(InvalidMoveError):
        position.play(Move.play(Point(9, 0)))
    with pytest.raises(InvalidMoveError):
        position.parse_move("K10")
    over = position.play(Move.PASS).play(Move.PASS)
    assert over.is_over() and over.legal_moves() == ()
    with pytest.raises(IllegalMoveError) as info:
        over.play(Move.play(Point(0, 0)))
    assert info.value.reason is IllegalReason.GAME_OVER
    occupied = position.play(Move.play(Point(4, 4)))
    with pytest.raises(IllegalMoveError) as info:
        occupied.play(Move.play(Point(4, 4)))
    assert info.value.reason is IllegalReason.OCCUPIED


def test_resignation_ends_the_game():
    position = new_game(9).play(Move.play(Point(2, 2)))
    done = position.play(Move.RESIGN)
    assert done.is_over() and done.resigned is Color.WHITE
    outcome = done.outcome()
    assert outcome is not None and outcome.result() == "B+R"


def test_play_out_of_turn():
    position = new_game(5)
    twice = position.play(Move.play(Point(0, 0))).play(Move.play(Point(1, 1)), Color.BLACK)
    assert set(twice.stones(Color.BLACK)) == {Point(0, 0), Point(1, 1)}
    assert twice.to_play is Color.WHITE


# -- handicap ---------------------------------------------------------------------------------
HANDICAPS = [
    (
        9,
        2,
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . X . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
    ),
    (
        9,
        5,
        """
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . X . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . . . . . .
        . . X . . . X . .
        . . . . . . . . .
        . . . . . . . . .
        """,
    ),
    (
        13,
        9,
        """
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . X . . X . . X . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . X . . X . . X . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . X . . X . . X . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        """,
    ),
    (
        19,
        6,
        "\n".join(
            " ".join(
                "X" if (r, c) in {(3, 3), (3, 15), (9, 3), (9, 15), (15, 3), (15, 15)} else "."
                for c in range(19)
            )
            for r in range(19)
        ),
    ),
]


@pytest.mark.parametrize(("size", "stones", "diagram"), HANDICAPS)
def test_fixed_handicap_diagrams(size: int, stones: int, diagram: str):
    position = new_game(size, handicap=stones)
    assert position.diagram() == norm(diagram)
    assert position.to_play is Color.WHITE and position.move_number == 0


def test_handicap_errors():
    with pytest.raises(ValueError):
        new_game(9, handicap=10)
    with pytest.raises(ValueError):
        new_game(6, handicap=2)
    with pytest.raises(ValueError):
        new_game(1)
    with pytest.raises(ValueError):
        new_game(26)


def test_free_handicap_by_setup():
    points = [Point(0, 0), Point(4, 4), Point(8, 8)]
    position = new_game(9).with_setup(black=points, to_play=Color.WHITE)
    assert position.stones(Color.BLACK) == points and position.to_play is Color.WHITE
    assert (
        position.key
        == new_game(9, handicap=0).with_setup(black=reversed(points), to_play=Color.WHITE).key
    )


# -- scoring ----------------------------------------------------------------------------------
SEKI = """
. X . O . O X
X X O O O O X
O O X X X X X
. O X . . . .
O O X . . . .
. O X . . . .
. O X . . . .
"""
DAME = """
. X . O .
. X . O .
. X . O .
. X . O .
. X . O .
"""
DEAD_WHITE = """
. X . O .
. X . O .
O X . O .
. X . O .
. X . O .
"""


def finished(diagram: str, rules: GoRules) -> GoPosition:
    position = GoPosition.from_diagram(diagram, rules=rules)
    return position.play(Move.PASS).play(Move.PASS)


SCORES = [
    # diagram, dead stones, komi, area (b, w), territory (b, w), area result, territory result
    (SEKI, [], 7.5, (31, 17), (16, 3), "B+6.5", "B+5.5"),
    (DAME, [], 0.0, (10, 10), (5, 5), "0", "0"),
    (DEAD_WHITE, [], 0.5, (5, 11), (0, 5), "W+6.5", "W+5.5"),
    (DEAD_WHITE, [Point(2, 0)], 0.5, (10, 10), (6, 5), "W+0.5", "B+0.5"),
]


@pytest.mark.parametrize(
    ("diagram", "dead", "komi", "area", "territory", "by_area", "by_territory"), SCORES
)
def test_scores(diagram, dead, komi, area, territory, by_area, by_territory):
    area_rules = GoRules(scoring=Scoring.AREA, komi=komi)
    territory_rules = GoRules(scoring=Scoring.TERRITORY, ko=KoRule.SIMPLE, komi=komi)
    position = finished(diagram, area_rules)
    assert area_counts(position, dead) == area
    assert score(position, dead).result() == by_area
    position = finished(diagram, territory_rules)
    assert territory_counts(position, dead) == territory
    assert score(position, dead).result() == by_territory
    if not dead:
        outcome = position.outcome()
        assert outcome is not None and outcome.result() == by_territory


def test_seki_status():
    position = finished(SEKI, GoRules())
    status = final_status(position, [])
    seki = {
        Point(0, 1),
        Point(1, 0),
        Point(1, 1),
        Point(0, 3),
        Point(1, 2),
        Point(1, 3),
        Point(1, 4),
        Point(1, 5),
        Point(0, 5),
    }
    assert {p for p, s in status.items() if s is StoneStatus.SEKI} == seki
    assert all(s is StoneStatus.ALIVE for p, s in status.items() if p not in seki)
    dead = final_status(finished(DEAD_WHITE, GoRules()), [Point(2, 0)])
    assert dead[Point(2, 0)] is StoneStatus.DEAD and dead[Point(2, 1)] is StoneStatus.ALIVE


@pytest.mark.parametrize("size", range(2, 26))
def test_every_board_size(size: int):
    position = new_game(size)
    assert len(position.legal_moves()) == size * size + 1
    corner = Move.play(Point(size - 1, size - 1))
    assert position.format_move(corner) == Move.from_action(size * size - 1, size).to_gtp(size)
    after = position.play(corner).play(Move.play(Point(0, 0)))
    assert after.move_number == 2 and after.to_play is Color.BLACK


PRESETS = [
    ("chinese", KoRule.POSITIONAL_SUPERKO, False, Scoring.AREA, 7.5),
    ("japanese", KoRule.SIMPLE, False, Scoring.TERRITORY, 6.5),
    ("tromp-taylor", KoRule.POSITIONAL_SUPERKO, True, Scoring.AREA, 7.5),
    ("aga", KoRule.SITUATIONAL_SUPERKO, False, Scoring.AREA, 7.5),
    ("nz", KoRule.SITUATIONAL_SUPERKO, True, Scoring.AREA, 7.0),
    ("computer", KoRule.POSITIONAL_SUPERKO, False, Scoring.AREA, 7.5),
]


@pytest.mark.parametrize(("name", "ko", "suicide", "scoring", "komi"), PRESETS)
def test_rule_presets(name: str, ko: KoRule, suicide: bool, scoring: Scoring, komi: float):
    rules = GoRules.preset(name)
    assert (rules.ko, rules.suicide_allowed, rules.scoring, rules.komi) == (
        ko,
        suicide,
        scoring,
        komi,
    )


def test_rules_validation():
    assert GoRules() == GoRules.preset("computer")
    with pytest.raises(ValueError):
        GoRules.preset("klingon")
    with pytest.raises(ValueError):
        GoRules(komi=6.3)
    assert GoRules(komi=6).with_komi(0.5).komi == 0.5
