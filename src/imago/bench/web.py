"""The board in the browser: how fast a move clicked in the page is drawn, and how often live
analysis reaches the page (Debian's Chromium under Playwright, against a server on a thread).

Goals (issue #21): a move on the board in under 50 ms (median, no engine thinking: both sides
are people), and at least 4 analysis updates a second while the engine runs. The page measures
itself (``window.imagoTimings``: from the click's handler to the new position drawn;
``window.imagoAnalysisTimes``: every analysis message and whether it brought new figures).
"""

from __future__ import annotations

import importlib.util
import statistics
import time
from typing import Any

from imago.bench import BenchConfig, Figure, benchmark


def _missing() -> str:
    """Why the browser benchmarks cannot run here (the web extra, a browser), or ``""``."""
    for module in ("starlette", "uvicorn", "playwright"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: pip install 'imago[web]' playwright"
    from imago.ui.web import chromium

    return chromium.missing() or ""


def _with_page(work: Any) -> list[Figure]:
    from playwright.sync_api import sync_playwright

    from imago.ui.web import chromium
    from imago.ui.web.app import ServerConfig, background_server

    with background_server(ServerConfig(port=0)) as url, sync_playwright() as playwright:
        browser = chromium.launch(playwright)
        try:
            # bypass_csp: Playwright waits by evaluating text, which the page's CSP forbids
            page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            page.goto(url)
            page.wait_for_selector("#connection.ok")
            page.wait_for_function("window.imagoReady === true")  # its opening game started
            figures: list[Figure] = work(page)
            return figures
        finally:
            browser.close()


def _new_game(page: Any, game: str, size: int) -> None:
    before = page.evaluate("window.imagoStates")
    page.click("#tab-play")
    page.select_option("#ng-game", game)
    page.select_option("#ng-size", str(size))
    page.fill("#ng-black", "human")
    page.fill("#ng-white", "human")
    page.click("#ng-start")
    page.wait_for_function(f"window.imagoStates > {before}")


def _click(page: Any, row: int, col: int) -> None:
    box = page.locator("#board").bounding_box()
    x0, y0, w, h = (float(v) for v in page.get_attribute("#board", "viewBox").split())
    page.mouse.click(
        box["x"] + (col - x0) / w * box["width"], box["y"] + (row - y0) / h * box["height"]
    )


def _play_moves(page: Any, moves: int) -> list[float]:
    """Click ``moves`` legal points one after the other; the page's click-to-drawn times."""
    page.evaluate("window.imagoTimings = []")
    for number in range(moves):
        size = int(page.get_attribute("#board", "data-size"))
        cells = page.evaluate(
            """() => [...document.querySelectorAll('#board [data-legal]')]
                .map(e => e.dataset.legal)"""
        )
        if cells:
            row, col = (int(v) for v in cells[(number * 7) % len(cells)].split(","))
        else:  # Go shows no legal marks: spiral over the board, skipping taken points
            board = page.evaluate(
                """() => { const s = document.getElementById('board');
                  return [...s.querySelectorAll('.stones circle.stone')]
                    .map(e => e.dataset.point); }"""
            )
            taken = set(board)
            free = [(r, c) for r in range(size) for c in range(size) if f"{r},{c}" not in taken]
            row, col = free[(number * 37) % len(free)]
        done = page.evaluate("window.imagoStates")
        _click(page, row, col)
        page.wait_for_function(f"window.imagoStates > {done}")
    times: list[float] = page.evaluate("window.imagoTimings")
    return times


@benchmark("web.move", "a move clicked in the page until it is drawn (Chromium, no engine)")
def move_latency(config: BenchConfig) -> list[Figure]:
    missing = _missing()
    if missing:
        return [Figure("web.move_ms", float("nan"), "ms", missing)]
    moves = 20 if config.quick else 60

    def work(page: Any) -> list[Figure]:
        figures = []
        for game, size in (("go", 19), ("go", 9), ("othello", 8)):
            _new_game(page, game, size)
            times = _play_moves(page, moves if game == "go" else min(moves, 50))
            figures.append(
                Figure(
                    f"web.move_ms.{game}{size}",
                    statistics.median(times),
                    "ms",
                    f"median of {len(times)} moves, p90 "
                    f"{statistics.quantiles(times, n=10)[-1]:.1f} ms",
                )
            )
        return figures

    return _with_page(work)


@benchmark("web.analysis", "live analysis updates reaching the page per second (Chromium)")
def analysis_rate(config: BenchConfig) -> list[Figure]:
    missing = _missing()
    if missing:
        return [Figure("web.analysis_per_s", float("nan"), "1/s", missing)]
    seconds = 3.0 if config.quick else 6.0

    def work(page: Any) -> list[Figure]:
        figures = []
        for game, size, moves in (("go", 9, 4), ("othello", 8, 12)):
            _new_game(page, game, size)
            _play_moves(page, moves)
            page.click("#tab-analysis")
            page.evaluate("window.imagoAnalysisTimes = []")
            page.click("#btn-analyze")
            page.wait_for_function("window.imagoAnalysisTimes.length > 0", timeout=120_000)
            page.evaluate("window.imagoAnalysisTimes = []")
            time.sleep(seconds)
            arrivals = page.evaluate("window.imagoAnalysisTimes")
            page.click("#btn-analyze")
            span = seconds
            fresh = sum(1 for _, new in arrivals if new)
            engine = "mcts" if game == "go" else "alphabeta"
            figures.append(
                Figure(
                    f"web.analysis_per_s.{game}{size}",
                    len(arrivals) / span,
                    "1/s",
                    f"{engine}; {fresh / span:.1f}/s with new figures, over {span:g} s",
                )
            )
        return figures

    return _with_page(work)
