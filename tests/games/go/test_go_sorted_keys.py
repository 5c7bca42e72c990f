"""The one binary search of the Go kernels (``_lower_bound``) against numpy's
``searchsorted``, and the sorted-key helpers built on it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from imago.games.go import _kernels as K

keys = st.lists(st.integers(-(2**63), 2**63 - 1), max_size=300)
probes = st.integers(-(2**63), 2**63 - 1)


@settings(deadline=None)  # the first example compiles the kernels
@given(keys, probes, st.integers(0, 5))
def test_lower_bound_is_searchsorted_left_at_any_offset(values, key, pad):
    # ``pad`` junk entries on both sides: the search must stay inside a[at : at + n]
    data = np.sort(np.array(values, dtype=np.int64))
    junk = np.full(pad, np.iinfo(np.int64).max, dtype=np.int64)
    a = np.concatenate([junk[::-1] * -1 - 1, data, junk])
    for probe in (key, *data[:3].tolist(), *data[-3:].tolist()):
        expected = pad + int(np.searchsorted(data, probe, side="left"))
        assert K._lower_bound(a, pad, len(data), probe) == expected
        assert K._contains_at(a, pad, len(data), probe) == (probe in set(data.tolist()))


@settings(deadline=None)
@given(keys, probes)
def test_insert_sorted_keeps_the_keys_sorted_and_unique(values, key):
    unique = np.unique(np.array(values, dtype=np.int64))
    out = K.insert_sorted(unique, key)
    assert out.tolist() == sorted(set(unique.tolist()) | {key})
    assert K.contains(out, key)


def test_lower_bound_table():
    #   index:   0   1   2   3   4
    a = np.array([2, 4, 4, 8, 16], dtype=np.int64)
    for key, first in [(1, 0), (2, 0), (3, 1), (4, 1), (5, 3), (16, 4), (17, 5)]:
        assert K._lower_bound(a, 0, 5, key) == first, key
    assert K._lower_bound(a, 2, 0, 99) == 2  # an empty range: its start
    assert K._lower_bound(a, 3, 1, 8) == 3 and K._lower_bound(a, 3, 1, 9) == 4
