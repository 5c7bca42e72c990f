"""Replay every real 9x9 game of the OGS corpus (``strict_ogs_games.tar.gz``) under simple ko.

No game may be rejected, and every game that ends by two passes is scored. For a sample of
those, imago's count (:func:`imago.games.go.count`, under the game's rules and komi) must name
the same winner as the result the players accepted, nearly always (``bench/scoring_corpus.py``
and ``imago bench go.scoring`` measure it on every such game).

The SGF reader here is a quick ad-hoc one (main line only); imago's real reader is tested in
``tests/records``.
"""

from __future__ import annotations

import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from imago.core import Color, Move
from imago.games.go import GoRules, KoRule, Scoring, count, new_game

pytestmark = pytest.mark.slow

TOKEN = re.compile(r"\(|\)|;|([A-Za-z]+)\s*((?:\[(?:\\.|[^\]\\])*\]\s*)+)", re.S)
VALUE = re.compile(r"\[((?:\\.|[^\]\\])*)\]", re.S)


@dataclass
class Record:
    name: str
    size: int
    komi: float
    rules: str
    result: str
    black: list[str]
    white: list[str]
    moves: list[tuple[Color, str]]


def read_main_line(name: str, text: str) -> Record:
    """Root properties and the main line's moves (the first variation everywhere)."""
    props: dict[str, list[str]] = {}
    moves: list[tuple[Color, str]] = []
    depth = 0
    nodes = 0
    for match in TOKEN.finditer(text):
        token = match.group(0)
        if token == "(":
            depth += 1
        elif token == ")":
            if nodes:
                break  # the end of the main line
        elif token == ";":
            nodes += 1
        else:
            ident, values = match.group(1), VALUE.findall(match.group(2))
            if ident in ("B", "W"):
                moves.append((Color.BLACK if ident == "B" else Color.WHITE, values[0]))
            elif nodes == 1:
                props[ident] = values
    komi = float(props.get("KM", ["0"])[0] or 0)
    return Record(
        name,
        int(props.get("SZ", ["19"])[0]),
        round(komi * 2) / 2,
        props.get("RU", [""])[0].lower(),
        props.get("RE", [""])[0],
        _expand(props.get("AB", [])),
        _expand(props.get("AW", [])),
        moves,
    )


def _expand(values: list[str]) -> list[str]:
    out = []
    for value in values:
        if ":" in value:  # compressed point list
            a, b = value.split(":")
            for col in range(ord(a[0]), ord(b[0]) + 1):
                for row in range(ord(a[1]), ord(b[1]) + 1):
                    out.append(chr(col) + chr(row))
        else:
            out.append(value)
    return out


def records(path: Path) -> Iterator[Record]:
    with tarfile.open(path) as archive:
        for member in archive:
            if member.isfile() and member.name.endswith(".sgf"):
                handle = archive.extractfile(member)
                assert handle is not None
                text = handle.read().decode("utf-8", errors="replace")
                yield read_main_line(member.name, text)


def test_replay_strict_ogs_games(data_dir: Path):
    path = data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz"
    if not path.exists():
        pytest.skip("strict_ogs_games.tar.gz is not present")
    games = moves = ended_by_passes = resumed = 0
    sample_agree = sample_total = 0
    for record in records(path):
        assert record.size == 9, record.name
        rules = GoRules(ko=KoRule.SIMPLE, scoring=Scoring.AREA, komi=record.komi)
        position = new_game(record.size, rules)
        if record.black or record.white:
            position = position.with_setup(
                black=[Move.from_sgf(v, 9).point for v in record.black],  # type: ignore[misc]
                white=[Move.from_sgf(v, 9).point for v in record.white],  # type: ignore[misc]
            )
        for color, value in record.moves:
            move = Move.from_sgf(value, record.size)
            if position.is_over():  # OGS lets players resume after two passes
                if move.is_pass:
                    continue  # a third pass: still finished
                resumed += 1
                position = position.resume()
            try:
                position = position.play(move, color)
            except ValueError as error:
                pytest.fail(f"{record.name} move {position.move_number + 1}: {error}")
            moves += 1
        games += 1
        tail = record.moves[-2:]
        if len(tail) == 2 and all(Move.from_sgf(v, 9).is_pass for _, v in tail):
            ended_by_passes += 1
            assert position.is_over(), record.name
            outcome = position.outcome()
            assert outcome is not None and outcome.black_score is not None, record.name
            counted = record.result[:2] in ("B+", "W+") and record.result[2:3].isdigit()
            if sample_total < 120 and counted:
                territory = record.rules in ("japanese", "korean")
                scoring = Scoring.TERRITORY if territory else Scoring.AREA
                estimate = count(position, handicap=0 if territory else len(record.black))
                sample_total += 1
                sample_agree += estimate.score(scoring).result()[:1] == record.result[:1]
    print(
        f"{games} games, {moves} moves, {ended_by_passes} ended by passes, {resumed} resumed, "
        f"imago's count agrees with the accepted result on {sample_agree}/{sample_total}"
    )
    assert games == 6792
    assert moves > 250_000
    assert ended_by_passes > 500
    assert sample_total == 120
    assert sample_agree / sample_total >= 0.95, (sample_agree, sample_total)
