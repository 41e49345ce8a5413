"""The complement of a layout in a size `m` smaller than the layout's span
(algebra/LayoutAlgebra.cpp): every m from 1 to twice the span, against
pycute's complement (the CuTe reference implementation). The random tests
of test_layout.py draw m as a multiple of the cosize, which almost never
falls between the cosize and the span of the last mode (4:2 has cosize 7
and spans 8), where the complement's last mode is ceil(m / span) = 1, not
floor = 0.

Hand-made C++ mutant of 2026-12-06 (docs/mutation.md) that this kills: the
complement's last mode rounded down instead of up."""

from __future__ import annotations

import pycute
import pytest

from raptor.layout import Layout, complement


def _same_function(ours: Layout, theirs: pycute.Layout) -> bool:
    return ours.size() == pycute.size(theirs) and all(ours(i) == theirs(i) for i in range(ours.size()))


@pytest.mark.parametrize("shape, stride", [(4, 2), (8, 1), ((2, 3), (1, 4)), ((3, 2), (2, 12)), (1, 5)])
def test_complement_in_every_size_up_to_twice_the_span(shape, stride) -> None:
    """Each layout's strides divide one another, so the complement in m
    exists exactly when the last repetition of the span of its largest
    mode (shape x stride; 1 with no mode of size above 1) fits m: m at most
    the span (one repetition, ceil(m / span) = 1) or a multiple of it. Then
    it equals pycute's; else it is refused (docs/layout.md: preconditions
    are checked, pycute would return a wrong-size result)."""
    a = Layout(shape, stride)
    flat_shape = shape if isinstance(shape, tuple) else (shape,)
    flat_stride = stride if isinstance(stride, tuple) else (stride,)
    span = max([s * d for s, d in zip(flat_shape, flat_stride) if s != 1 and d != 0], default=1)
    for m in range(1, 2 * span + 1):
        if m <= span or m % span == 0:
            ours = complement(a, m)
            assert _same_function(ours, pycute.complement(pycute.Layout(shape, stride), m)), (a, m, ours)
        else:
            with pytest.raises(ValueError, match="not complementable"):
                complement(a, m)


def test_the_complement_below_the_span_by_hand() -> None:
    """4:2 in 7: the gap mode 2:1 (offsets 0 and 1 reach the odd offsets
    with a's even ones), then ceil(7 / 8) = 1 copy of the span 8: 2:1.
    8:1 in 6: no gap, one copy of the span: the size-1 layout."""
    c = complement(Layout(4, 2), 7)
    assert (c.size(), [c(i) for i in range(c.size())]) == (2, [0, 1])
    c = complement(Layout(8, 1), 6)
    assert (c.size(), c(0)) == (1, 0)
