"""Numba kernel behind :mod:`imago.records.sgf_grammar`: one linear scan of a well-formed file.

The kernel only accepts clean FF[4] syntax. It returns ``IRREGULAR`` at the first thing it does
not expect, and the careful pure-Python parser (which recovers and reports line and column)
reads the file instead. Spans are byte offsets into the input; nothing is decoded here.

All outputs go to one ``int32`` work array, in sections of ``nodes_cap`` (N), ``props_cap``
(P) and ``trees_cap`` (T) entries, in this order: node parent, first property, property count,
move code (N each); identifier start and end, first value, value count, value start and end
(P each); node count at the end of each tree, and the nesting stack (T each).

The move code of a node whose only ``B`` or ``W`` property has one value of 0 or 2 lower-case
letters is ``colour << 10 | column << 5 | row`` (colour 1 for ``B``, 2 for ``W``; letters as
0..25, an empty value as column = row = 31); -1 means no such property, -2 anything else,
and -3 (whatever its moves) that the node has a setup property: ``AB``, ``AW``, ``AE`` or
``PL``, identifiers read as the grammar reads them (FF[3] lower-case letters dropped, an
identifier without capitals upper-cased).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

OK = 0
IRREGULAR = 1
NO_MOVE = -1
OTHER_MOVE = -2
SETUP_NODE = -3
PASS_LETTERS = 31


@numba.njit(cache=True, inline="always")
def _is_space(c: int) -> bool:
    return c == 32 or c == 10 or c == 13 or c == 9 or c == 11 or c == 12


@numba.njit(cache=True, inline="always")
def _is_letter(c: int) -> bool:
    return (65 <= c <= 90) or (97 <= c <= 122)


@numba.njit(cache=True)
def _is_setup(buf: npt.NDArray[np.uint8], i: int, j: int) -> bool:
    """Whether the identifier ``buf[i:j]`` reads as ``AB``, ``AW``, ``AE`` or ``PL``."""
    first = 0
    second = 0
    capitals = 0
    for k in range(i, j):
        c = buf[k]
        if 65 <= c <= 90:
            capitals += 1
            if capitals == 1:
                first = c
            elif capitals == 2:
                second = c
    if capitals == 0 and j == i + 2:
        capitals = 2
        first = buf[i] - 32
        second = buf[i + 1] - 32
    if capitals != 2:
        return False
    if first == 65:  # A
        return second == 66 or second == 87 or second == 69  # B W E
    return first == 80 and second == 76  # P L


@numba.njit(cache=True)
def scan(
    buf: npt.NDArray[np.uint8],
    start: int,
    work: npt.NDArray[np.int32],
    nodes_cap: int,
    props_cap: int,
    trees_cap: int,
) -> tuple[int, int, int, int, int]:
    """Scan ``buf`` from ``start`` (a ``(``); returns (status, nodes, props, values, trees).

    Capacities: nodes <= count(';'), props and values <= count('['), trees and stack
    <= count('(') + 1.
    """
    n = buf.shape[0]
    node_parent = 0
    node_prop_first = nodes_cap
    node_prop_count = 2 * nodes_cap
    node_move = 3 * nodes_cap
    base = 4 * nodes_cap
    ident_start = base
    ident_end = base + props_cap
    value_first = base + 2 * props_cap
    value_count = base + 3 * props_cap
    value_start = base + 4 * props_cap
    value_end = base + 5 * props_cap
    tree_node_end = base + 6 * props_cap
    stack = tree_node_end + trees_cap
    i = start
    depth = 0
    current = -1
    nodes = 0
    props = 0
    values = 0
    trees = 0
    in_node = False
    need_node = False
    while i < n:
        c = buf[i]
        if _is_space(c):
            i += 1
        elif c == 40:  # (
            if need_node or (depth > 0 and current < 0):
                return IRREGULAR, nodes, props, values, trees
            work[stack + depth] = current
            depth += 1
            need_node = True
            in_node = False
            i += 1
        elif c == 41:  # )
            if depth == 0 or need_node:
                return IRREGULAR, nodes, props, values, trees
            depth -= 1
            current = work[stack + depth]
            in_node = False
            i += 1
            if depth == 0:
                work[tree_node_end + trees] = nodes
                trees += 1
                current = -1
        elif c == 59:  # ;
            if depth == 0:
                return IRREGULAR, nodes, props, values, trees
            work[node_parent + nodes] = current
            work[node_prop_first + nodes] = props
            work[node_prop_count + nodes] = 0
            work[node_move + nodes] = NO_MOVE
            current = nodes
            nodes += 1
            in_node = True
            need_node = False
            i += 1
        elif _is_letter(c):
            if not in_node:
                return IRREGULAR, nodes, props, values, trees
            j = i
            while j < n and _is_letter(buf[j]):
                j += 1
            work[ident_start + props] = i
            work[ident_end + props] = j
            work[value_first + props] = values
            color = 0
            if j == i + 1:
                if c == 66:
                    color = 1
                elif c == 87:
                    color = 2
            i = j
            while i < n and _is_space(buf[i]):
                i += 1
            if i >= n or buf[i] != 91:
                return IRREGULAR, nodes, props, values, trees
            count = 0
            while i < n and buf[i] == 91:
                j = i + 1
                while j < n:
                    d = buf[j]
                    if d == 92:
                        j += 2
                    elif d == 93:
                        break
                    else:
                        j += 1
                if j >= n:
                    return IRREGULAR, nodes, props, values, trees
                work[value_start + values] = i + 1
                work[value_end + values] = j
                values += 1
                count += 1
                i = j + 1
                while i < n and _is_space(buf[i]):
                    i += 1
            work[value_count + props] = count
            if _is_setup(buf, work[ident_start + props], work[ident_end + props]):
                work[node_move + current] = SETUP_NODE
            elif color and work[node_move + current] != SETUP_NODE:
                slot = node_move + current
                code = OTHER_MOVE
                first = work[value_start + values - count]
                length = work[value_end + values - count] - first
                if count == 1 and work[slot] == NO_MOVE:
                    if length == 0:
                        code = (color << 10) | (PASS_LETTERS << 5) | PASS_LETTERS
                    elif length == 2:
                        a = buf[first]
                        b = buf[first + 1]
                        if 97 <= a <= 122 and 97 <= b <= 122:
                            code = (color << 10) | ((a - 97) << 5) | (b - 97)
                work[slot] = code
            work[node_prop_count + current] += 1
            props += 1
        else:
            return IRREGULAR, nodes, props, values, trees
    if depth != 0 or trees == 0:
        return IRREGULAR, nodes, props, values, trees
    return OK, nodes, props, values, trees
