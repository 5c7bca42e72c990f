"""The SGF grammar layer: tokens, recovery, positions, linear time on hostile input."""

from __future__ import annotations

import contextlib
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imago.records import sgf_grammar
from imago.records.sgf_grammar import SgfError, identifier, parse, parse_with_positions


def nodes_of(data: bytes) -> list[tuple[int, dict[str, list[bytes]]]]:
    result = parse(data)
    assert len(result.trees) == 1
    tree = result.trees[0]
    return list(zip(tree.parents, tree.nodes, strict=True))


def test_a_simple_tree_with_variations() -> None:
    data = b"(;GM[1]SZ[9];B[ee](;W[ce];B[dd])(;W[gc]C[other \\] side]))"
    assert nodes_of(data) == [
        (-1, {"GM": [b"1"], "SZ": [b"9"]}),
        (0, {"B": [b"ee"]}),
        (1, {"W": [b"ce"]}),
        (2, {"B": [b"dd"]}),
        (1, {"W": [b"gc"], "C": [b"other \\] side"]}),
    ]


def test_fast_and_careful_parsers_agree() -> None:
    data = b"(;FF[4]AB[aa][bb]\n;B[cc]C[a\\\\]\n(;W[]LB[aa:x][bb:y])(;W[tt]))\n(;GM[1];B[aa])"
    fast = parse(data)
    careful = parse_with_positions(data)
    assert not fast.errors and not careful.errors
    assert [(t.nodes, t.parents) for t in fast.trees] == [
        (t.nodes, t.parents) for t in careful.trees
    ]
    assert fast.trees[0].offsets is None
    expected = [data.index(part) for part in (b";FF", b";B", b";W[]", b";W[tt]")]
    assert careful.trees[0].offsets == expected


@pytest.mark.parametrize(
    ("raw", "name"),
    [(b"B", "B"), (b"AddBlack", "AB"), (b"CoPyright", "CP"), (b"VieW", "VW"), (b"b", "B")],
)
def test_ff3_identifiers_drop_lower_case(raw: bytes, name: str) -> None:
    assert identifier(raw) == name


def test_several_games_in_one_file() -> None:
    result = parse(b"junk before (;GM[1];B[aa])\n(;GM[1];W[bb])\n")
    assert [tree.nodes[1] for tree in result.trees] == [{"B": [b"aa"]}, {"W": [b"bb"]}]


@pytest.mark.parametrize(
    ("data", "message", "line", "column"),
    [
        (b"(;GM[1]\n;B[aa]C[never closed", "missing ']'", 2, 8),
        (b"(;GM[1];B[aa]", "missing ')'", 1, 14),
        (b"(;GM[1]\n  ;B[aa]_W[bb])", "unexpected character '_'", 2, 9),
        (b"(;GM[1]\n  ;B[aa]]W[bb])", "unescaped ']'", 2, 8),
        (b"(GM[1];B[aa])", "missing ';'", 1, 2),
        (b"hello world", "no SGF game tree", 1, 1),
        (b"(;GM[1]\n;B)", "has no value", 2, 2),
    ],
)
def test_errors_have_line_and_column(data: bytes, message: str, line: int, column: int) -> None:
    lenient = parse(data)
    assert lenient.errors, "a lenient parse lists the problem"
    first = lenient.errors[0]
    assert message in first.message
    assert (first.line, first.column) == (line, column)
    with pytest.raises(SgfError) as raised:
        parse(data, strict=True)
    assert (raised.value.line, raised.value.column) == (line, column)


def test_recovers_what_it_can() -> None:
    result = parse(b"(;GM[1]PW[[\\]=[]]\n;B[aa];W[bb]")
    assert [str(e.message) for e in result.errors] == [
        "unescaped ']' inside a value",
        "missing ')' at the end of the file",
    ]
    tree = result.trees[0]
    assert tree.nodes[0]["PW"] == [b"[\\]=[\\]"]
    assert tree.nodes[2] == {"W": [b"bb"]}


def test_an_unescaped_bracket_before_a_property_is_junk_not_a_value() -> None:
    result = parse(b"(;GN[a [b] c ]\nPB[x];B[aa])")
    assert result.trees[0].nodes[0]["PB"] == [b"x"]


def test_deep_nesting_needs_no_recursion() -> None:
    depth = 20_000
    data = b"(;GM[1]" + b"(;B[aa]" * depth + b")" * (depth + 1)
    result = parse(data)
    assert not result.errors
    assert result.trees[0].parents[-1] == depth - 1
    careful = parse_with_positions(data)
    assert careful.trees[0].parents == result.trees[0].parents


def _seconds(data: bytes) -> float:
    """The least process time of three parses (the least is the least disturbed by the load)."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        parse(data)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize(
    ("head", "unit", "tail"),
    [
        (b"", b"[", b""),
        (b"", b"(", b""),
        (b"", b"(;", b""),
        (b"", b")", b""),
        (b"", b"(;A", b""),
        (b"(;B[", b"\\", b"\\"),
        (b"(;C[", b"]x", b""),
        (b"(;C[a]", b" ]", b""),
        (b"(;", b"AB", b""),
    ],
)
def test_hostile_input_is_read_in_linear_time(head: bytes, unit: bytes, tail: bytes) -> None:
    # ten times the input in less than thirty times the time (a quadratic path takes a hundred
    # times), from an input long enough for the process clock to measure (5 ms or more)
    count = 15_000
    while (small := _seconds(head + unit * count + tail)) < 0.005 and count < 4_000_000:
        count *= 4
    large = _seconds(head + unit * (10 * count) + tail)
    assert large < 30 * small, (count, small, large)
    assert isinstance(parse(head + unit * count + tail).errors, list)


@settings(max_examples=300, deadline=2000)
@given(st.binary(max_size=400))
def test_fuzz_bytes_never_crash(data: bytes) -> None:
    result = parse(data)
    for tree in result.trees:
        assert len(tree.nodes) == len(tree.parents)
        assert all(-1 <= p < i for i, p in enumerate(tree.parents))
    with contextlib.suppress(SgfError):
        parse(data, strict=True)


_SGFISH = st.lists(
    st.sampled_from(
        ["(", ")", ";", "[", "]", "\\", "B", "W", "AB", "C", "aa", "tt", "\n", " ", ":", "x"]
    ),
    max_size=120,
).map(lambda parts: "".join(parts).encode())


@settings(max_examples=400, deadline=2000)
@given(_SGFISH)
def test_fuzz_sgf_like_text_never_crashes(data: bytes) -> None:
    result = parse(data)
    careful = parse_with_positions(data)
    if not result.errors:
        assert [(t.nodes, t.parents) for t in result.trees] == [
            (t.nodes, t.parents) for t in careful.trees
        ]
    for error in careful.errors:
        assert error.line >= 1 and error.column >= 1


def test_kernel_status_codes_are_distinct() -> None:
    from imago.records import _sgf_kernels

    assert _sgf_kernels.OK != _sgf_kernels.IRREGULAR
    assert sgf_grammar.tree_start(b"xx (;") == 3
