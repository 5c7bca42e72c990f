"""Fixtures of the browser-board tests: a server on a thread, and a real Chromium.

The browser is Debian's Chromium driven by Playwright (``executable_path``: Playwright's own
browser downloads are not used); the browser tests skip only when it is missing. Screenshots of
the key screens go to ``$IMAGO_SCREENSHOTS`` when set, else to a folder under pytest's
temporary directory (printed with ``-s``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The address of a fresh imago web server (any free port on 127.0.0.1)."""
    from imago.ui.web import ServerConfig, SessionConfig
    from imago.ui.web.app import background_server
    from imago.ui.web.live import AnalysisConfig

    config = ServerConfig(
        port=0,
        session=SessionConfig(analysis=AnalysisConfig(exact_empties=14)),
    )
    with background_server(config) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright; the test skips where either is missing."""
    from imago.ui.web import chromium

    if chromium.chromium_path() is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        browser = chromium.launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests leave screenshots of the key screens."""
    chosen = os.environ.get("IMAGO_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder
