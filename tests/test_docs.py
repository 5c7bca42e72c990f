"""The examples people read run: the README's Python quickstart and every docstring example."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import imago

_ROOT = Path(imago.__file__).resolve().parent
_README = _ROOT.parents[1] / "README.md"
_WITH_EXAMPLES = sorted(
    ".".join(("imago", *path.relative_to(_ROOT).with_suffix("").parts)).removesuffix(".__init__")
    for path in _ROOT.rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


def test_the_readme_quickstart_runs() -> None:
    text = _README.read_text(encoding="utf-8")
    assert text.count("```pycon") >= 3  # the quickstart is there to be run
    result = doctest.testfile(str(_README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 20 and result.failed == 0, result


def test_modules_with_examples_are_found() -> None:
    assert {"imago.core.move", "imago.records", "imago.games.othello.bitboard"} <= set(
        _WITH_EXAMPLES
    )


_TOO_SLOW = ('EndgameSolver(18).solve_board("-" * 14',)
"""Examples left out: solving 6x6 Othello from its start position takes four minutes."""


@pytest.mark.parametrize("name", _WITH_EXAMPLES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module):
        test.examples = [
            e for e in test.examples if not any(e.source.startswith(s) for s in _TOO_SLOW)
        ]
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result}"
