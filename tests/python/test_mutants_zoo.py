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


def test_weights_are_built_into_an_empty_cache_as_the_models_parameters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing cached, the weights file is built under the cache with
    every parameter of the bundled graph, each equal to the fixed-seed torch
    model's; a second call finds it rather than building again."""
    import numpy as np

    from raptor import weights
    from raptor.zoo import MODELS, weights_file

    monkeypatch.setenv("RAPTOR_CACHE", str(tmp_path / "cache"))
    path = weights_file("shufflenet_v2")
    assert path.is_file() and path.parent == tmp_path / "cache" / "zoo"
    loaded = weights.load(path)
    state = MODELS["shufflenet_v2"].build().state_dict()
    assert len(loaded) > 50
    for name, array in loaded.items():
        assert np.array_equal(np.asarray(array), state[name].detach().float().numpy()), name
    stamp = path.stat().st_mtime_ns
    assert weights_file("shufflenet_v2") == path and path.stat().st_mtime_ns == stamp
