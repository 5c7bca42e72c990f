"""Fixtures of the GTP engine tests."""

from __future__ import annotations

import pytest
from gtp_helpers import make_server

from imago.gtp.engine import GtpServer


@pytest.fixture
def go() -> GtpServer:
    return make_server("go")


@pytest.fixture
def othello() -> GtpServer:
    return make_server("othello")


@pytest.fixture(autouse=True)
def _work_in_a_temporary_folder(tmp_path, monkeypatch) -> None:
    """Commands that write files (``printsgf FILE``, fuzzed) write them here, not in the repo."""
    monkeypatch.chdir(tmp_path)
