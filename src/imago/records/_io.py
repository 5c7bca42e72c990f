"""File helpers shared by the record formats (and every other writer of finished files)."""

from __future__ import annotations

import functools
import os
import stat
import tempfile
from pathlib import Path


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename,
    so that readers never see a half-written file.

    The file gets the permissions a plain ``open(path, "w")`` would give it: those of the
    file it replaces, else ``0666`` less the umask (a temporary file alone would be ``0600``).
    """
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            os.fchmod(stream.fileno(), _mode_for(target))
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


@functools.cache
def _umask() -> int:
    """The process's umask, read once (setting it back at once: the only portable way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
