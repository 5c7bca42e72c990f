"""Fixtures of the record tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from record_helpers import torture_files


@pytest.fixture(scope="session")
def torture(data_dir: Path) -> list[Path]:
    """Every .sgf file of the SGF torture corpus."""
    files = torture_files()
    if not files:
        pytest.skip("the SGF torture corpus is missing")
    return files
