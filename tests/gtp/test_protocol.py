"""GTP 2 text handling, table-driven from the specification (section 3)."""

from __future__ import annotations

import pytest

from imago.gtp.protocol import Command, CommandTable, failure, parse_command, preprocess, success


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("", None),
        ("   \t  ", None),
        ("# only a comment", None),
        ("\x01\x02\x7f", None),
        ("name", Command("name")),
        ("name\n", Command("name")),
        ("name\r\n", Command("name")),
        ("12 name", Command("name", (), 12)),
        ("  7   play  black\tD4  # my move", Command("play", ("black", "D4"), 7)),
        ("play bl\x00ack d4", Command("play", ("black", "d4"))),
        ("pl\x1bay b d4", Command("play", ("b", "d4"))),
        ("3", Command("", (), 3)),
        ("-3 name", Command("-3", ("name",))),
        ("1.5 name", Command("1.5", ("name",))),
        ("\u0663 name", Command("\u0663", ("name",))),  # a non-ASCII digit is not an id
        ("komi 6.5#comment", Command("komi", ("6.5",))),
    ],
)
def test_parse_command(line: str, expected: Command | None):
    assert parse_command(line) == expected


def test_preprocess_keeps_nothing_after_a_hash():
    assert preprocess("a b # c # d") == "a b"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (success(None), "=\n\n"),
        (success(5), "=5\n\n"),
        (success(5, "D4"), "=5 D4\n\n"),
        (success(None, "a\n\nb\n"), "= a\nb\n\n"),  # no empty line inside a response
        (success(None, "\nboard"), "=\nboard\n\n"),  # showboard starts on its own line
        (failure(None, "unknown command"), "? unknown command\n\n"),
        (failure(9, "illegal move"), "?9 illegal move\n\n"),
    ],
)
def test_responses(response: str, expected: str):
    assert response == expected


def test_command_table_by_game():
    table: CommandTable[object] = CommandTable()
    table.register("both")(1)
    table.register("go_only", games=("go",))(2)
    assert table.names("go") == ["both", "go_only"]
    assert table.names("othello") == ["both"]
    assert table.get("go_only", "othello") is None
    with pytest.raises(ValueError):
        table.register("both")(3)
