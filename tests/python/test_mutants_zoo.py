"""Tests that kill surviving mutants of `make mutate` (docs/mutation.md) in
raptor.zoo: where generated zoo data is cached."""

from __future__ import annotations

from pathlib import Path

import pytest

from raptor.zoo import cache_dir


def test_the_cache_is_raptor_under_the_xdg_cache_or_home_unless_raptor_cache_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAPTOR_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "raptor"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "raptor"
    monkeypatch.setenv("RAPTOR_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
