"""SGF grammar: bytes in, raw game trees out. Knows nothing of games, and of property meanings
only what one shortcut needs (below).

The first layer of the SGF stack (grammar -> :mod:`~imago.records.sgf_properties` ->
:mod:`~imago.records.sgf`), in the manner of sgfmill's ``sgf_grammar``. It follows the FF[4]
EBNF::

    Collection = GameTree { GameTree }
    GameTree   = "(" Sequence { GameTree } ")"
    Sequence   = Node { Node }
    Node       = ";" { Property }
    Property   = PropIdent PropValue { PropValue }
    PropIdent  = UcLetter { UcLetter }          (FF[3]: lower-case letters are ignored)
    PropValue  = "[" CValueType "]"

A game tree comes out flat: nodes in document order, each a ``dict`` from property identifier
to its raw (still escaped, still encoded) byte values, with the index of its parent. Parents
always come before their children, so building a tree from it needs no recursion, however
deep the file nests (OGS wraps every move in its own variation).

Two parsers share this output. The fast one tokenises the whole file with one regular
expression and gives up at the first irregularity; the careful one then walks the bytes with
positions, recovers from damage (junk, missing ``;`` / ``]`` / ``)``, unescaped ``]``) and
records each problem as an :class:`SgfError` with line and column. Both run in linear time.

Where the layering bends, on purpose: the fast scan (:mod:`~imago.records._sgf_kernels`) also
writes a *move code* per node, which knows four things of the properties layer above: that
``B`` and ``W`` are moves written as two letters (or nothing, a pass), and that ``AB``, ``AW``,
``AE`` and ``PL`` set a position up. The game layer (:mod:`~imago.records.sgf`) replays a
game from these codes without building one property map per node, which is most of why reading
and replaying the OGS corpus runs at about 3.8 times sgfmill's reading alone
(``imago bench records.sgf``). The codes are only a shortcut: every node's map is still there
on demand, the careful parser writes none, and the layers above read the properties whenever
a code says "something else" (``-2``) or "setup" (``-3``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from imago.core.errors import ImagoError

RawNode = dict[str, list[bytes]]
"""Property identifier -> raw values (bytes between ``[`` and ``]``, escapes kept)."""


class SgfError(ImagoError, ValueError):
    """A problem in an SGF file, with the 1-based ``line`` and ``column`` where it is."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        self.message = message
        self.line = line
        self.column = column
        where = f"line {line}, column {column}: " if line else ""
        super().__init__(f"{where}{message}")


class RawTree:
    """One top-level game tree, flattened: node ``i`` has parent ``parents[i]`` (-1: root).

    ``nodes[i]`` is the node's property map. ``offsets[i]`` is the byte offset of node ``i``'s
    ``;`` when the careful parser read the file (``None`` after the fast scan, which keeps no
    positions). After the fast scan, ``move_codes[i]`` and ``prop_counts[i]`` describe the node
    without building its map (see :mod:`~imago.records._sgf_kernels`), and maps, like these
    lists, are built on demand from the scan's arrays.
    """

    __slots__ = ("_columns", "_nodes", "_parents", "offsets")

    def __init__(
        self,
        nodes: list[RawNode] | None = None,
        parents: list[int] | None = None,
        offsets: list[int] | None = None,
    ) -> None:
        self._nodes = [] if nodes is None else nodes
        self._parents: list[int] | None = [] if parents is None else parents
        self.offsets = offsets
        self._columns: _Columns | None = None

    @property
    def parents(self) -> list[int]:
        """The parent of each node (-1 for the root); parents come before their children."""
        parents = self._parents
        if parents is None:
            assert self._columns is not None
            parents = self._parents = self._columns.tree_parents()
        return parents

    @property
    def move_codes(self) -> list[int] | None:
        """The fast scan's move code of each node (``None`` after the careful parser)."""
        return None if self._columns is None else self._columns.lists().codes_of_tree()

    @property
    def prop_counts(self) -> list[int] | None:
        """The fast scan's property count of each node (``None`` after the careful parser)."""
        return None if self._columns is None else self._columns.lists().counts_of_tree()

    @property
    def code_array(self) -> npt.NDArray[np.int32] | None:
        """The move codes as the scan's own array (a view), or ``None``."""
        return None if self._columns is None else self._columns.code_array()

    @property
    def parent_array(self) -> npt.NDArray[np.int32] | None:
        """The parents as the scan's own array (a view; numbering the file's nodes, not this
        tree's), or ``None``."""
        return None if self._columns is None else self._columns.parent_array()

    @property
    def nodes(self) -> list[RawNode]:
        if self._columns is not None and len(self._nodes) < len(self):
            self._nodes = [self.node(i) for i in range(len(self))]
        return self._nodes

    def text_node(self, index: int, skip: str) -> dict[str, list[str]] | None:
        """Node ``index``'s properties but ``skip``, decoded (fast scan only, else ``None``)."""
        if self._columns is None:
            return None
        return self._columns.lists().text_node(index, skip)

    def node(self, index: int) -> RawNode:
        """The property map of node ``index``."""
        if self._columns is not None:
            return self._columns.node(index)
        return self._nodes[index]

    def __len__(self) -> int:
        if self._parents is None and self._columns is not None:
            return self._columns.size
        return len(self.parents)


