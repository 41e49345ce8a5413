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

__all__ = ["Layout", "Morphism", "coalesce", "complement", "compose", "composition", "concatenate",
           "factor", "flat_divide", "flat_product", "permute", "properties", "pullback",
           "pushforward", "restrict",
           "compose_tractable", "compute_layout", "compute_morphism", "filter_zeros", "is_tractable", "logical_divide",
           "logical_product", "make_layout", "make_morphism", "mutual_refinement", "sort", "squeeze"]


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

    def __call__(self, coordinate: IntTuple) -> int:
        """The offset of a linear index, or of a natural coordinate (a tuple
        congruent to a prefix of the shape's modes, colexicographic)."""
        if not isinstance(coordinate, int):
            coordinate = _linear(coordinate, self.shape)
        return _raptor.layout_call(self.shape, self.stride, _int64(coordinate, "coordinate"))

    def __str__(self) -> str:
        return _raptor.layout_str(self.shape, self.stride)

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and (self.shape, self.stride) == (other.shape, other.stride)

    def __hash__(self) -> int:
        return hash((self.shape, self.stride))


def _int64(value: int, what: str) -> int:
    """`value` as the C++ core takes it: a ValueError (not nanobind's
    TypeError) for non-integers and integers beyond 64 bits."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, not {value!r}")
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{what} {value} does not fit in 64 bits")
    return value


def _linear(coordinate: IntTuple, shape: IntTuple) -> int:
    """Colexicographic index of a (possibly partially nested) coordinate."""
    if isinstance(coordinate, int) or isinstance(shape, int):
        return int(coordinate) if isinstance(coordinate, int) else _linear(coordinate, (shape,))
    if len(coordinate) != len(shape):
        raise ValueError(f"coordinate {coordinate} does not match the shape's rank {len(shape)}")
    index, weight = 0, 1
    for c, s in zip(coordinate, shape):
        index += _linear(c, s) * weight
        weight *= Layout(s).size()
    return index


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


class Morphism:
    """A nested tuple morphism domain -> codomain over a pointed map
    (1-based; 0 for `*`), as in the paper's chapter 3 and its module."""

    __slots__ = ("domain", "codomain", "map")

    def __init__(self, domain: IntTuple, codomain: IntTuple, map: tuple[int, ...]) -> None:
        self.domain, self.codomain, self.map = _raptor.morphism_check((domain, codomain, tuple(map)))

    def _t(self) -> tuple:
        return (self.domain, self.codomain, self.map)

    def __str__(self) -> str:
        return _raptor.morphism_str(self._t())

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Morphism) and self._t() == other._t()

    def __hash__(self) -> int:
        return hash(self._t())

    def is_standard_form(self) -> bool:
        return _raptor.morphism_standard_form(self._t())


def _m(t: tuple) -> Morphism:
    return Morphism(*t)


def make_morphism(domain: IntTuple, codomain: IntTuple, map: tuple[int, ...]) -> Morphism:
    return Morphism(domain, codomain, map)


def compute_layout(f: Morphism) -> Layout:
    """L_f, the layout a morphism encodes."""
    return _wrap(_raptor.morphism_layout(f._t()))


def compute_morphism(layout: Layout) -> Morphism:
    """f_L, the standard representation of a tractable layout."""
    return _m(_raptor.layout_morphism(layout.shape, layout.stride))


def compose(f: Morphism, g: Morphism) -> Morphism:
    """g o f (f first), the paper module's convention."""
    return _m(_raptor.morphism_compose(f._t(), g._t()))


def compose_tractable(b: Layout, a: Layout) -> Layout | None:
    """B o A by the chapter 4 algorithm (through morphisms and a mutual
    refinement); None when A or coal(B) is not tractable or no mutual
    refinement exists (the algorithm is sufficient, not necessary)."""
    pair = _raptor.layout_compose_tractable(a.shape, a.stride, b.shape, b.stride)
    return None if pair is None else _wrap(pair)


def mutual_refinement(t: IntTuple, u: IntTuple) -> tuple[IntTuple, IntTuple] | None:
    """Algorithm 4.1.1: (T', U') refining (T, U) with T' dividing U', or None."""
    return _raptor.mutual_refinement(t, u)


def permute(layout: Layout, sigma: tuple[int, ...]) -> Layout:
    """The flat layout with modes in the order sigma (1-based)."""
    return _wrap(_raptor.layout_permute(layout.shape, layout.stride, list(sigma)))


