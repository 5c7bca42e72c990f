"""Debian's Chromium under Playwright, as the browser tests and ``imago bench web`` use it.

Playwright's own browser downloads are not used: ``apt-get install chromium`` gives the browser,
and :func:`launch` points Playwright at it, with the switches a headless Chromium needs to run
as root in a container and to stay off the network.
"""

from __future__ import annotations

import shutil
from typing import Any

ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
)


def chromium_path() -> str | None:
    """Where Chromium is installed, or ``None``."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def missing() -> str | None:
    """Why a browser cannot be driven here (``None`` when it can)."""
    if chromium_path() is None:
        return "chromium is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ModuleNotFoundError:
        return "playwright is not installed (pip install playwright)"
    return None


def launch(playwright: Any) -> Any:
    """A headless Chromium browser from a started ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=list(ARGS))
