"""CuTe layouts (shared seed 004, chapter 2), computed by Raptor's C++ core.

    from raptor.layout import Layout, composition, complement, logical_divide
    A = Layout((4, 4), (16, 1))
    print(A)                          # (4,4):(16,1)
    print(composition(A, Layout(4, 4)), A(5))

Conventions as in the paper's section 1.4: ``composition(B, A)`` is B o A;
``complement(A, N)`` is comp(A, N). A call whose preconditions fail raises
ValueError naming the condition.
"""

from __future__ import annotations

from typing import Union

from .. import _raptor

IntTuple = Union[int, tuple["IntTuple", ...]]

__all__ = ["Layout", "coalesce", "complement", "composition", "logical_divide",
           "logical_product", "make_layout"]


class Layout:
    """shape:stride, nested tuples of the same profile."""

    __slots__ = ("shape", "stride")

    def __init__(self, shape: IntTuple, stride: IntTuple | None = None) -> None:
        if stride is None:  # compact column-major strides
            stride = _compact(shape)
        self.shape, self.stride = _raptor.layout_check(shape, stride)

    def size(self) -> int:
        return _raptor.layout_size(self.shape, self.stride)

    def cosize(self) -> int:
        return _raptor.layout_cosize(self.shape, self.stride)

    def __call__(self, i: int) -> int:
        return _raptor.layout_call(self.shape, self.stride, i)

    def __str__(self) -> str:
        return _raptor.layout_str(self.shape, self.stride)

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and (self.shape, self.stride) == (other.shape, other.stride)

    def __hash__(self) -> int:
        return hash((self.shape, self.stride))


def _compact(shape: IntTuple) -> IntTuple:
    running = 1

    def walk(s: IntTuple) -> IntTuple:
        nonlocal running
        if isinstance(s, int):
            d, running = running, running * s
            return d
        return tuple(walk(c) for c in s)

    return walk(shape)


def _wrap(pair: tuple[IntTuple, IntTuple]) -> Layout:
    return Layout(pair[0], pair[1])


def make_layout(*layouts: Layout) -> Layout:
    """The concatenation (L0, L1, ...) as one layout."""
    return Layout(tuple(l.shape for l in layouts), tuple(l.stride for l in layouts))


def coalesce(a: Layout) -> Layout:
    return _wrap(_raptor.layout_coalesce(a.shape, a.stride))


def complement(a: Layout, size: int) -> Layout:
    return _wrap(_raptor.layout_complement(a.shape, a.stride, size))


def composition(a: Layout, b: Layout) -> Layout:
    """a o b."""
    return _wrap(_raptor.layout_composition(a.shape, a.stride, b.shape, b.stride))


def logical_divide(a: Layout, b: Layout) -> Layout:
    return _wrap(_raptor.layout_logical_divide(a.shape, a.stride, b.shape, b.stride))


def logical_product(a: Layout, b: Layout) -> Layout:
    return _wrap(_raptor.layout_logical_product(a.shape, a.stride, b.shape, b.stride))
