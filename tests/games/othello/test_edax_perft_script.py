# ruff: noqa: E501  (Edax's output lines, as it prints them)
"""``bench/edax_perft.py``, the same-run perft comparison with Edax: it reads Edax's real perft
table, patches Edax's ``main.c`` once, and refuses what it cannot use."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from repo_scripts import load_script

# Lines of Edax 4.6's perft output (a run on this machine, 2026-11-26).
EDAX_OUTPUT = """\
  ply           moves        passes          wins         draws        losses    mobility        time   speed
------------------------------------------------------------------------------------------------------------------
   1,               4,            0,            0,            0,            0,    4 -  4,        0:00.000,  5.000 KN/s
   9,         3005288,           24,            0,            0,            0,    0 - 15,        0:00.007,  432.6 MN/s
  10,        24571056,            0,            0,            0,          228,    0 - 16,        0:00.056,  491.8 MN/s
  11,       212258216,          576,            0,            0,          356,    0 - 18,        0:00.446,  537.6 MN/s
Total    240289781
"""


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script("bench/edax_perft.py")


@pytest.mark.parametrize(
    ("ply", "count", "seconds"),
    [(1, 4, 0.0), (9, 3_005_288, 0.007), (10, 24_571_056, 0.056), (11, 212_258_216, 0.446)],
)
def test_reads_edax_perft_table(script: ModuleType, ply: int, count: int, seconds: float) -> None:
    assert script.parse_rows(EDAX_OUTPUT)[ply] == (count, pytest.approx(seconds))


def test_the_perft_option_is_added_once(script: ModuleType, tmp_path: Path) -> None:
    main_c = tmp_path / "main.c"
    before = "int main() {\n" + script.ANCHOR + "\t\telse usage();\n}\n"
    main_c.write_text(before)
    assert script.add_perft_option(main_c)
    patched = main_c.read_text()
    assert patched.count("count_games(&perft_board") == 1
    assert patched.index(script.ANCHOR) < patched.index('"perft"') < patched.index("usage")
    assert not script.add_perft_option(main_c)  # already there
    assert main_c.read_text() == patched


def test_refuses_other_sources(script: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not an Edax source tree"):
        script.build(tmp_path, patch=True)
    (tmp_path / "main.c").write_text("int main() { return 0; }\n")
    with pytest.raises(SystemExit, match="has changed since this script"):
        script.add_perft_option(tmp_path / "main.c")
