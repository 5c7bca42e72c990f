"""The repository's scripts outside the package (``bench/*.py``, ``examples/*.py``) loaded as
modules, once each, for the tests that check them."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


@cache
def load_script(relative: str) -> ModuleType:
    """The script at ``relative`` (to the repository's root) as a module named after its file
    (registered in ``sys.modules``: dataclasses look their module up there)."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
