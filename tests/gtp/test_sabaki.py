"""Sabaki's GTP controller library (``@sabaki/gtp`` from npm) drives ``imago gtp`` through a
scripted session (``tests/js/gtp_session.js``): the commands a GUI sends, its state tracker's
sync, and live analysis interrupted by the next command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from imago.agents.registry import agent_specs

JS = Path(__file__).resolve().parents[1] / "js"

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def session(agent: str) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / "@sabaki" / "gtp").is_dir():
        pytest.skip("node or @sabaki/gtp is not installed")
    engine = [
        sys.executable,
        "-m",
        "imago",
        "gtp",
        "--agent",
        agent,
        "--seed",
        "1",
        "--move-time",
        "0.5",
    ]
    done = subprocess.run(
        [node, str(JS / "gtp_session.js"), json.dumps(engine)],
        capture_output=True,
        text=True,
        timeout=400,
        cwd=JS,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_sabaki_drives_a_session():
    log = session("random")
    assert log["protocol_version"] == {"error": False, "content": "2"}
    assert log["name"]["content"] == "imago"
    assert "lz-analyze" in log["list_commands"]["content"].split("\n")
    assert log["unknown"] == {"error": True, "content": "unknown command"}
    assert sorted(log["black"]["content"].split()) == ["C3", "D4"]
    assert log["white"]["content"] == "E5"
    reply = log["genmove"]["content"]
    assert not log["genmove"]["error"] and reply not in ("D4", "E5", "C3")
    assert log["illegal"] == {"error": True, "content": "illegal move"}
    assert log["after_undo"]["content"] == "E5"
    assert log["after_reg_genmove"]["content"] == "E5"
    assert "A B C D E F G H J" in log["showboard"]["content"]
    assert log["sgf_root"] == {"SZ": ["9"], "KM": ["6.5"]}
    assert log["sgf_moves"][:3] == ["B[df]", "W[ee]", "B[cg]"]  # D4 E5 C3
    assert len(log["sgf_moves"]) == 3  # White's genmove was undone
    assert log["analysis"]["error"] is True
    assert "no search information" in log["analysis"]["content"]
    assert log["after_analysis"]["content"] == "imago"
    assert log["final_score"]["content"].startswith(("B+", "W+"))
    assert log["stopped"] is True


@pytest.mark.skipif("mcts" not in agent_specs(), reason="no searching agent registered")
def test_sabaki_receives_live_analysis():
    log = session("mcts")
    assert log["analysis"]["error"] is False
    assert len(log["analysis"]["lines"]) >= 3
    for line in log["analysis"]["lines"]:
        assert line.startswith("info move ") and " visits " in line and " pv " in line
    assert log["after_analysis"]["content"] == "imago"
