"""Driving the board page as a person does, and reading back what it shows."""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

from imago.records.tree import GameNode

BOARD_JS = """() => {
  const svg = document.getElementById('board');
  const size = Number(svg.dataset.size);
  const cells = new Array(size * size).fill('0');
  for (const el of svg.querySelectorAll('.stones circle.stone')) {
    const [r, c] = el.dataset.point.split(',').map(Number);
    cells[r * size + c] = el.classList.contains('black') ? '1' : '2';
  }
  return cells.join('');
}"""


class BoardPage:
    """One tab with the imago page."""

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.url = url
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.goto(url)
        page.wait_for_selector("#connection.ok")
        page.wait_for_function("window.imagoReady === true")  # the opening game, as the form
        page.wait_for_selector("#board .bg rect", state="attached")

    # -- reading -----------------------------------------------------------------------------
    def board(self) -> str:
        """The stones drawn: one character per point, ``0`` empty, ``1`` black, ``2`` white."""
        return str(self.page.evaluate(BOARD_JS))

    def status(self) -> str:
        return str(self.page.inner_text("#status"))

    def banner(self) -> str:
        return str(self.page.inner_text("#banner"))

    def move_number(self) -> int:
        return int(self.page.inner_text("#move-number"))

    def size(self) -> int:
        return int(self.page.get_attribute("#board", "data-size") or 0)

    def legal_points(self) -> list[tuple[int, int]]:
        """The legal moves the board marks (Othello)."""
        marks = self.page.eval_on_selector_all(
            "#board [data-legal]", "els => els.map(e => e.dataset.legal)"
        )
        return [tuple(int(v) for v in m.split(",")) for m in marks]  # type: ignore[misc]

    def wait_error(self, words: str) -> None:
        """Until an error shown in the page says ``words``."""
        self.page.wait_for_function(
            "words => window.imagoNotices.some(([level, text]) =>"
            " level === 'error' && text.includes(words))",
            arg=words,
        )

    def last_toast(self) -> str:
        toasts = self.page.locator(".toast")
        return str(toasts.nth(toasts.count() - 1).inner_text()) if toasts.count() else ""

    # -- acting --------------------------------------------------------------------------------
    def click_point(self, row: int, col: int) -> None:
        """Click the point ``(row, col)`` of the board where it is drawn."""
        box = self.page.locator("#board").bounding_box()
        x0, y0, w, h = (
            float(v) for v in (self.page.get_attribute("#board", "viewBox") or "").split()
        )
        x = box["x"] + (col - x0) / w * box["width"]
        y = box["y"] + (row - y0) / h * box["height"]
        self.page.mouse.click(x, y)

    def hover_point(self, row: int, col: int) -> None:
        box = self.page.locator("#board").bounding_box()
        x0, y0, w, h = (
            float(v) for v in (self.page.get_attribute("#board", "viewBox") or "").split()
        )
        self.page.mouse.move(
            box["x"] + (col - x0) / w * box["width"], box["y"] + (row - y0) / h * box["height"]
        )

    def wait_move(self, number: int, timeout: float = 60_000) -> None:
        """Until the page shows move ``number``."""
        self.page.wait_for_function(
            f"document.getElementById('move-number').textContent === '{number}'", timeout=timeout
        )

    def wait_idle(self, timeout: float = 60_000) -> None:
        """Until no engine is thinking about its move."""
        self.page.wait_for_function("!document.querySelector('.player.thinking')", timeout=timeout)

    def new_game(self, timeout: float = 10_000, **fields: str) -> None:
        """Fill the new-game form (``game``, ``size``, ``black``, ``white``...) and start."""
        self.tab("play")
        if "game" in fields:
            self.page.select_option("#ng-game", fields.pop("game"))
        if "size" in fields:
            self.page.select_option("#ng-size", fields.pop("size"))
        for name in ("rules", "handicap"):
            if name in fields:
                self.page.select_option(f"#ng-{name}", fields.pop(name))
        for name, value in fields.items():
            self.page.fill(f"#ng-{name.replace('_', '-')}", value)
        before = self.page.evaluate("window.imagoStates || 0")
        self.page.click("#ng-start")
        self.page.wait_for_function(f"(window.imagoStates || 0) > {before}", timeout=timeout)

    def tab(self, name: str) -> None:
        self.page.click(f"#tab-{name}")

    def upload(self, files: list[Path]) -> None:
        self.tab("record")
        self.page.set_input_files("#file-input", [str(f) for f in files])

    def paste(self, text: str) -> None:
        self.tab("record")
        self.page.fill("#paste", text)
        self.page.click("#btn-paste")

    def download_sgf(self) -> str:
        """Press Download SGF and return the file's text."""
        self.tab("record")
        with self.page.expect_download() as info:
            self.page.click("#btn-download")
        path = info.value.path()
        return Path(path).read_text(encoding="utf-8")

    def key(self, key: str, times: int = 1) -> None:
        for _ in range(times):
            before = self.page.evaluate("window.imagoStates || 0")
            self.page.keyboard.press(key)
            self.page.wait_for_function(f"(window.imagoStates || 0) > {before}")

    def shot(self, folder: Path, name: str) -> Path:
        path = folder / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path


def board_of(node: GameNode) -> str:
    """The board of a record's node in the page's form."""
    return "".join(str(int(v)) for v in node.state.board().reshape(-1).tolist())


def b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def wait_until(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        time.sleep(0.05)
