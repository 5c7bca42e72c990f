"""SGF property values: text escapes, points and point lists, numbers, results, charsets.

The second layer of the SGF stack. Values arrive as raw bytes from
:mod:`~imago.records.sgf_grammar`, are decoded to ``str`` with the game's charset (still
escaped: that raw text is what a tree keeps, so unknown properties survive a round trip
unchanged), and are interpreted here on demand.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable

from imago.core.color import Color
from imago.core.game import Outcome
from imago.core.move import SGF_LETTERS, Point
from imago.records.sgf_grammar import SgfError

# -- text ---------------------------------------------------------------------------------------

_SOFT_BREAK = re.compile(r"\\(?:\r\n|\n\r|\n|\r)")
_ESCAPE = re.compile(r"\\(.)", re.S)
_OTHER_SPACE = re.compile(r"[\t\v\f]")
_NEWLINES = re.compile(r"\r\n|\n\r|\r|\n")


def unescape_text(raw: str) -> str:
    """An SGF ``Text`` value as plain text: soft line breaks removed, escapes resolved.

    Line breaks are kept (as ``\\n``); other white space becomes a space.
    """
    if "\\" not in raw and "\t" not in raw and "\r" not in raw:
        return raw
    text = _SOFT_BREAK.sub("", raw)
    text = _NEWLINES.sub("\n", text)
    text = _ESCAPE.sub(r"\1", text)
    return _OTHER_SPACE.sub(" ", text)


def unescape_simple_text(raw: str) -> str:
    """An SGF ``SimpleText`` value: like :func:`unescape_text`, line breaks become spaces."""
    return unescape_text(raw).replace("\n", " ")


def escape_text(text: str) -> str:
    """The raw SGF value for ``text``: ``\\`` and ``]`` escaped (``:`` too is harmless)."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def is_valid_raw(raw: str) -> bool:
    """Whether ``raw`` can be written between ``[`` and ``]`` as it is (no bare ``]``)."""
    return _BARE_CLOSE.search(raw) is None and not _ODD_TRAILING.search(raw)


_BARE_CLOSE = re.compile(r"(?<!\\)(?:\\\\)*\]")
_ODD_TRAILING = re.compile(r"(?<!\\)(?:\\\\)*\\\Z")


def split_compose(raw: str) -> tuple[str, str]:
    """Split a ``Compose`` value ``a:b`` at its first unescaped colon."""
    escaped = False
    for index, char in enumerate(raw):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            return raw[:index], raw[index + 1 :]
    raise ValueError(f"not a compose value: {raw!r}")


# -- points -------------------------------------------------------------------------------------


def parse_point(raw: str, size: int) -> Point:
    """A point value (``dd``) on a ``size`` board; raises ``ValueError`` if not one."""
    if len(raw) != 2:
        raise ValueError(f"not an SGF point: {raw!r}")
    col = SGF_LETTERS.find(raw[0])
    row = SGF_LETTERS.find(raw[1])
    if col < 0 or row < 0 or col >= size or row >= size:
        raise ValueError(f"SGF point {raw!r} is off a {size}x{size} board")
    return Point(row, col)


def parse_point_list(values: Iterable[str], size: int) -> list[Point]:
    """The points of a (possibly compressed, ``aa:cc``) point list, in order, no duplicates."""
    points: dict[Point, None] = {}
    for raw in values:
        if raw == "":
            continue
        if ":" in raw:
            first, second = raw.split(":", 1)
            a, b = parse_point(first, size), parse_point(second, size)
            for row in range(min(a.row, b.row), max(a.row, b.row) + 1):
                for col in range(min(a.col, b.col), max(a.col, b.col) + 1):
                    points[Point(row, col)] = None
        else:
            points[parse_point(raw, size)] = None
    return list(points)


def format_point(point: Point) -> str:
    """The SGF value of ``point`` (``dd``)."""
    return SGF_LETTERS[point.col] + SGF_LETTERS[point.row]


# -- numbers, colours, results ------------------------------------------------------------------

_REAL = re.compile(r"\s*([+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+))\s*(?:(\d+)\s*/\s*(\d+))?\s*")


def parse_number(raw: str) -> int:
    """An SGF ``Number``; raises ``ValueError``."""
    return int(raw.strip())


def parse_real(raw: str) -> float:
    """An SGF ``Real`` leniently: ``6.5``, ``6,5``, ``5 1/2`` (old files), ``+7``."""
    match = _REAL.fullmatch(raw)
    if match is None:
        if raw.strip() == "1/2":
            return 0.5
        raise ValueError(f"not a number: {raw!r}")
    value = float(match.group(1).replace(",", "."))
    if match.group(2):
        fraction = int(match.group(2)) / int(match.group(3))
        value = value - fraction if value < 0 else value + fraction
    return value


def parse_color(raw: str) -> Color:
    """An SGF ``Color`` (``B``/``W``; ``black``/``white`` and ``1``/``2`` accepted too)."""
    text = raw.strip().lower()
    if text in ("1", "2"):
        return Color(int(text))
    return Color.parse(text)


