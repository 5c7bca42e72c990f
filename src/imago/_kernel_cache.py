"""Keeping numba's cached kernels in step with the sources they were compiled from.

numba caches each compiled kernel beside its module (``__pycache__/*.nbi`` and ``*.nbc``, or
under ``NUMBA_CACHE_DIR``) and checks only the stamp of that module's own file. A kernel that
calls a kernel of another module has the callee compiled into it, so when only the callee's
module changes (an edit, or a ``git pull`` that brings one) the caller keeps running the old
code. With a changed state layout that reads the wrong fields, and can write past an array's
end: changing the Go header's length this way ended a process with "double free or
corruption".

So :func:`drop_stale` keeps a digest of every module of the package that uses numba next to
the caches, and deletes all of the package's cache files when the digest changes: the next run
compiles what it uses again (``imago warmup`` compiles everything ahead). ``import imago`` calls
it; it reads the sources once (a few milliseconds) and changes nothing when they are unchanged.
It uses the standard library alone, so that ``import imago`` loads no numeric library (the
command line starts without one); hence its own few lines of atomic write rather than
:mod:`imago.core.files`, whose package loads numpy.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

STAMP = "numba-sources.digest"
_IMPORTS_NUMBA = re.compile(rb"^\s*(?:import numba|from numba\b)", re.MULTILINE)
"""The file, in the package's own ``__pycache__`` cache folder, holding the digest."""


def source_digest(package: Path) -> str:
    """A digest of the path and text of every ``.py`` file under ``package`` that imports
    numba (the modules that can hold kernels; one that only names it changes nothing)."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(package.rglob("*.py")):
        text = path.read_bytes()
        if _IMPORTS_NUMBA.search(text):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(text + b"\0")
    return digest.hexdigest()


def cache_root(package: Path) -> Path:
    """Where numba caches the kernels of ``package``: beside the sources, or the mirror of their
    path under ``NUMBA_CACHE_DIR`` when that is set (as numba's own locator does)."""
    custom = os.environ.get("NUMBA_CACHE_DIR", "")
    if not custom:
        return package
    resolved = package.resolve()
    return Path(custom).joinpath(*resolved.parts[1:])


def drop_stale(package: Path) -> bool:
    """Delete the numba cache files of ``package`` if its numba sources changed since they were
    written (or if no digest was kept); ``True`` when it deleted. Does nothing where the cache
    folder cannot be written (numba caches elsewhere then) and never raises for a file
    another process removed first."""
    root = cache_root(package)
    folder = root / "__pycache__"
    stamp = folder / STAMP
    digest = source_digest(package)
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK):
            return False
        for pattern in ("*.nbi", "*.nbc"):
            for cached in root.rglob(f"__pycache__/{pattern}"):
                cached.unlink(missing_ok=True)
        _write_atomically(stamp, digest)
    except OSError:
        return False  # a read-only install: numba caches elsewhere or not at all
    return True


def _write_atomically(path: Path, text: str) -> None:
    """``text`` into ``path`` through a temporary file and a rename (readers see all or none)."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
