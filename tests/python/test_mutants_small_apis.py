"""Tests that kill surviving semantic mutants of `make mutate` (docs/mutation.md)
in small public helpers: the sweep's progress count, a morphism built from its
parts, and the directory a failed `-o` names."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from raptor import layout
from raptor._io import UserError, make_parents
from raptor.sweep.progress import Progress


def test_progress_counts_failed_points_as_finished_not_left() -> None:
    # 7 points: 2 from the cache (one failed), then 1 ok and 1 failed here:
    # 4 finished, 3 left; the ETA extrapolates the 2 computed over those 3.
    now = [100.0]
    out = io.StringIO()
    meter = Progress(7, out, clock=lambda: now[0])
    meter.cached([{"status": "ok"}, {"status": "error"}])
    now[0] = 110.0
    meter.finished("a", {"status": "ok", "seconds": 4.0})
    now[0] = 120.0
    meter.finished("b", {"status": "error", "error": "boom", "seconds": 6.0})
    assert (meter.ok, meter.failed, meter.left) == (2, 2, 3)
    assert meter.eta() == pytest.approx((120.0 - 100.0) / 2 * 3)
    assert out.getvalue().splitlines()[-1].startswith("[sweep] 4/7 finished: 2 ok, 2 failed, 3 left, ETA 30s")


def test_make_morphism_keeps_its_domain_codomain_and_map_apart() -> None:
    m = layout.make_morphism((2, 3), (2, 3, 4), (1, 2))
    assert (tuple(m.domain), tuple(m.codomain), tuple(m.map)) == ((2, 3), (2, 3, 4), (1, 2))


def test_a_directory_that_cannot_be_created_is_the_one_named(tmp_path: Path) -> None:
    # tmp/made is created, tmp/made/<300 characters> cannot be (the name is
    # too long): the message names that one, and tmp/made is taken back.
    bad = tmp_path / "made" / ("a" * 300)
    with pytest.raises(UserError) as e:
        make_parents(bad / "deeper", tmp_path / "out.json")
    assert str(e.value).startswith(f"cannot write '{tmp_path / 'out.json'}': cannot create '{bad}': ")
    assert not (tmp_path / "made").exists()
