"""A target's transfer estimates (raptor._raptor.Target): the per-pair time
by pimsim-nn's rules and the mean the list scheduler's ranks and the
replication plan use before cores are chosen, against brute force over
every ordered pair of distinct cores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import raptor
from raptor import _raptor

from pim_helpers import small_target

ISAAC = Path(raptor.__file__).parent / "spatial" / "targets" / "isaac168.json"


def _target(cores: int, mesh: tuple[int, int]) -> _raptor.Target:
    return _raptor.Target.parse(json.dumps(small_target(cores, mesh, 2)), "t.json")


@pytest.mark.parametrize("size", [1, 64, 1000, 65536])
def test_on_two_cores_the_mean_is_the_one_pair(size: int) -> None:
    """One pair: the mean transfer is that pair's (rounded up to a whole
    ns), the receiver's permission flit included."""
    t = _target(2, (1, 2))
    assert t.transfer_ns(size, 0, 1) == t.transfer_ns(size, 1, 0)
    assert t.transfer_ns(size, 0, 1) - 1 < t.mean_transfer_ns(size) <= t.transfer_ns(size, 0, 1) + 1e-9


@pytest.mark.parametrize("path", ["small", "isaac"])
@pytest.mark.parametrize("size", [64, 4096, 1 << 20])
def test_the_mean_is_the_mean_over_every_ordered_pair(path: str, size: int) -> None:
    """On a mesh the flit latency grows with the hops; the mean transfer is
    the mean of every ordered pair's (each rounded up: within 1 ns), not
    the mean over cores x cores pairs, which counts a core to itself."""
    t = _raptor.Target.load(str(ISAAC)) if path == "isaac" else _target(12, (3, 4))
    pairs = [(a, b) for a in range(t.cores) for b in range(t.cores) if a != b]
    mean = sum(t.transfer_ns(size, a, b) for a, b in pairs) / len(pairs)
    assert mean - 1 - 1e-9 <= t.mean_transfer_ns(size) <= mean + 1e-9
    far, near = t.transfer_ns(size, 0, t.cores - 1), t.transfer_ns(size, 0, 1)
    assert far > near and near < t.mean_transfer_ns(size) < far


def test_a_transfer_on_one_core_is_free_and_bad_arguments_are_errors() -> None:
    t = _target(4, (2, 2))
    assert t.transfer_ns(4096, 2, 2) == 0 and t.transfer_ns(0, 0, 3) == 0 and t.mean_transfer_ns(0) == 0
    for call in (lambda: t.transfer_ns(8, 0, 4), lambda: t.transfer_ns(8, -1, 0), lambda: t.transfer_ns(-8, 0, 1),
                 lambda: t.mean_transfer_ns(-1)):
        with pytest.raises(ValueError):
            call()
    assert _target(1, (1, 1)).mean_transfer_ns(4096) == 0
