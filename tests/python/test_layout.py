"""The layout algebra against NVIDIA's pycute (the reference implementation
of CuTe's algebra; a test dependency, see requirements/oracles.txt), on
thousands of seeded random inputs. Where our implementation refuses an
input (a violated precondition), nothing is compared; where it answers,
pycute must give the same layout function and size."""

from __future__ import annotations

import random

import pycute
import pytest

from raptor.layout import (Layout, coalesce, complement, composition, logical_divide,
                           logical_product, make_layout, permute)

N = 1500


def _random_tuple(rng: random.Random, depth: int = 0):
    if depth >= 2 or rng.random() < 0.55:
        return rng.choice([1, 2, 2, 3, 4])
    return tuple(_random_tuple(rng, depth + 1) for _ in range(rng.randint(1, 3)))


def _strides_like(rng: random.Random, shape, compact_bias: float):
    """Strides of the same profile: mostly compact-ish, sometimes arbitrary."""
    running = 1

    def walk(s):
        nonlocal running
        if isinstance(s, int):
            if rng.random() < compact_bias:
                d = running * rng.choice([1, 1, 1, 2])
            else:
                d = rng.choice([0, 1, 2, 3, 4, 8, 16])
            running = max(running, d * s)
            return d
        return tuple(walk(c) for c in s)

    return walk(shape)


def _random_layout(rng: random.Random, compact_bias: float = 0.7) -> Layout:
    shape = _random_tuple(rng)
    return Layout(shape, _strides_like(rng, shape, compact_bias))


def _pycute(layout: Layout) -> pycute.Layout:
    return pycute.Layout(layout.shape, layout.stride)


def _same_function(ours: Layout, theirs: pycute.Layout) -> bool:
    return ours.size() == pycute.size(theirs) and all(
        ours(i) == theirs(i) for i in range(ours.size()))


def test_printing_matches_the_paper() -> None:
    assert str(Layout(((4, 4), 4), ((16, 1), 4))) == "((4,4),4):((16,1),4)"
    assert str(Layout((4, 2))) == "(4,2):(1,4)"