class _Scan:
    """The fast scan's output for a whole file: the kernel's work array and its sections."""

    __slots__ = (
        "data",
        "lists",
        "n_nodes",
        "n_props",
        "n_values",
        "nodes_cap",
        "props_cap",
        "work",
    )

    def __init__(
        self,
        data: bytes,
        work: npt.NDArray[np.int32],
        caps: tuple[int, int],
        counts: tuple[int, int, int],
    ) -> None:
        self.data = data
        self.work = work
        self.nodes_cap, self.props_cap = caps
        self.n_nodes, self.n_props, self.n_values = counts
        self.lists: _Lists | None = None

    def section(self, which: int, count: int) -> npt.NDArray[np.int32]:
        """Section ``which`` of the work array (0-3: per node, 4-9: per property / value)."""
        if which < 4:
            start = which * self.nodes_cap
        else:
            start = 4 * self.nodes_cap + (which - 4) * self.props_cap
        return self.work[start : start + count]


class _Lists:
    """The scan's sections as Python lists (indexing lists is what the interpreter does
    fastest), made once per file when a program first needs more than the root."""

    __slots__ = (
        "count",
        "data",
        "first",
        "iend",
        "istart",
        "moves",
        "parents",
        "vcount",
        "vend",
        "vfirst",
        "vstart",
    )

    def __init__(self, scan: _Scan) -> None:
        nodes, props, values = scan.n_nodes, scan.n_props, scan.n_values
        self.data = scan.data
        self.parents: list[int] = scan.section(0, nodes).tolist()
        self.first: list[int] = scan.section(1, nodes).tolist()
        self.count: list[int] = scan.section(2, nodes).tolist()
        self.moves: list[int] = scan.section(3, nodes).tolist()
        self.istart: list[int] = scan.section(4, props).tolist()
        self.iend: list[int] = scan.section(5, props).tolist()
        self.vfirst: list[int] = scan.section(6, props).tolist()
        self.vcount: list[int] = scan.section(7, props).tolist()
        self.vstart: list[int] = scan.section(8, values).tolist()
        self.vend: list[int] = scan.section(9, values).tolist()


class _Columns:
    """One tree's share of the fast scan: nodes ``base`` to ``base + size`` of the file."""

    __slots__ = ("_lists", "base", "scan", "size")

    def __init__(self, scan: _Scan, base: int, size: int) -> None:
        self.scan = scan
        self.base = base
        self.size = size
        self._lists: _TreeLists | None = None

    def lists(self) -> _TreeLists:
        tree_lists = self._lists
        if tree_lists is None:
            lists = self.scan.lists
            if lists is None:
                lists = self.scan.lists = _Lists(self.scan)
            tree_lists = self._lists = _TreeLists(lists, self.base, self.size)
        return tree_lists

    def tree_parents(self) -> list[int]:
        base = self.base
        parents: list[int] = self.parent_array().tolist()
        if base:
            parents = [q - base if q >= 0 else -1 for q in parents]
        return parents

    def code_array(self) -> npt.NDArray[np.int32]:
        return self.scan.section(3, self.scan.n_nodes)[self.base : self.base + self.size]

    def parent_array(self) -> npt.NDArray[np.int32]:
        return self.scan.section(0, self.scan.n_nodes)[self.base : self.base + self.size]

    def node(self, index: int) -> RawNode:
        if self.scan.lists is not None or index:
            return self.lists().node(index)
        return self._root()

    def _root(self) -> RawNode:
        """The root's map straight from the arrays (most reads need nothing more)."""
        scan, at = self.scan, self.base
        work, data = scan.work, scan.data
        n, p = scan.nodes_cap, 4 * scan.nodes_cap
        first = int(work[n + at])
        end = first + int(work[2 * n + at])
        cap = scan.props_cap
        istart = work[p + first : p + end].tolist()
        iend = work[p + cap + first : p + cap + end].tolist()
        vcount = work[p + 3 * cap + first : p + 3 * cap + end].tolist()
        if not istart:
            return {}
        v0 = int(work[p + 2 * cap + first])
        vstart = work[p + 4 * cap + v0 : p + 4 * cap + v0 + sum(vcount)].tolist()
        vend = work[p + 5 * cap + v0 : p + 5 * cap + v0 + sum(vcount)].tolist()
        return _props_of(data, istart, iend, vcount, vstart, vend)


