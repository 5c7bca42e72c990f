"""Numba's kernel caches are dropped when any numba module of the package changes.

numba checks only a cached kernel's own module; a kernel compiled with another module's kernel
inside keeps the old one. The tests build a two-module package in a temporary folder::

    pkg/callee.py   WIDTH = 1; @njit(cache=True) def width(): return WIDTH
    pkg/caller.py   @njit(cache=True) def call(): return width()

run ``call()`` in a fresh process, change ``WIDTH`` in ``callee.py`` only, and run it again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from imago import _kernel_cache as kernel_cache
from imago._kernel_cache import STAMP, cache_root, drop_stale, source_digest

CALLER = """
from numba import njit
from pkg.callee import width

@njit(cache=True)
def call():
    return width()
"""


def _write_callee(package: Path, width: int) -> None:
    path = package / "callee.py"
    before = path.stat().st_mtime_ns if path.exists() else 0
    body = "from numba import njit\n\n@njit(cache=True)\ndef width():\n    return WIDTH\n"
    path.write_text(f"WIDTH = {width}\n{body}")
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))  # a stamp numba sees


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "caller.py").write_text(CALLER)
    _write_callee(package, 1)
    return package


def _call(package: Path, *, drop: bool) -> int:
    """``pkg.caller.call()`` in a new process (after :func:`drop_stale` when ``drop``)."""
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(package.parent)!r})
        if {drop}:
            from imago._kernel_cache import drop_stale
            drop_stale(Path({str(package)!r}))
        from pkg.caller import call
        print(call())
    """)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_numba_alone_runs_a_changed_callee_stale(tmp_path: Path):
    """The premise: if numba ever checks a kernel's callees, :mod:`kernel_cache` can go."""
    package = _package(tmp_path)
    assert _call(package, drop=False) == 1
    _write_callee(package, 2)
    assert _call(package, drop=False) == 1


def test_a_changed_callee_module_is_compiled_again(tmp_path: Path):
    package = _package(tmp_path)
    assert _call(package, drop=True) == 1
    assert list((package / "__pycache__").glob("caller.*.nbi"))
    _write_callee(package, 2)
    assert _call(package, drop=True) == 2
    assert _call(package, drop=True) == 2  # and cached again from then on


def _cache_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.nb[ic]"))


def _fake_caches(package: Path) -> None:
    for folder in (package / "__pycache__", package / "sub" / "__pycache__"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "k.f-1.py311.nbi").write_bytes(b"index")
        (folder / "k.f-1.py311.1.nbc").write_bytes(b"code")


def test_unchanged_sources_keep_their_caches_and_a_changed_one_drops_all(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "k.py").write_text("import numba\n")
    (package / "sub" / "plain.py").write_text("x = 1\n")
    _fake_caches(package)
    assert drop_stale(package)  # no digest kept yet: nothing is known about these caches
    assert _cache_files(package / "__pycache__") == []
    kept = (package / "__pycache__" / STAMP).read_text().splitlines()
    assert kept[0] == source_digest(package)
    assert sorted(line.split("\t")[0] for line in kept[1:]) == ["k.py", "sub/plain.py"]
    _fake_caches(package)
    assert not drop_stale(package)
    assert len(_cache_files(package / "sub" / "__pycache__")) == 2
    (package / "sub" / "plain.py").write_text("x = 2\n")  # no numba in it
    assert not drop_stale(package)
    stamp = (package / "k.py").stat().st_mtime_ns + 5_000_000_000
    os.utime(package / "k.py", ns=(stamp, stamp))  # touched, as a checkout does, not changed
    assert not drop_stale(package)
    assert len(_cache_files(package / "sub" / "__pycache__")) == 2
    (package / "k.py").write_text("import numba\nY = 1\n")
    assert drop_stale(package)
    assert _cache_files(package / "sub" / "__pycache__") == []


def test_the_digest_covers_only_modules_that_use_numba(tmp_path: Path):
    (tmp_path / "a.py").write_text("from numba import njit\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    (tmp_path / "c.py").write_text('"""Not a kernel: it only names numba."""\n')
    first = source_digest(tmp_path)
    (tmp_path / "b.py").write_text("x = 2\n")
    (tmp_path / "c.py").write_text('"""Still only naming numba."""\n')
    assert source_digest(tmp_path) == first
    (tmp_path / "c.py").write_text("    import numba  # inside a function\n")
    assert source_digest(tmp_path) != first
    (tmp_path / "c.py").write_text("x = 3\n")
    (tmp_path / "a.py").write_text("from numba import njit  # edited\n")
    assert source_digest(tmp_path) != first


def test_a_numba_cache_dir_is_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "k.py").write_text("import numba\n")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    root = Path(cache_root(package))
    assert root == tmp_path.joinpath("cache", *package.resolve().parts[1:])
    _fake_caches(root)
    assert drop_stale(package)
    assert _cache_files(root / "__pycache__") == []
    assert (root / "__pycache__" / STAMP).exists()
    assert not (package / "__pycache__").exists()


def test_a_cache_folder_it_cannot_write_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "k.py").write_text("import numba\n")
    _fake_caches(tmp_path)
    monkeypatch.setattr(kernel_cache.os, "access", lambda *_: False)
    assert not drop_stale(tmp_path)
    assert len(_cache_files(tmp_path / "__pycache__")) == 2
