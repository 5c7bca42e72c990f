"""The architecture, checked: imports between imago's packages flow one way.

    core -> cluster, games -> records -> agents -> gtp -> nn, train -> arena, ui -> envs
         -> rl, bench, tune -> cli

A module may import its own package and any package of a lower layer, never a higher one
(plugin discovery by module name, as the agent and benchmark registries do, is not an import).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import imago

LAYERS = {
    "core": 0,
    "cluster": 1,
    "games": 1,
    "records": 2,
    "agents": 3,
    "gtp": 4,
    "nn": 5,
    "train": 6,
    "arena": 7,
    "ui": 7,
    "envs": 8,
    "rl": 9,
    "bench": 9,
    "tune": 9,
    "cli": 10,
}
ROOT = Path(imago.__file__).parent
MODULES = sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts[0] in LAYERS)


def imported_packages(path: Path) -> set[str]:
    """The top-level imago packages a module imports (``imago.X...`` -> ``X``)."""
    names = _all_imports(path)
    return {name.split(".")[1] for name in names if name.startswith("imago.") and "." in name}


def test_every_package_has_a_layer():
    packages = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), packages - set(LAYERS)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_flow_one_way(path: Path):
    own = path.relative_to(ROOT).parts[0]
    upward = {
        name for name in imported_packages(path) if name in LAYERS and LAYERS[name] > LAYERS[own]
    }
    assert not upward, f"{path.relative_to(ROOT)} ({own}) imports higher layers: {upward}"


def test_torch_only_in_nn():
    for path in MODULES:
        package = path.relative_to(ROOT).parts[0]
        if package == "nn":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                module = getattr(node, "module", None) or ""
                names = [module] + [a.name for a in node.names]
                assert not any(n.split(".")[0] == "torch" for n in names), path


def _private_imports(path: Path) -> set[str]:
    """What a module imports with a private part in its name (``imago.x._y``,
    ``from imago.x import _y``), by full name."""
    found = set(_all_imports(path))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {
        name
        for name in found
        if name.startswith("imago.") and any(_private(part) for part in name.split(".")[1:])
    }


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")  # __version__ is public


BENCH_MAY_TIME_KERNELS = "bench"
"""The benchmarks time numba kernels directly, so they alone reach into private modules."""


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_private_modules_stay_inside_their_package(path: Path):
    own = path.relative_to(ROOT).parts[0]
    if own == BENCH_MAY_TIME_KERNELS:
        return
    foreign = {name for name in _private_imports(path) if name.split(".")[1] != own}
    assert not foreign, f"{path.relative_to(ROOT)} reaches into other packages: {foreign}"


@pytest.mark.parametrize(("package", "other_game"), [("go", "othello"), ("othello", "go")])
def test_one_games_agent_code_never_reads_the_other_game(package: str, other_game: str):
    for path in sorted((ROOT / "agents" / package).rglob("*.py")):
        wrong = {
            name
            for name in _all_imports(path)
            if name.startswith((f"imago.games.{other_game}", f"imago.agents.{other_game}"))
        }
        assert not wrong, f"{path.relative_to(ROOT)} imports {wrong}"


def _all_imports(path: Path) -> set[str]:
    """Every module a module imports, by full name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


GO_STATE_LAYOUT = ROOT / "games" / "go" / "_board.py"
"""The one module that knows where the fields of a Go state array lie (``L_*`` regions);
``_kernels.py`` only re-exports them to the rules' other kernels."""
GO_STATE_REEXPORT = ROOT / "games" / "go" / "_kernels.py"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_go_rules_know_the_go_state_layout(path: Path):
    """Other kernels read groups through the rules' accessors (``group_head``, ``next_stone``,
    ``group_size``, ``atari_liberty``, ``empty_at``), so a layout change cannot make them read
    the wrong fields."""
    if path in (GO_STATE_LAYOUT, GO_STATE_REEXPORT):
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    layout = sorted(n for n in names if n.startswith("L_") and n[2:].isupper())
    assert not layout, f"{path.relative_to(ROOT)} reads the Go state layout: {layout}"
