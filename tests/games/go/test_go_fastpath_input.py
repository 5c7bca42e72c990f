"""Issue 42: every public kernel of :mod:`imago.games.go.fastpath` refuses input that does not
fit (a short state array, a size the array was not made for, an action off the board, a colour
other than black or white, an ``out`` or ``rng`` array too short) with its documented refusal,
and writes nothing: neither ``s`` nor ``out`` changes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from imago.games.go import fastpath as f
from imago.games.go import new_game

SIZE = 9
NN = SIZE * SIZE
Array = npt.NDArray[np.int64]


def _state() -> Array:
    """A 9x9 state with a few stones (groups, empties and a capture to read)."""
    s = f.new_state(SIZE)
    for action, color in [(40, 1), (41, 2), (31, 1), (49, 2), (39, 1), (32, 2)]:
        assert f.play(s, SIZE, action, color, False) == f.OK
    return s


def _capture_state() -> Array:
    """A 9x9 state where Black's B9 (action 1) captures White's A9 (Black holds A8 and B8,
    White C9): a move :func:`fastpath.self_atari` plays out on its ``work`` array."""
    s = f.new_state(SIZE)
    for action, color in [(9, 1), (0, 2), (10, 1), (2, 2)]:
        assert f.play(s, SIZE, action, color, False) == f.OK
    return s


NO_KEYS = np.empty(0, dtype=np.int64)
BAD_INPUT, NEG, NAN, NO = f.BAD_INPUT, -1, "nan", False


def _refused(kernel: str, value: Any) -> bool:
    if kernel == "child":
        return bool(value.shape[0] == 0 or value[f.header(SIZE) + f.F_STATUS] == f.BAD_INPUT)
    if kernel in ("legal_list", "finish"):
        return bool(value.shape[0] == 0)
    if kernel == "area_score":
        return tuple(value) == (-1, -1)
    if kernel in ("playout", "playouts"):
        return math.isnan(value)
    if kernel in (
        "is_true_eye", "self_atari", "escape_keeps", "nakade_sacrifice", "bad_self_atari",
        "nakade_shape",
    ):  # fmt: skip
        return value is False or value == 0
    if kernel in ("play", "check", "area", "liberties"):
        return bool(value == f.BAD_INPUT)
    return bool(value == -1)


# (kernel, case, call(s, out, rng)): each call is a bad one; `out` has NN + 1 slots, `rng` 1.
Call = Callable[[Array, Array, Array], Any]
SHORT = f.state_length(SIZE) - 1
CASES: list[tuple[str, str, Call]] = [
    ("play", "off the board (writes far past the array before)",
     lambda s, o, r: f.play(s, SIZE, NN + 5, 1, False)),
    ("play", "negative action", lambda s, o, r: f.play(s, SIZE, -3, 1, False)),
    ("play", "colour 3", lambda s, o, r: f.play(s, SIZE, 0, 3, False)),
    ("play", "colour 0", lambda s, o, r: f.play(s, SIZE, 0, 0, False)),
    ("play", "short state", lambda s, o, r: f.play(s[:SHORT], SIZE, 0, 1, False)),
    ("play", "a 19x19 size on a 9x9 array", lambda s, o, r: f.play(s, 19, 100, 1, False)),
    ("play", "size 0", lambda s, o, r: f.play(s, 0, 0, 1, False)),
    ("check", "pass is no point", lambda s, o, r: f.check(s, SIZE, NN, 1, False)),
    ("check", "off the board", lambda s, o, r: f.check(s, SIZE, 10_000, 1, False)),
    ("check", "colour 7", lambda s, o, r: f.check(s, SIZE, 0, 7, False)),
    ("check", "short state", lambda s, o, r: f.check(s[:SHORT], SIZE, 0, 1, False)),
    ("is_true_eye", "off the board", lambda s, o, r: f.is_true_eye(s, SIZE, -1, 1)),
    ("is_true_eye", "colour 9", lambda s, o, r: f.is_true_eye(s, SIZE, 0, 9)),
    ("self_atari", "off the board", lambda s, o, r: f.self_atari(s, SIZE, NN, 1, False, s.copy())),
    ("self_atari", "colour 3", lambda s, o, r: f.self_atari(s, SIZE, 0, 3, False, s.copy())),
    ("self_atari", "work too short, where the move captures",
     lambda s, o, r: f.self_atari(_capture_state(), SIZE, 1, 1, False, o)),
    ("self_atari", "short state",
     lambda s, o, r: f.self_atari(s[:SHORT], SIZE, 48, 2, False, s.copy())),
    ("escape_keeps", "off the board",
     lambda s, o, r: f.escape_keeps(s, SIZE, -2, 1, False, s.copy())),
    ("escape_keeps", "colour 0", lambda s, o, r: f.escape_keeps(s, SIZE, 0, 0, False, s.copy())),
    ("escape_keeps", "work too short", lambda s, o, r: f.escape_keeps(s, SIZE, 0, 1, False, o)),
    ("escape_keeps", "a 19x19 size on a 9x9 array",
     lambda s, o, r: f.escape_keeps(s, 19, 0, 1, False, s.copy())),
    ("nakade_sacrifice", "off the board",
     lambda s, o, r: f.nakade_sacrifice(s, SIZE, NN, 1, False, s.copy())),
    ("nakade_sacrifice", "colour 3",
     lambda s, o, r: f.nakade_sacrifice(s, SIZE, 0, 3, False, s.copy())),
    ("nakade_sacrifice", "work too short",
     lambda s, o, r: f.nakade_sacrifice(s, SIZE, 0, 1, False, o)),
    ("nakade_sacrifice", "short state",
     lambda s, o, r: f.nakade_sacrifice(s[:SHORT], SIZE, 0, 1, False, s.copy())),
    ("bad_self_atari", "off the board",
     lambda s, o, r: f.bad_self_atari(s, SIZE, -1, 1, False, s.copy())),
    ("bad_self_atari", "colour 0",
     lambda s, o, r: f.bad_self_atari(s, SIZE, 0, 0, False, s.copy())),
    ("bad_self_atari", "work too short, where the move captures",
     lambda s, o, r: f.bad_self_atari(_capture_state(), SIZE, 1, 1, False, o)),
    ("bad_self_atari", "a 19x19 size on a 9x9 array",
     lambda s, o, r: f.bad_self_atari(s, 19, 0, 1, False, s.copy())),
    # the unchecked kernel calls any k <= 3 a killable shape without reading a point
    ("nakade_shape", "more points than the array holds",
     lambda s, o, r: f.nakade_shape(o[:0], 2, SIZE)),
    ("nakade_shape", "size 40", lambda s, o, r: f.nakade_shape(o, 3, 40)),
    ("vital_point", "more points than the array holds",
     lambda s, o, r: f.vital_point(o[:2], 6, SIZE)),
    ("vital_point", "no points", lambda s, o, r: f.vital_point(o, 0, SIZE)),
    ("vital_point", "size 1", lambda s, o, r: f.vital_point(o, 3, 1)),
    ("legal_actions", "out too short",
     lambda s, o, r: f.legal_actions(s, SIZE, 1, False, 0, NO_KEYS, o[:NN])),
    ("legal_actions", "colour 3",
     lambda s, o, r: f.legal_actions(s, SIZE, 3, False, 0, NO_KEYS, o)),
    ("legal_actions", "short state",
     lambda s, o, r: f.legal_actions(s[:SHORT], SIZE, 1, False, 0, NO_KEYS, o)),
    ("legal_actions", "a 13x13 size on a 9x9 array",
     lambda s, o, r: f.legal_actions(s, 13, 1, False, 0, NO_KEYS, o)),
    ("legal_actions", "ko mode 5",
     lambda s, o, r: f.legal_actions(s, SIZE, 1, False, 5, NO_KEYS, o)),
    ("sensible_actions", "out too short",
     lambda s, o, r: f.sensible_actions(s, SIZE, 1, False, 0, NO_KEYS, o[:10])),
    ("sensible_actions", "colour -1",
     lambda s, o, r: f.sensible_actions(s, SIZE, -1, False, 0, NO_KEYS, o)),
    ("sensible_actions", "short state",
     lambda s, o, r: f.sensible_actions(s[:50], SIZE, 1, False, 0, NO_KEYS, o)),
    ("legal_list", "colour 3", lambda s, o, r: f.legal_list(s, SIZE, 3, False, 0, NO_KEYS)),
    ("legal_list", "short state",
     lambda s, o, r: f.legal_list(s[:SHORT], SIZE, 1, False, 0, NO_KEYS)),
    ("child", "off the board", lambda s, o, r: f.child(s, SIZE, NN + 5, 1, False, 0, NO_KEYS)),
    ("child", "colour 3", lambda s, o, r: f.child(s, SIZE, 0, 3, False, 0, NO_KEYS)),
    ("child", "short state", lambda s, o, r: f.child(s[:SHORT], SIZE, 0, 1, False, 0, NO_KEYS)),
    ("child", "size 40", lambda s, o, r: f.child(s, 40, 0, 1, False, 0, NO_KEYS)),
    ("random_move", "colour 3", lambda s, o, r: f.random_move(s, SIZE, 3, False, r)),
    ("random_move", "empty rng", lambda s, o, r: f.random_move(s, SIZE, 1, False, r[:0])),
    ("random_move", "short state", lambda s, o, r: f.random_move(s[:SHORT], SIZE, 1, False, r)),
    ("random_move", "a 19x19 size on a 9x9 array",
     lambda s, o, r: f.random_move(s, 19, 1, False, r)),
    ("playout", "empty rng", lambda s, o, r: f.playout(s, SIZE, 7.5, False, 100, r[:0])),
    ("playout", "short state", lambda s, o, r: f.playout(s[:SHORT], SIZE, 7.5, False, 100, r)),
    ("playout", "a 19x19 size on a 9x9 array",
     lambda s, o, r: f.playout(s, 19, 7.5, False, 100, r)),
    ("playouts", "ownership too short",
     lambda s, o, r: f.playouts(s, SIZE, 7.5, False, 2, 100, r, o[: NN - 1])),
    ("playouts", "empty rng",
     lambda s, o, r: f.playouts(s, SIZE, 7.5, False, 2, 100, r[:0], o)),
    ("playouts", "short state",
     lambda s, o, r: f.playouts(s[:SHORT], SIZE, 7.5, False, 2, 100, r, o)),
    ("result_hash", "pass is no point", lambda s, o, r: f.result_hash(s, SIZE, NN, 1)),
    ("result_hash", "off the board", lambda s, o, r: f.result_hash(s, SIZE, NN + 5, 1)),
    ("result_hash", "colour 3", lambda s, o, r: f.result_hash(s, SIZE, 0, 3)),
    ("result_hash", "short state", lambda s, o, r: f.result_hash(s[:SHORT], SIZE, 0, 1)),
    ("history_key", "short state", lambda s, o, r: f.history_key(s[:SHORT], SIZE, 1)),
    ("area", "out too short", lambda s, o, r: f.area(s, SIZE, o[: NN - 1])),
    ("area", "short state", lambda s, o, r: f.area(s[:SHORT], SIZE, o)),
    ("liberties", "out too short", lambda s, o, r: f.liberties(s, SIZE, o[: NN - 1])),
    ("liberties", "board too short", lambda s, o, r: f.liberties(s[: NN - 1], SIZE, o)),
    ("liberties", "size 26", lambda s, o, r: f.liberties(s, 26, o)),
    ("area_score", "short state", lambda s, o, r: f.area_score(s[:SHORT], SIZE)),
    ("area_score", "a 19x19 size on a 9x9 array", lambda s, o, r: f.area_score(s, 19)),
    ("finish", "short state", lambda s, o, r: f.finish(s[:SHORT], SIZE, False, 1, NO_KEYS, True)),
    ("finish", "ko mode 9", lambda s, o, r: f.finish(s, SIZE, False, 9, NO_KEYS, True)),
    ("group_head", "off the board", lambda s, o, r: f.group_head(s, NN, NN + 5)),
    ("group_head", "negative point", lambda s, o, r: f.group_head(s, NN, -1)),
    ("group_head", "short state", lambda s, o, r: f.group_head(s[:SHORT], NN, 40)),
    ("next_stone", "off the board", lambda s, o, r: f.next_stone(s, NN, 10**6)),
    ("next_stone", "a 19x19 nn on a 9x9 array", lambda s, o, r: f.next_stone(s, 361, 40)),
    ("group_size", "off the board", lambda s, o, r: f.group_size(s, NN, NN)),
    ("atari_liberty", "off the board", lambda s, o, r: f.atari_liberty(s, NN, -7)),
    ("atari_liberty", "short state", lambda s, o, r: f.atari_liberty(s[:SHORT], NN, 40)),
    ("empty_at", "past the points", lambda s, o, r: f.empty_at(s, NN, NN + 5)),
    ("empty_at", "negative index", lambda s, o, r: f.empty_at(s, NN, -1)),
    ("empty_at", "short state", lambda s, o, r: f.empty_at(s[:SHORT], NN, 0)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kernel", "call"), [(k, c) for k, _, c in CASES], ids=[f"{k}: {why}" for k, why, _ in CASES]
)
def test_each_public_kernel_refuses_bad_input_and_writes_nothing(kernel: str, call: Call) -> None:
    s = _state()
    out = np.full(NN + 1, -7, dtype=np.int64)
    rng = f.seed_rng(3)
    s0, out0, rng0 = s.copy(), out.copy(), rng.copy()
    assert _refused(kernel, call(s, out, rng))
    assert np.array_equal(s, s0)
    assert np.array_equal(out, out0)
    assert np.array_equal(rng, rng0)


def test_the_table_covers_every_public_kernel_that_indexes_or_writes() -> None:
    covered = {kernel for kernel, _, _ in CASES}
    assert covered == {
        "play", "check", "is_true_eye", "legal_actions", "sensible_actions", "legal_list",
        "child", "random_move", "playout", "playouts", "result_hash", "history_key", "area",
        "area_score", "finish", "group_head", "next_stone", "group_size", "atari_liberty",
        "empty_at", "liberties", "self_atari", "escape_keeps", "nakade_sacrifice",
        "bad_self_atari", "nakade_shape", "vital_point",
    }  # fmt: skip


def test_good_input_still_gets_the_unchecked_kernels_answers() -> None:
    from imago.games.go import _kernels as K

    s = _state()
    out, ref = np.empty(NN + 1, dtype=np.int64), np.empty(NN + 1, dtype=np.int64)
    n = f.legal_actions(s, SIZE, 1, False, 1, NO_KEYS, out)
    assert n == K.legal_actions(s, SIZE, 1, False, 1, NO_KEYS, ref) > 0
    assert np.array_equal(out[:n], ref[:n])
    assert f.area_score(s, SIZE) == K.area_score(s, SIZE)
    assert f.group_head(s, NN, 40) == K.group_head(s, NN, 40)
    assert f.result_hash(s, SIZE, 0, 1) == K.result_hash(s, SIZE, 0, 1)
    assert 0 <= f.random_move(s, SIZE, 1, False, f.seed_rng(1)) <= NN
    assert not math.isnan(f.playout(s.copy(), SIZE, 7.5, False, 400, f.seed_rng(1)))
    t = f.child(s, SIZE, NN, 1, False, 0, NO_KEYS)
    assert t[f.header(SIZE) + f.F_STATUS] == f.OK
    assert f.play(s, SIZE, NN, 1, False) == f.OK


def test_the_capture_state_reaches_the_work_array() -> None:
    s = _capture_state()
    work = np.zeros_like(s)
    assert not f.self_atari(s, SIZE, 1, 1, False, work)  # captures A9: two liberties after
    assert work.any()  # the move was played out on `work`, as the short-work row needs


def test_from_arrays_and_to_arrays_raise_value_error_on_what_does_not_fit() -> None:
    position = new_game(SIZE)
    s = f.to_arrays(position)
    h = f.header(SIZE)
    with pytest.raises(ValueError):
        f.from_arrays(s[:-1], position)
    with pytest.raises(ValueError):
        f.from_arrays(s.astype(np.int32), position)
    for field, value in [(f.F_TO_PLAY, 3), (f.F_NEMPTY, NN + 1), (f.F_LAST, NN + 1)]:
        bad = s.copy()
        bad[h + field] = value
        with pytest.raises(ValueError):
            f.from_arrays(bad, position)
    with pytest.raises(ValueError):
        f.to_arrays("not a position")  # type: ignore[arg-type]
    assert f.play(s, SIZE, 40, 1, False) == f.OK
    assert f.from_arrays(s, position).previous is position