class _TreeLists:
    """A tree's nodes read from the file's :class:`_Lists`."""

    __slots__ = ("base", "lists", "size")

    def __init__(self, lists: _Lists, base: int, size: int) -> None:
        self.lists = lists
        self.base = base
        self.size = size

    def codes_of_tree(self) -> list[int]:
        return self.lists.moves[self.base : self.base + self.size]

    def counts_of_tree(self) -> list[int]:
        return self.lists.count[self.base : self.base + self.size]

    def node(self, index: int) -> RawNode:
        lists = self.lists
        at = self.base + index
        k = lists.first[at]
        end = k + lists.count[at]
        v = lists.vfirst[k] if end > k else 0
        last = v + sum(lists.vcount[k:end])
        return _props_of(
            lists.data,
            lists.istart[k:end],
            lists.iend[k:end],
            lists.vcount[k:end],
            lists.vstart[v:last],
            lists.vend[v:last],
        )

    def text_node(self, index: int, skip: str) -> dict[str, list[str]]:
        """Node ``index``'s properties but ``skip``, values decoded from UTF-8 (escapes kept)."""
        lists = self.lists
        data = lists.data
        at = self.base + index
        k = lists.first[at]
        istart, iend, vfirst, vcount = lists.istart, lists.iend, lists.vfirst, lists.vcount
        vstart, vend = lists.vstart, lists.vend
        out: dict[str, list[str]] = {}
        for p in range(k, k + lists.count[at]):
            raw = data[istart[p] : iend[p]]
            name = _IDENT_CACHE.get(raw) or identifier(raw)
            if name == skip:
                continue
            v = vfirst[p]
            values = [
                data[vstart[x] : vend[x]].decode("utf-8", "replace")
                for x in range(v, v + vcount[p])
            ]
            if name in out:
                out[name].extend(values)
            else:
                out[name] = values
        return out


def _props_of(
    data: bytes,
    istart: list[int],
    iend: list[int],
    vcount: list[int],
    vstart: list[int],
    vend: list[int],
) -> RawNode:
    """A property map from spans: property ``i`` is ``data[istart[i]:iend[i]]`` with the next
    ``vcount[i]`` value spans."""
    props: RawNode = {}
    x = 0
    for i, start in enumerate(istart):
        raw = data[start : iend[i]]
        name = _IDENT_CACHE.get(raw) or identifier(raw)
        count = vcount[i]
        if count == 1:
            values = [data[vstart[x] : vend[x]]]
            x += 1
        else:
            values = [data[vstart[y] : vend[y]] for y in range(x, x + count)]
            x += count
        if name in props:
            props[name].extend(values)
        else:
            props[name] = values
    return props


@dataclass(slots=True)
class ParseResult:
    """The game trees read from a file and the problems met, in file order."""

    trees: list[RawTree]
    errors: list[SgfError]
    positions: Positions


