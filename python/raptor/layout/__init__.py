"""CuTe layouts (shared seed 004, chapter 2), computed by Raptor's C++ core.

    from raptor.layout import Layout, composition, complement, logical_divide
    A = Layout((4, 4), (16, 1))
    print(A)                          # (4,4):(16,1)
    print(composition(A, Layout(4, 4)), A(5))

Conventions as in the paper's section 1.4: ``composition(B, A)`` is B o A;
``complement(A, N)`` is comp(A, N). A call whose preconditions fail raises
ValueError naming the condition.

`Layout` and `Morphism` are C++ objects (python/LayoutModule.cpp): validated
once when built from tuples, passed to and returned by every operation
without a round trip through Python tuples; `shape`, `stride`, `domain`,
`codomain` and `map` build tuples when read.
"""

from __future__ import annotations

from typing import Union

from .._raptor import layout as _core

IntTuple = Union[int, tuple["IntTuple", ...]]

__all__ = ["Layout", "Morphism", "coalesce", "complement", "compose", "composition", "concatenate",
           "factor", "flat_divide", "flat_product", "permute", "properties", "pullback",
           "pushforward", "restrict",
           "compose_tractable", "compute_layout", "compute_morphism", "filter_zeros", "is_tractable", "logical_divide",
           "logical_product", "make_layout", "make_morphism", "mutual_refinement", "sort", "squeeze"]

Layout = _core.Layout
Morphism = _core.Morphism

coalesce = _core.coalesce
complement = _core.complement
composition = _core.composition
logical_divide = _core.logical_divide
logical_product = _core.logical_product
compose = _core.compose
compose_tractable = _core.compose_tractable
compute_layout = _core.compute_layout
compute_morphism = _core.compute_morphism
concatenate = _core.concatenate
factor = _core.factor
filter_zeros = _core.filter_zeros
flat_divide = _core.flat_divide
flat_product = _core.flat_product
is_tractable = _core.is_tractable
make_layout = _core.make_layout
mutual_refinement = _core.mutual_refinement
permute = _core.permute
properties = _core.properties
pullback = _core.pullback
pushforward = _core.pushforward
restrict = _core.restrict
sort = _core.sort
squeeze = _core.squeeze


def make_morphism(domain: IntTuple, codomain: IntTuple, map: tuple[int, ...]) -> Morphism:
    return Morphism(domain, codomain, map)
