"""``bench/go_legal_probe.py`` runs and reports every figure its docstring names."""

from __future__ import annotations

import sys

import pytest

from repo_scripts import load_script


def test_the_probe_reports_its_figures(monkeypatch: pytest.MonkeyPatch, capsys):
    probe = load_script("bench/go_legal_probe.py")
    monkeypatch.setattr(sys, "argv", ["go_legal_probe.py", "--games", "8", "--moves", "30"])
    probe.main()
    out = capsys.readouterr().out
    for rules in ("chinese", "japanese"):
        assert f"{rules}: " in out
    assert out.count("touch + legal") == 2
    assert "scan, branches" in out and "scan, no branch" in out