@pytest.mark.parametrize("chunk", range(3))
def test_coalesce_matches_pycute(chunk: int) -> None:
    rng = random.Random(chunk)
    for _ in range(N // 3):
        a = _random_layout(rng, 0.5)
        ours = coalesce(a)
        assert _same_function(ours, pycute.coalesce(_pycute(a))), a
        assert _same_function(ours, _pycute(a))  # coalescing keeps the function
        assert isinstance(ours.shape, int) or all(s != 1 for s in ours.shape)


@pytest.mark.parametrize("chunk", range(3))
def test_complement_matches_pycute(chunk: int) -> None:
    rng = random.Random(100 + chunk)
    compared = 0
    for _ in range(N // 3):
        a = _random_layout(rng, 0.9)
        m = a.cosize() * rng.choice([1, 2, 3, 4])
        try:
            ours = complement(a, m)
        except ValueError:
            continue
        compared += 1
        assert _same_function(ours, pycute.complement(_pycute(a), m)), (a, m)
        # For an injective a, (a, complement) is injective too: the complement
        # fills the gaps without hitting a's offsets again.
        if len({a(i) for i in range(a.size())}) == a.size():
            both = make_layout(a, ours)
            assert len({both(i) for i in range(both.size())}) == both.size(), (a, m)
    assert compared > N // 10


@pytest.mark.parametrize("chunk", range(3))
def test_composition_matches_pycute(chunk: int) -> None:
    rng = random.Random(200 + chunk)
    compared = outside = 0
    for _ in range(N // 3):
        a = _random_layout(rng, 0.8)
        b = _random_layout(rng, 0.8)
        try:
            ours = composition(a, b)
        except ValueError as e:
            # Raptor refuses what pycute composes anyway: b reaching past a's
            # domain (checked here by brute force), or modes that do not
            # divide (rare: at most 5% of the pairs).
            if "outside the domain" in str(e):
                assert max(b(i) for i in range(b.size())) >= a.size(), (a, b, e)
                outside += 1
            continue
        compared += 1
        theirs = pycute.composition(_pycute(a), _pycute(b))
        assert _same_function(ours, theirs), (a, b, ours, theirs)
        # The defining property: (a o b)(i) = a(b(i)) wherever b(i) is in a's domain.
        assert all(ours(i) == a(b(i)) for i in range(b.size()) if b(i) < a.size())
    assert compared > 0.4 * (N // 3) and N // 3 - compared - outside <= 0.05 * (N // 3)


@pytest.mark.parametrize("op, ref", [(logical_divide, pycute.logical_divide),
                                     (logical_product, pycute.logical_product)])
def test_divide_and_product_match_pycute(op, ref) -> None:
    rng = random.Random(300)
    compared = 0
    for _ in range(N):
        a = _random_layout(rng, 0.9)
        b = _random_layout(rng, 0.9)
        try:
            ours = op(a, b)
        except ValueError:
            continue
        compared += 1
        assert _same_function(ours, ref(_pycute(a), _pycute(b))), (a, b)
    assert compared > N // 20


@pytest.mark.parametrize("bad, message", [
    (lambda: Layout((2, 2), (1,)), "same profile"),
    (lambda: Layout(0, 1), "below 1"),
    (lambda: complement(Layout((2, 2), (1, 1)), 8), "not complementable"),
    (lambda: composition(Layout(4, 1), Layout(3, 2)), "outside the domain"),
    (lambda: composition(Layout((3, 4), (1, 5)), Layout(2, 2)), "do not divide"),
    (lambda: Layout(4, 1)(4), "outside the domain"),
    # int64 overflow is refused, never wrapped into a wrong layout.
    (lambda: Layout(2**70, 1), "does not fit in 64 bits"),
    (lambda: Layout((2**40, 2**40), (1, 2**40)), "too large"),
    (lambda: Layout(2**40, 2**40), "too large"),
    (lambda: logical_product(Layout(2**31, 1), Layout(2**31, 2**31)), "overflows 64-bit"),
])
def test_violated_preconditions_raise(bad, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bad()


def test_picture_shows_every_offset() -> None:
    import xml.etree.ElementTree as ET

    from raptor.layout.picture import render_svg

    layout = Layout((4, (2, 2)), (2, (1, 8)))
    root = ET.fromstring(render_svg(layout))
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0] == "(4,(2,2)):(2,(1,8))"
    assert sorted(int(t) for t in texts[1:]) == sorted(layout(i) for i in range(layout.size()))


def test_dialect_folds_like_the_python_api() -> None:
    from mlir import ir, passmanager

    import raptor

    a, b = Layout(((4, 4), 4), ((16, 1), 4)), Layout((4, 2), (2, 8))
    with raptor.Context():
        module = ir.Module.parse(f"""
          func.func @f() -> !layout.layout {{
            %a = layout.constant #layout.layout<{a}>
            %b = layout.constant #layout.layout<{b}>
            %c = layout.logical_divide %a, %b
            return %c : !layout.layout
          }}""")
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
    assert f"layout.constant <{logical_divide(a, b)}>" in str(module)


def test_natural_coordinates() -> None:
    a = Layout(((4, 4), 4), ((16, 1), 4))
    assert a(((1, 2), 3)) == a(1 + 4 * 2 + 16 * 3) == 1 * 16 + 2 * 1 + 3 * 4
    assert a((5, 3)) == a(5 + 16 * 3)
    with pytest.raises(ValueError, match="rank"):
        a((1, 2, 3))


def test_entries_beyond_64_bits_are_value_errors() -> None:
    """Fuzz finding: complement(Layout(4, 1), 2**63) raised nanobind's
    TypeError; the algebra's callers see ValueError only."""
    from raptor.layout import Layout, complement

    with pytest.raises(ValueError, match="complement size 9223372036854775808 does not fit in 64 bits"):
        complement(Layout(4, 1), 2**63)
    with pytest.raises(ValueError, match="coordinate 9223372036854775808 does not fit in 64 bits"):
        Layout(4, 1)(2**63)
    with pytest.raises(ValueError, match="not tractable"):
        from raptor.layout import compute_morphism
        compute_morphism(Layout((1, 1, 1), (4, 0, -1)))


# -- the object API: C++ Layout and Morphism objects behind the binding --------


def test_operations_take_and_return_cpp_objects() -> None:
    """A chain of operations passes C++ objects along; tuples are built only
    when shape/stride are read, and equal the ones a layout was built from."""
    import pickle

    from raptor import _raptor
    from raptor.layout import Morphism, compose, compute_layout

    a = Layout(((4, 4), 4), ((16, 1), 4))
    b = Layout((4, 2), (2, 8))
    assert type(a) is _raptor.layout.Layout and Layout.__module__ == "raptor.layout"
    chained = coalesce(composition(logical_divide(a, b), Layout(8, 2)))
    assert type(chained) is Layout
    assert chained == Layout(chained.shape, chained.stride)
    assert (a.shape, a.stride) == (((4, 4), 4), ((16, 1), 4))
    assert Layout((4, 2)).stride == (1, 4) and Layout(4).stride == 1
    assert hash(a) == hash(Layout(((4, 4), 4), ((16, 1), 4))) and a != b and a != "a"
    assert len({a, Layout(((4, 4), 4), ((16, 1), 4)), b}) == 2
    assert pickle.loads(pickle.dumps(a)) == a
    f = Morphism((4, 4), (4, 2, 4), [1, 3])
    assert f.map == (1, 3) and f.domain == (4, 4) and hash(f) == hash(Morphism((4, 4), (4, 2, 4), (1, 3)))
    assert pickle.loads(pickle.dumps(f)) == f
    assert compute_layout(compose(f, Morphism((4, 2, 4), (4, 2, 4), (1, 2, 3)))) == compute_layout(f)


@pytest.mark.parametrize("bad, message", [
    (lambda: Layout((2, 2.0), (1, 2)), "ints or tuples of them"),
    (lambda: Layout([2, 2], (1, 2)), "ints or tuples of them"),
    (lambda: Layout((2, 2), (1, 2**63)), "layout entry 9223372036854775808 does not fit in 64 bits"),
    (lambda: Layout((2**40, 2**40)), "too large"),
    (lambda: Layout(4, 1)(True), "must be an integer"),
    (lambda: Layout(4, 1)(1.5), "neither an integer nor a tuple"),
    (lambda: Layout((4, 4), (1, 4))((1, 2**64)), "does not fit in 64 bits"),
    (lambda: complement(Layout(4, 1), "8"), "must be an integer"),
    (lambda: complement(Layout(4, 1), -(2**64)), "does not fit in 64 bits"),
    (lambda: permute(Layout((2, 2), (1, 2)), (1, 2**70)), "is not an integer of 64 bits"),
    (lambda: make_layout(Layout(2, 1), (2, 1)), "takes layouts"),
])
def test_object_api_errors_are_value_errors(bad, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bad()


def test_deep_nesting_is_refused_not_a_crash() -> None:
    deep = 2
    for _ in range(100_000):
        deep = (deep,)
    with pytest.raises(ValueError, match="nest deeper"):
        Layout(deep, deep)
    with pytest.raises(ValueError, match="nest deeper"):
        from raptor.layout import mutual_refinement
        mutual_refinement(deep, 2)


def test_core_throughput_entry_runs_the_same_operations() -> None:
    from raptor._raptor import layout as core

    a, b = Layout((4, 8), (1, 4)), Layout((2, 2), (1, 4))
    for op, case in (("composition", (a, b)), ("complement", (a, 64)), ("logical_divide", (a, b))):
        assert core.core_seconds_per_operation(op, [case], 3) > 0
    with pytest.raises(ValueError, match="refused"):
        core.core_seconds_per_operation("composition", [(Layout(4, 1), Layout(3, 2))])
    with pytest.raises(ValueError, match="unknown operation"):
        core.core_seconds_per_operation("product", [(a, b)])


def test_reference_counts_are_stable() -> None:
    """The binding neither leaks nor over-releases the objects it is given
    (nanobind's exit-time leak report is off, see python/LayoutModule.cpp)."""
    import sys

    from raptor.layout import Morphism, compose, mutual_refinement, properties

    a, b = Layout((4, 8, 2), (1, 8, 64)), Layout((2, 2), (1, 4))
    f, t, n = Morphism((4, 4), (4, 2, 4), (1, 3)), (4, (2, 2)), 512
    before = [sys.getrefcount(x) for x in (a, b, f, t, n)]
    g = Morphism((4, 2, 4), (4, 2, 4), (1, 2, 3))
    for _ in range(200):
        logical_divide(a, b), composition(a, b), complement(a, n), a(3), a((1, 2, 1)), Layout(t)
        mutual_refinement(t, t), compose(f, g), f.map, a.shape, hash(a), a == b, make_layout(a, b)
        properties(a)
        with pytest.raises(ValueError):
            Layout(t, (1,))
        with pytest.raises(ValueError):
            a((1, 2, 3, 4))
    assert [sys.getrefcount(x) for x in (a, b, f, t, n)] == before