def parse_result(raw: str) -> Outcome | None:
    """The outcome an ``RE`` value states (``B+3.5``, ``W+R``, ``0``/``Draw``), else ``None``.

    Time and forfeit wins (``B+T``, ``W+F``) count as won with no margin; ``Void``, ``?``
    and free text give ``None``.
    """
    text = unescape_simple_text(raw).strip()
    lowered = text.lower()
    if lowered in ("0", "draw", "jigo"):
        return Outcome(None)
    if len(text) < 2 or text[0].upper() not in "BW" or text[1] != "+":
        return None
    winner = Color.BLACK if text[0].upper() == "B" else Color.WHITE
    rest = text[2:].strip()
    upper = rest.upper()
    if upper in ("R", "RESIGN"):
        return Outcome(winner, by_resignation=True)
    if upper in ("", "T", "TIME", "F", "FORFEIT"):
        return Outcome(winner)
    try:
        return Outcome(winner, margin=parse_real(rest))
    except ValueError:
        return Outcome(winner)


# -- charsets -----------------------------------------------------------------------------------

_CHARSET_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc-cn": "gb18030",
    "cp936": "gb18030",
    "macintosh": "mac_roman",
    "ascii": "utf-8",
    "us-ascii": "utf-8",
    "iso-8859-1": "cp1252",
    "iso8859_1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
}
"""Charsets named as others that read the same texts and more (a superset codec)."""


def codec_for(charset: str | None) -> str | None:
    """The Python codec for an SGF ``CA`` value, or ``None`` if unknown or missing."""
    if not charset:
        return None
    name = charset.strip().strip("\\").lower()
    name = _CHARSET_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def sniff_encoding(data: bytes) -> tuple[bytes, str | None]:
    """Undo a UTF-16 or UTF-8 byte-order mark; returns (bytes to parse, codec if certain).

    UTF-16 files (with or without a BOM) are converted to UTF-8 here, since the grammar reads
    ASCII-compatible bytes. A file that is valid UTF-8 as a whole is read as UTF-8 whatever
    its ``CA`` says (many programs write ``CA[ISO-8859-1]`` on UTF-8 text).
    """
    if data.startswith(codecs.BOM_UTF8):
        return data[3:], "utf-8"
    for bom, codec in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return _recode(data[2:], codec)
    start = data.lstrip(b" \t\r\n")[:2] if data[:1] != b"\x00" else data[:2]
    if len(start) == 2 and (start[0] == 0) != (start[1] == 0):
        return _recode(data, "utf-16-be" if start[0] == 0 else "utf-16-le")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data, None
    return data, "utf-8"


def _recode(data: bytes, codec: str) -> tuple[bytes, str]:
    if len(data) % 2:
        data = data[:-1]
    return data.decode(codec, errors="replace").encode("utf-8"), "utf-8"


_CA_VALUE = re.compile(rb"CA\s*\[([^\]]{0,40})\]")
_GUESSES = ("cp932", "gb18030", "euc_kr", "big5")


def file_codec(data: bytes) -> tuple[str, str]:
    """The codec of a file that is not UTF-8: its first ``CA``, else a guess, else cp1252.

    Returns (codec, how it was chosen). The guess tries the East Asian double-byte codecs and
    keeps one whose non-ASCII text is nearly all ideographs, kana, hangul and CJK punctuation.
    """
    match = _CA_VALUE.search(data)
    if match is not None:
        codec = codec_for(match.group(1).decode("latin-1"))
        if codec is not None and not codec.startswith(("utf-16", "utf-32")):
            # (a UTF-16 CA on a file whose structure reads as ASCII is wrong: ignore it)
            return codec, "CA"
    guess = _guess_codec(data)
    if guess is not None:
        return guess, "guessed"
    return "cp1252", "default"


def _guess_codec(data: bytes) -> str | None:
    best, best_score = None, 0.9
    for codec in _GUESSES:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        wide = [c for c in text if ord(c) > 127]
        if len(wide) < 4:  # too little text to tell East Asian from Western
            return None
        good = sum(1 for c in wide if _is_cjk(ord(c)))
        score = good / len(wide)
        if score > best_score:
            best, best_score = codec, score
    return best


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3000 <= code <= 0x30FF
        or 0xAC00 <= code <= 0xD7A3
        or 0xFF01 <= code <= 0xFF5E
    )


def to_utf8(data: bytes) -> tuple[bytes, str, str]:
    """Re-encode a whole file as UTF-8 before parsing; returns (bytes, codec, how chosen).

    Decoding first (as Sabaki does) keeps double-byte charsets whose second byte can be ``\\``
    or ``]`` (Shift-JIS, Big5, GBK) from breaking the grammar.
    """
    data, codec = sniff_encoding(data)
    if codec is not None and not (data.isascii() and b"\x1b" in data):
        return data, codec, "detected"
    codec, how = file_codec(data)
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        text = data.decode("latin-1") if codec == "cp1252" else data.decode(codec, "replace")
    return text.encode("utf-8"), codec, how


def decode(raw: bytes) -> str:
    """Decode one raw value of a file made UTF-8 by :func:`to_utf8` (never raises)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace")


__all__ = [
    "SgfError",
    "codec_for",
    "decode",
    "escape_text",
    "file_codec",
    "format_point",
    "is_valid_raw",
    "parse_color",
    "parse_number",
    "parse_point",
    "parse_point_list",
    "parse_real",
    "parse_result",
    "sniff_encoding",
    "split_compose",
    "to_utf8",
    "unescape_simple_text",
    "unescape_text",
]
