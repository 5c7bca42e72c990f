"""Writing finished files atomically: a reader (or a run resumed after kill -9) sees the old file
or the new one, never half of one. Every writer of finished files in imago goes through here:
:func:`atomic_write` for bytes in hand, :func:`atomic_path` for writers that want a path of
their own (``np.savez``, ``torch.save``, ``savefig``, ONNX export)."""

from __future__ import annotations

import functools
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename
    (:func:`atomic_path`), so that readers never see a half-written file."""
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)


@contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """A fresh temporary path beside ``path`` (ending in ``suffix``, for writers that insist on
    one, such as ``np.savez``'s ``.npz``) to write the file to; when the block ends without an
    error it is renamed onto ``path``, otherwise removed. The folder must exist (a missing one
    is the caller's error to report). The file gets the permissions a plain ``open(path, "w")``
    would give it: those of the file it replaces, else ``0666`` less the umask (a temporary
    file alone would be ``0600``).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(folder / "a.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('done', ['a.txt'])
    """
    target = Path(path)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """:func:`atomic_write` of ``text`` in UTF-8."""
    atomic_write(path, text.encode("utf-8"))


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