def properties(layout: Layout) -> dict[str, bool]:
    """tractable, complementable, compact, non_degenerate."""
    return dict(_raptor.layout_predicates(layout.shape, layout.stride))


def flat_divide(a: Layout, b: Layout) -> Layout:
    """A /flat B = A o (B * comp_flat(B, size A)) (2.1.7)."""
    return _wrap(_raptor.layout_flat_divide(a.shape, a.stride, b.shape, b.stride))


def flat_product(a: Layout, b: Layout) -> Layout:
    """A *flat B = A * (comp_flat(A, size A cosize B) o B) (2.1.7)."""
    return _wrap(_raptor.layout_flat_product(a.shape, a.stride, b.shape, b.stride))


def restrict(f: Morphism, keep: tuple[int, ...]) -> Morphism:
    """f restricted to the (1-based) domain entries `keep`."""
    return _m(_raptor.morphism_restrict(f._t(), list(keep)))


def factor(f: Morphism, through: tuple[int, ...]) -> Morphism:
    """f factored through the (1-based) codomain entries `through`."""
    return _m(_raptor.morphism_factor(f._t(), list(through)))


def concatenate(f: Morphism, g: Morphism) -> Morphism:
    """(f, g): one codomain, disjoint images."""
    return _m(_raptor.morphism_concatenate(f._t(), g._t()))


def pullback(f: Morphism, codomain: IntTuple) -> Morphism:
    """The pullback of a refinement of cod(f) along f."""
    return _m(_raptor.morphism_pullback(f._t(), codomain))


def pushforward(f: Morphism, domain: IntTuple) -> Morphism:
    """The pushforward of a refinement of dom(f) along f."""
    return _m(_raptor.morphism_pushforward(f._t(), domain))


def is_tractable(layout: Layout) -> bool:
    return _raptor.layout_tractable(layout.shape, layout.stride)


def squeeze(layout: Layout) -> Layout:
    return _wrap(_raptor.layout_squeeze(layout.shape, layout.stride))


def filter_zeros(layout: Layout) -> Layout:
    return _wrap(_raptor.layout_filter(layout.shape, layout.stride))


def sort(layout: Layout) -> Layout:
    return _wrap(_raptor.layout_sort(layout.shape, layout.stride))


def make_layout(*layouts: Layout) -> Layout:
    """The concatenation (L0, L1, ...) as one layout."""
    return Layout(tuple(l.shape for l in layouts), tuple(l.stride for l in layouts))


def coalesce(a: Layout | Morphism, profile: IntTuple | None = None) -> Layout | Morphism:
    """coal(A); with a target profile S (shape(A) refining S) the relative
    coalesce coal(A, S); coal(f) for a morphism."""
    if isinstance(a, Morphism):
        return _m(_raptor.morphism_coalesce(a._t()))
    if profile is not None:
        return _wrap(_raptor.layout_coalesce_to(a.shape, a.stride, profile))
    return _wrap(_raptor.layout_coalesce(a.shape, a.stride))


def complement(a: Layout | Morphism, size: int | None = None) -> Layout | Morphism:
    """comp(A, size); without a size the paper's comp(A); f^c for a morphism."""
    if isinstance(a, Morphism):
        return _m(_raptor.morphism_complement(a._t()))
    if size is None:
        return _wrap(_raptor.layout_complement_minimal(a.shape, a.stride))
    return _wrap(_raptor.layout_complement(a.shape, a.stride, _int64(size, "complement size")))


def composition(a: Layout, b: Layout) -> Layout:
    """a o b."""
    return _wrap(_raptor.layout_composition(a.shape, a.stride, b.shape, b.stride))


def logical_divide(a, b):
    """A / B for layouts; f / g = f o (g, g^c) for morphisms."""
    if isinstance(a, Morphism):
        return _m(_raptor.morphism_logical_divide(a._t(), b._t()))
    return _wrap(_raptor.layout_logical_divide(a.shape, a.stride, b.shape, b.stride))


def logical_product(a, b):
    """A x B for layouts; f x g = (f, f^c o g) for morphisms."""
    if isinstance(a, Morphism):
        return _m(_raptor.morphism_logical_product(a._t(), b._t()))
    return _wrap(_raptor.layout_logical_product(a.shape, a.stride, b.shape, b.stride))
