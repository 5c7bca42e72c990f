"""Keeping numba's cached kernels in step with the sources they were compiled from.

numba caches each compiled kernel beside its module (``__pycache__/*.nbi`` and ``*.nbc``, or
under ``NUMBA_CACHE_DIR``) and checks only the stamp of that module's own file. A kernel that
calls a kernel of another module has the callee compiled into it, so when only the callee's
module changes (an edit, or a ``git pull`` that brings one) the caller keeps running the old
code. With a changed state layout that reads the wrong fields, and can write past an array's
end: changing the Go header's length this way ended a process with "double free or
corruption".

So :func:`drop_stale` keeps, next to the caches, a digest of the text of every module of the
package that imports numba, and deletes all of the package's cache files when the digest
changes: the next run compiles what it uses again (``imago warmup`` compiles everything
ahead). ``import imago`` calls it. To cost little there it first compares the size and time
stamp of every source file with those it noted (about a millisecond) and reads the sources only
when one differs; and it uses the standard library alone, so that ``import imago`` loads no
numeric library (the command line starts without one) -- hence its own few lines of atomic
write rather than :mod:`imago.core.files`, whose package loads numpy.
"""

from __future__ import annotations

import contextlib
import os

STAMP = "numba-sources.digest"
"""The file, in the package's own ``__pycache__`` cache folder, holding the digest (first line)
and the size and time stamp of each source file it was made from."""

_Path = str | os.PathLike[str]


def _sources(package: str) -> list[str]:
    """The ``.py`` files under ``package``, as sorted paths relative to it."""
    found = []
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        relative = os.path.relpath(folder, package)
        for name in files:
            if name.endswith(".py"):
                found.append(os.path.normpath(os.path.join(relative, name)))
    return sorted(found)


def _listing(package: str, sources: list[str]) -> str:
    """A line per source file: its path, size and modification time (no file read)."""
    lines = []
    for relative in sources:
        info = os.stat(os.path.join(package, relative))
        lines.append(f"{relative}\t{info.st_size}\t{info.st_mtime_ns}")
    return "\n".join(lines)


def source_digest(package: _Path, sources: list[str] | None = None) -> str:
    """A digest of the path and text of every ``.py`` file under ``package`` (or of
    ``sources``, paths relative to it) that imports numba (the modules that can hold kernels;
    one that only names it changes nothing)."""
    import hashlib
    import re

    imports_numba = re.compile(rb"^\s*(?:import numba|from numba\b)", re.MULTILINE)
    root = os.fspath(package)
    digest = hashlib.blake2b(digest_size=16)
    for relative in _sources(root) if sources is None else sources:
        with open(os.path.join(root, relative), "rb") as stream:
            text = stream.read()
        if imports_numba.search(text):
            digest.update(relative.replace(os.sep, "/").encode() + b"\0")
            digest.update(text + b"\0")
    return digest.hexdigest()


def cache_root(package: _Path) -> str:
    """Where numba caches the kernels of ``package``: beside the sources, or the mirror of their
    path under ``NUMBA_CACHE_DIR`` when that is set (as numba's own locator does)."""
    root = os.fspath(package)
    custom = os.environ.get("NUMBA_CACHE_DIR", "")
    if not custom:
        return root
    resolved = os.path.realpath(root)
    _, tail = os.path.splitdrive(resolved)
    return os.path.join(custom, tail.lstrip(os.sep))


def drop_stale(package: _Path) -> bool:
    """Delete the numba cache files of ``package`` if its numba sources changed since they were
    written (or if no digest was kept); ``True`` when it deleted. Does nothing where the cache
    folder cannot be written (numba caches elsewhere then) and never raises for a file
    another process removed first."""
    root = os.fspath(package)
    caches = cache_root(root)
    folder = os.path.join(caches, "__pycache__")
    stamp = os.path.join(folder, STAMP)
    sources = _sources(root)
    listing = _listing(root, sources)
    try:
        with open(stamp, encoding="utf-8") as stream:
            kept_digest, _, kept_listing = stream.read().partition("\n")
    except OSError:
        kept_digest = kept_listing = ""
    if listing == kept_listing:
        return False  # no source touched since the digest was made
    digest = source_digest(root, sources)
    try:
        os.makedirs(folder, exist_ok=True)
        if not os.access(folder, os.W_OK):
            return False
        dropped = digest != kept_digest
        if dropped:
            _delete_caches(caches)
        _write_atomically(stamp, f"{digest}\n{listing}")
    except OSError:
        return False  # a read-only install: numba caches elsewhere or not at all
    return dropped


def _delete_caches(root: str) -> None:
    for folder, _, files in os.walk(root):
        if os.path.basename(folder) != "__pycache__":
            continue
        for name in files:
            if name.endswith((".nbi", ".nbc")):
                with contextlib.suppress(FileNotFoundError):  # another process was first
                    os.unlink(os.path.join(folder, name))


def _write_atomically(path: str, text: str) -> None:
    """``text`` into ``path`` through a temporary file and a rename (readers see all or none)."""
    import tempfile

    handle, name = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=os.path.dirname(path))
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
        raise