class Positions:
    """Turns byte offsets into 1-based (line, column), counting ``\\n`` (and lone ``\\r``)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._starts: list[int] | None = None

    def line_column(self, offset: int) -> tuple[int, int]:
        if self._starts is None:
            text = self._data
            self._starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1

    def error(self, message: str, offset: int) -> SgfError:
        line, column = self.line_column(offset)
        return SgfError(message, line, column)


_NEWLINE = re.compile(rb"\r\n|\n\r|\n|\r")

_TREE_START = re.compile(rb"\(\s*;")
_TREE_START_LOOSE = re.compile(rb"\(\s*[A-Z][A-Za-z]*\s*\[")
_WHITESPACE = re.compile(rb"\s*")
_IDENT = re.compile(rb"[A-Za-z]+")
_VALUE_BODY = re.compile(rb"[^\\\]]*(?:\\.[^\\\]]*)*", re.S)
_CONTINUES = re.compile(rb"\s*(?:[\[;()]|[A-Za-z]+\s*\[|\Z)")
_INTERESTING = re.compile(rb"[();\[A-Za-z]")

_IDENT_CACHE: dict[bytes, str] = {}


class _Irregular(Exception):
    """Raised by the fast parser: the careful one must read this file."""


def identifier(raw: bytes) -> str:
    """The FF[4] identifier for a raw one: FF[3] lower-case letters dropped (``AddBlack``->``AB``).

    An identifier with no capital at all (``b``) is upper-cased instead.
    """
    name = _IDENT_CACHE.get(raw)
    if name is None:
        text = raw.decode("ascii")
        capitals = "".join(c for c in text if c.isupper())
        name = capitals or text.upper()
        if len(_IDENT_CACHE) < 10_000:
            _IDENT_CACHE[raw] = name
    return name


def tree_start(data: bytes, start: int = 0) -> int:
    """Where the next game tree begins (``(;``, or ``(`` then a property), or -1."""
    match = _TREE_START.search(data, start)
    if match is not None:
        return match.start()
    match = _TREE_START_LOOSE.search(data, start)
    return -1 if match is None else match.start()


def parse(data: bytes, *, strict: bool = False) -> ParseResult:
    """Read every game tree of ``data``.

    Lenient by default: damage is recovered from and listed in ``errors``. With ``strict``,
    the first problem raises :class:`SgfError` instead. Text before the first game tree is
    ignored silently (mail headers, web pages around the record).
    """
    positions = Positions(data)
    start = tree_start(data)
    if start < 0:
        error = SgfError("no SGF game tree found", 1, 1)
        if strict:
            raise error
        return ParseResult([], [error], positions)
    try:
        trees = _parse_fast(data, start)
    except _Irregular:
        parser = _CarefulParser(data, positions, strict)
        trees = parser.run(start)
        return ParseResult(trees, parser.errors, positions)
    return ParseResult(trees, [], positions)


def parse_with_positions(data: bytes) -> ParseResult:
    """Like :func:`parse` (lenient) but always by the careful parser, so nodes have offsets."""
    positions = Positions(data)
    start = tree_start(data)
    if start < 0:
        return ParseResult([], [SgfError("no SGF game tree found", 1, 1)], positions)
    parser = _CarefulParser(data, positions, strict=False)
    trees = parser.run(start)
    return ParseResult(trees, parser.errors, positions)


def _parse_fast(data: bytes, start: int) -> list[RawTree]:
    """The numba scan of a clean file; raises :class:`_Irregular` at anything unusual."""
    from imago.records import _sgf_kernels

    props_cap = data.count(b"[") + 1
    trees_cap = data.count(b"(") + 2
    nodes_cap = data.count(b";") + 1
    work = np.empty(4 * nodes_cap + 6 * props_cap + 2 * trees_cap, np.int32)
    status, n_nodes, n_props, n_values, n_trees = _sgf_kernels.scan(
        np.frombuffer(data, np.uint8), start, work, nodes_cap, props_cap, trees_cap
    )
    if status != _sgf_kernels.OK:
        raise _Irregular
    scan = _Scan(data, work, (nodes_cap, props_cap), (n_nodes, n_props, n_values))
    tree_ends = work[4 * nodes_cap + 6 * props_cap : 4 * nodes_cap + 6 * props_cap + n_trees]
    trees: list[RawTree] = []
    begin = 0
    for end in tree_ends.tolist():
        tree = RawTree()
        tree._parents = None
        tree._columns = _Columns(scan, begin, end - begin)
        trees.append(tree)
        begin = end
    return trees


class _CarefulParser:
    """Walks the bytes keeping positions; recovers and records errors (or raises if strict)."""

    def __init__(self, data: bytes, positions: Positions, strict: bool) -> None:
        self.data = data
        self.positions = positions
        self.strict = strict
        self.errors: list[SgfError] = []

    def problem(self, message: str, offset: int) -> None:
        error = self.positions.error(message, offset)
        if self.strict:
            raise error
        self.errors.append(error)

    def run(self, start: int) -> list[RawTree]:
        data = self.data
        end = len(data)
        trees: list[RawTree] = []
        tree = RawTree(offsets=[])
        stack: list[int] = []
        current = -1
        props: RawNode | None = None
        need_node = False
        pos = start
        while True:
            pos = _WHITESPACE.match(data, pos).end()  # type: ignore[union-attr]
            if pos >= end:
                break
            char = data[pos]
            if not stack:
                # Between game trees: only a new tree may start here.
                begin = tree_start(data, pos)
                if begin != pos:
                    self.problem("text outside a game tree ignored", pos)
                    if begin < 0:
                        break
                    pos = begin
                tree = RawTree(offsets=[])
                stack.append(-1)
                current = -1
                props = None
                need_node = True
                pos += 1
            elif char == 0x28:  # (
                if need_node:
                    self.problem("a game tree must start with a node (';')", pos)
                stack.append(current)
                props = None
                need_node = True
                pos += 1
            elif char == 0x29:  # )
                if need_node:
                    self.problem("empty game tree", pos)
                    need_node = False
                current = stack.pop()
                props = None
                pos += 1
                if not stack:
                    self.finish(tree, trees)
            elif char == 0x3B:  # ;
                current, props = self.new_node(tree, current, pos)
                need_node = False
                pos += 1
            elif char == 0x5B:  # [ without an identifier
                self.problem("value without a property identifier ignored", pos)
                pos = self.read_value(pos)[1]
            elif 0x41 <= char <= 0x5A or 0x61 <= char <= 0x7A:
                if props is None:
                    if need_node:
                        self.problem("missing ';' before the first property of a node", pos)
                        current, props = self.new_node(tree, current, pos)
                        need_node = False
                    else:
                        self.problem("property outside a node ignored", pos)
                        props = {}
                pos = self.read_property(props, pos)
            else:
                match = _INTERESTING.search(data, pos + 1)
                self.problem(f"unexpected character {chr(char)!r} ignored", pos)
                pos = end if match is None else match.start()
        if stack:
            self.problem("missing ')' at the end of the file", end)
            self.finish(tree, trees)
        return trees

    def finish(self, tree: RawTree, trees: list[RawTree]) -> None:
        if tree.parents:
            trees.append(tree)

    def new_node(self, tree: RawTree, parent: int, pos: int) -> tuple[int, RawNode]:
        props: RawNode = {}
        if parent < 0 and tree.parents:
            parent = 0  # a second root inside one tree (after '((') hangs under the first
        tree.parents.append(parent)
        tree._nodes.append(props)
        assert tree.offsets is not None
        tree.offsets.append(pos)
        return len(tree.parents) - 1, props

    def read_property(self, props: RawNode, pos: int) -> int:
        data = self.data
        match = _IDENT.match(data, pos)
        assert match is not None
        raw = match.group()
        name = identifier(raw)
        if not any(0x41 <= c <= 0x5A for c in raw):
            self.problem(f"lower-case property identifier {raw.decode()!r} read as {name}", pos)
        pos = _WHITESPACE.match(data, match.end()).end()  # type: ignore[union-attr]
        if pos >= len(data) or data[pos] != 0x5B:
            self.problem(f"property {name} has no value", match.start())
            return pos
        values = props.get(name)
        if values is None:
            values = props[name] = []
        else:
            self.problem(f"property {name} repeated in one node (values merged)", match.start())
        while pos < len(data) and data[pos] == 0x5B:
            value, pos = self.read_value(pos)
            values.append(value)
            pos = _WHITESPACE.match(data, pos).end()  # type: ignore[union-attr]
        return pos

    def read_value(self, pos: int) -> tuple[bytes, int]:
        """Read the value whose ``[`` is at ``pos``; returns (raw value, position after ``]``).

        A ``]`` followed by something that cannot come after a value is taken as an unescaped
        ``]`` inside the value (OGS writes ``PW[[\\]=[]]``) when the value then closes cleanly;
        otherwise the value ends there and the main loop reports what follows as junk.
        """
        data = self.data
        end = len(data)
        parts: list[bytes] = []
        body_start = pos + 1
        while True:
            match = _VALUE_BODY.match(data, body_start)
            assert match is not None
            stop = match.end()
            parts.append(match.group())
            if stop >= end or data[stop] != 0x5D:
                self.problem("missing ']' at the end of a value", pos)
                return b"\\]".join(parts), end
            if _CONTINUES.match(data, stop + 1):
                return b"\\]".join(parts), stop + 1
            ahead = _VALUE_BODY.match(data, stop + 1)
            assert ahead is not None
            after = ahead.end()
            if b"[" in ahead.group() or after >= end or data[after] != 0x5D:
                return b"\\]".join(parts), stop + 1
            self.problem("unescaped ']' inside a value", stop)
            body_start = stop + 1
