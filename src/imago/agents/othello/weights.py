"""Othello evaluation weights: the files the alpha-beta agent and the endgame solver read.

Two kinds: 002's hand-made phase evaluation (mask weights, ``.json``: a positional mask per
game phase plus mobility, potential mobility, corners, edge stability and discs; built in for
8x8, 6x6 and 4x4, see :data:`MASK_FILES`), and the pattern evaluation trained on WTHOR
(``.npz``, 8x8 only, see :mod:`imago.agents.othello.patterns`; built in as
:data:`PATTERN_FILE`). :func:`load_evaluation` picks the one a ``weights`` option names.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

_DATA = resources.files("imago.agents.othello") / "data"
"""The shipped weights (seed 002's masks per board size, the WTHOR pattern evaluation)."""

WEIGHT_FEATURES = ("mobility", "potential_mobility", "corners", "stable", "discs", "min_empties")


MASK_FILES = {
    8: "othello_weights.json",
    6: "othello_weights_6x6.json",
    4: "othello_weights_4x4.json",
}
"""The built-in mask weights (002's phase evaluation) of each Othello board size."""


class WeightsError(ValueError):
    """An Othello weights file that cannot be used (wrong kind, shape, size or contents)."""


def othello_weights_size(path: str | Path) -> int:
    """The board size a ``.json`` mask weights file is for (its ``size``, 8 when absent)."""
    return _read_mask_doc(path)[1]


def _read_mask_doc(path: str | Path | None, size: int = 8) -> tuple[dict[str, Any], int, str]:
    """The parsed document, its board size and its name, for a file or the built-in one of
    ``size``."""
    if path:
        name = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise WeightsError(f"{name}: cannot read: {error.strerror or error}") from None
    else:
        name = MASK_FILES[size]
        text = _DATA.joinpath(name).read_text(encoding="utf-8")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        raise WeightsError(f"{name}: not JSON: {error}") from None
    if not isinstance(doc, dict):
        raise WeightsError(f"{name}: mask weights are a JSON object with 'phases'")
    declared = doc.get("size", 8)
    if declared not in MASK_FILES:
        raise WeightsError(f"{name}: 'size' must be 4, 6 or 8, not {declared!r}")
    return doc, int(declared), name


def load_othello_weights(
    path: str | Path | None = None, size: int | None = None
) -> npt.NDArray[np.int64]:
    """Read Othello mask weights (002's phase evaluation; the built-in file of ``size``, 8 by
    default, when ``path`` is empty) into the ``(phases, 70)`` array the search kernels use,
    phases sorted from the opening on. A file is for the board of its ``size`` entry (8 when
    absent; its masks have ``size * size`` numbers, row by row); ``size`` given and different
    is an error. Masks are laid out on bits ``row * 8 + col`` (0 off the board)."""
    doc, declared, name = _read_mask_doc(path, size or 8)
    if size is not None and declared != size:
        raise WeightsError(f"{name}: weights for {declared}x{declared}, not {size}x{size} Othello")
    phases = doc.get("phases")
    if not isinstance(phases, list) or not phases:
        raise WeightsError(f"{name}: Othello weights need a non-empty 'phases' list")
    rows = []
    squares = declared * declared
    for phase in phases:
        mask = phase.get("mask") if isinstance(phase, dict) else None
        if not isinstance(mask, list) or len(mask) != squares:
            raise WeightsError(f"{name}: each phase needs a 'mask' of {squares} numbers")
        missing = [key for key in WEIGHT_FEATURES if key not in phase]
        if missing:
            label = phase.get("name", "?")
            raise WeightsError(f"{name}: phase {label!r} lacks {', '.join(missing)}")
        try:
            values = [int(v) for v in mask] + [int(phase[key]) for key in WEIGHT_FEATURES]
        except (TypeError, ValueError):
            raise WeightsError(f"{name}: phase {phase.get('name', '?')!r}: not integers") from None
        row = [0] * 64
        for i, value in enumerate(values[:squares]):
            row[i // declared * 8 + i % declared] = value
        rows.append(row + values[squares:])
    table = np.array(rows, dtype=np.int64)
    return table[np.argsort(-table[:, -1], kind="stable")]


def othello_weights_document(
    table: npt.NDArray[np.int64],
    size: int = 8,
    *,
    names: Sequence[str] = (),
    description: str = "",
) -> dict[str, Any]:
    """The JSON document of mask weights (the inverse of :func:`load_othello_weights`):
    ``table`` is ``(phases, 70)`` with the masks on bits ``row * 8 + col``; ``names`` names the
    phases (default ``phase1``, ...)."""
    if size not in MASK_FILES:
        raise WeightsError(f"Othello is played on 4x4, 6x6 or 8x8 boards, not {size}x{size}")
    if table.ndim != 2 or table.shape[1] != 64 + len(WEIGHT_FEATURES) or not len(table):
        raise WeightsError(f"mask weights are (phases, 70), not {list(table.shape)}")
    squares = [row * 8 + col for row in range(size) for col in range(size)]
    phases = []
    for index, row in enumerate(table):
        phase: dict[str, Any] = {
            "name": names[index] if index < len(names) else f"phase{index + 1}"
        }
        phase["mask"] = [int(row[sq]) for sq in squares]
        phase.update({key: int(row[64 + k]) for k, key in enumerate(WEIGHT_FEATURES)})
        phases.append(phase)
    doc: dict[str, Any] = {"description": description} if description else {}
    doc.update({"size": size, "phases": phases})
    return doc


def save_othello_weights(
    path: str | Path,
    table: npt.NDArray[np.int64],
    size: int = 8,
    *,
    names: Sequence[str] = (),
    description: str = "",
) -> None:
    """Write mask weights as a ``.json`` file the ``weights`` option reads (atomically)."""
    from imago.core.files import atomic_write

    doc = othello_weights_document(table, size, names=names, description=description)
    atomic_write(path, (json.dumps(doc, indent=1) + "\n").encode("utf-8"))


PATTERN_FORMAT = "imago-othello-patterns-1"
"""The ``format`` entry of a pattern weights file."""
PATTERN_FILE = "othello_patterns.npz"
"""The built-in pattern weights (trained on WTHOR by ``imago train patterns``)."""


def _read_npz(
    path: str | Path | None, builtin: str, what: str, file_format: str
) -> tuple[str, dict[str, np.ndarray]]:
    """``(name, arrays)`` of an imago ``.npz`` data file whose ``format`` entry is
    ``file_format`` (the shipped ``builtin`` file when ``path`` is empty); a
    :class:`WeightsError` naming ``what`` it should be otherwise. Never unpickles."""
    source: Any = Path(path) if path else _DATA.joinpath(builtin)
    name = str(path) if path else builtin
    try:
        with source.open("rb") as stream, np.load(stream, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError) as error:
        raise WeightsError(f"{name}: not a {what} file (.npz): {error}") from None
    if "format" not in arrays or str(arrays["format"]) != file_format:
        raise WeightsError(f"{name}: not an imago {what} file ({file_format})")
    return name, arrays


def load_pattern_weights(path: str | Path | None = None) -> npt.NDArray[np.int32]:
    """Read an Othello pattern weights file (``.npz``; the built-in one when ``path`` is
    empty) into the ``int32[stages, table]`` array the search kernels use.

    The file holds, per pattern of :mod:`imago.agents.othello.patterns`, its tied table
    ``w_<name>`` (``int16[stages, classes]``, hundredths of a disc) and the ``mobility``
    tables; they are expanded here to one full table per stage.
    """
    from imago.agents.othello import patterns as pat

    name, arrays = _read_npz(path, PATTERN_FILE, "pattern weights", PATTERN_FORMAT)
    compact_of, starts = pat.tie_tables()
    parts = []
    for k, key in enumerate([f"w_{p.name}" for p in pat.PATTERNS] + ["mobility"]):
        want = (pat.STAGES, int(starts[k + 1] - starts[k]))
        table = arrays.get(key)
        if table is None:
            raise WeightsError(f"{name}: lacks the table {key!r}")
        if table.shape != want or table.dtype.kind not in "iu":
            raise WeightsError(
                f"{name}: table {key!r} is {table.dtype}{list(table.shape)}, "
                f"expected integers of shape {list(want)}"
            )
        parts.append(table.astype(np.int32))
    compact = np.concatenate(parts, axis=1)
    return np.ascontiguousarray(compact[:, compact_of])


@functools.cache
def _builtin_patterns() -> npt.NDArray[np.int32]:
    """The built-in pattern table, read once per process (the search only reads it)."""
    return load_pattern_weights()


PROBCUT_FORMAT = "imago-othello-probcut-1"
"""The ``format`` entry of a ProbCut calibration file."""
PROBCUT_FILE = "othello_probcut.npz"
"""The built-in calibration, for the built-in pattern weights (``imago train probcut``)."""


def load_probcut(path: str | Path | None = None) -> npt.NDArray[np.float64]:
    """Read a multi-ProbCut calibration (``.npz`` from ``imago train probcut``; the built-in
    one when ``path`` is empty): ``float64[depths, buckets, 3]``, per depth left and bucket of
    empty squares the fit ``a, b, sigma`` of the deep value on the shallow one (see
    :func:`imago.agents.othello._alphabeta.probcut_bounds`)."""
    name, arrays = _read_npz(path, PROBCUT_FILE, "ProbCut calibration", PROBCUT_FORMAT)
    table = arrays.get("calibration")
    if table is None or table.ndim != 3 or table.shape[2] != 3 or table.dtype.kind != "f":
        raise WeightsError(f"{name}: 'calibration' must be floats of shape [depths, buckets, 3]")
    if not np.all(np.isfinite(table)):
        raise WeightsError(f"{name}: 'calibration' holds non-finite numbers")
    return np.ascontiguousarray(table, dtype=np.float64)


@functools.cache
def builtin_probcut() -> npt.NDArray[np.float64]:
    """The built-in calibration, read once per process."""
    return load_probcut()


def load_evaluation(path: str | Path | None = None, size: int = 8) -> tuple[str, np.ndarray]:
    """``("patterns", table)`` or ``("mask", weights)``: the evaluation a ``weights`` option
    names for a ``size`` board (``.npz``: a pattern file, 8x8 only; ``.json``: mask weights of
    that size; empty: the built-in patterns on 8x8, the built-in mask weights on 6x6 and 4x4;
    ``mask``: the built-in mask weights; ``patterns``: the built-in patterns, 8x8 only)."""
    if size not in MASK_FILES:
        raise WeightsError(f"Othello is played on 4x4, 6x6 or 8x8 boards, not {size}x{size}")
    if not path:
        if size == 8:
            return "patterns", _builtin_patterns()
        return "mask", load_othello_weights(size=size)
    if str(path) == "mask":
        return "mask", load_othello_weights(size=size)
    if str(path) == "patterns":
        if size != 8:
            raise WeightsError(f"the built-in patterns are for 8x8 Othello, not {size}x{size}")
        return "patterns", _builtin_patterns()
    suffix = Path(path).suffix.lower()
    if suffix == ".npz":
        if size != 8:
            raise WeightsError(f"{path}: pattern weights are for 8x8 Othello, not {size}x{size}")
        return "patterns", load_pattern_weights(path)
    if suffix == ".json":
        return "mask", load_othello_weights(path, size)
    raise WeightsError(f"{path}: Othello weights are a .npz pattern file or a .json mask file")
