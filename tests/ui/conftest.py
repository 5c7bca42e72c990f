"""Fixtures of the terminal-play tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _work_in_a_temporary_folder(tmp_path, monkeypatch) -> None:
    """Games saved by the tests (``save FILE``, the end-of-game prompt) land here."""
    monkeypatch.chdir(tmp_path)
