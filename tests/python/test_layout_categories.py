"""Worked examples of the paper (chapters 2-4) as test vectors, and its
compatibility theorems as properties of random morphisms.

Printed misprints are corrected as references.md and our reading of the
paper record (e.g. 2.1.6.13, 3.2.6.24)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from raptor.layout import (Layout, Morphism, coalesce, complement, compose, composition,
                           compute_layout, compute_morphism, filter_zeros, is_tractable,
                           logical_divide, logical_product, sort, squeeze)

L = Layout
M = Morphism


@pytest.mark.parametrize("layout, size, cosize", [
    (L((64, 32), (1, 128)), 2048, 4032),                       # 2.1.2.10
    (L((3, 8, 8, 8), (1, 3, 24, 192)), 1536, 1536),            # 2.1.2.11
    (L((2, 2, 2, 2, 2), (160, 80, 40, 20, 10)), 32, 311),      # 2.1.2.12
])
def test_size_and_cosize(layout: Layout, size: int, cosize: int) -> None:
    assert (layout.size(), layout.cosize()) == (size, cosize)


def test_layout_function() -> None:                            # 2.1.2.22
    a = L((4, 2, 2), (3, 3, 100))
    assert (a(7), a(9)) == (12, 103)


@pytest.mark.parametrize("op, arg, expected", [
    (squeeze, L((64, 64, 1), (1, 64, 0)), "(64,64):(1,64)"),                     # 2.1.3.7
    (squeeze, L((64, 64, 1, 32, 1), (2048, 32, 0, 1, 0)), "(64,64,32):(2048,32,1)"),
    (filter_zeros, L((64, 8, 8, 128), (8, 1, 0, 512)), "(64,8,128):(8,1,512)"),  # 2.1.3.13
    (filter_zeros, L((3, 8, 8, 8), (16, 0, 0, 0)), "(3):(16)"),                  # 2.1.3.15
    (sort, L((2, 4, 8, 16), (64, 1, 2, 4)), "(4,8,16,2):(1,2,4,64)"),            # 2.1.3.32
    (sort, L((5, 32, 16), (1, 5, 5)), "(5,16,32):(1,5,5)"),                      # 2.1.3.33
    (coalesce, L((2, 2, 2, 2, 2), (8, 16, 1024, 2048, 4096)), "(4,8):(8,1024)"),  # 2.1.4.11
    (coalesce, L((3, 4, 1, 5), (1, 8, 3, 32)), "(3,20):(1,8)"),                  # 2.1.4.12
    (coalesce, L((), ()), "1:0"),                                                # 2.3.3.8
    (coalesce, L((1, 1), (2, 4)), "1:0"),                                        # 2.3.3.9
    (coalesce, L((512,), (4,)), "512:4"),                                        # 2.3.3.10
    (coalesce, L((2, 2, 2), (1, 2, 4)), "8:1"),                                  # 2.3.3.11
    (coalesce, L(((2, 2, 2), (5, 5)), ((1, 2, 4), (10, 50))), "(8,25):(1,10)"),  # 2.3.3.12
    (coalesce, L(((2, 2), (2, 2), (5, 5)), ((1, 2), (16, 32), (64, 640))), "(4,20,5):(1,16,640)"),
])
def test_plain_operations(op, arg: Layout, expected: str) -> None:
    assert str(op(arg)) == expected


def test_relative_coalesce() -> None:
    a = L(((2, 2), (3, 3), (5, 5)), ((1, 2), (4, 12), (36, 180)))                 # §1.4
    assert str(coalesce(a, ((2, 2), 9, 25))) == "((2,2),9,25):((1,2),4,36)"
    b = L(((2, 2), ((3, 3), (5, (1, 5)))), ((1, 2), ((6, 18), (90, (0, 450)))))   # 2.3.4.2
    assert str(coalesce(b, (4, (9, 25)))) == "(4,(9,25)):(1,(6,90))"
    with pytest.raises(ValueError, match="does not refine"):
        coalesce(a, (4, 9, 24))


@pytest.mark.parametrize("layout, expected", [
    (L((2, 2), (2, 8)), "(2,2):(1,4)"),                        # 2.1.6.18
    (L((3, 3, 8), (16, 96, 1)), "(2,2):(8,48)"),               # 2.1.6.19
])
def test_complement_without_size(layout: Layout, expected: str) -> None:
    assert str(complement(layout)) == expected


@pytest.mark.parametrize("a, n, expected", [
    (L(((2, 2), (2, 2)), ((8, 2), (64, 256))), 4096, (2, 2, 4, 2, 8), ),
])
def test_complement_with_size_function(a: Layout, n: int, expected) -> None:
    # §1.4: (2,2,4,2,8):(1,4,16,128,512)
    c = complement(a, n)
    ref = L(expected, (1, 4, 16, 128, 512))
    assert [c(i) for i in range(c.size())] == [ref(i) for i in range(ref.size())]


@pytest.mark.parametrize("b, a, expected", [
    (L(80, 10), L((2, 3), (5, 6)), "(2,3):(50,60)"),                               # 2.1.7.3
    (L((2048, 2048), (1, 2048)), L((64, 32), (2, 256)), "(64,32):(2,256)"),       # 2.1.7.5
    (L(100, 7), L((3, 5), (10, 2)), "(3,5):(70,14)"),                             # 2.3.7.5
    # 3:72 reaches offset 144, outside B's 36 points: no composition.
    (L((6, 6), (6, 1)), L((12, 3, 6), (1, 72, 12)), None),
])
def test_composition_vectors(b: Layout, a: Layout, expected) -> None:
    if expected is None:
        with pytest.raises(ValueError, match=r"3:72 reaches offset 144 outside the domain of size 36"):
            composition(b, a)
    else:
        assert str(composition(b, a)) == expected


def test_composition_of_the_introduction() -> None:            # §1.4
    c = composition(L((8, 64), (64, 1)), L(((4, 4), 4), ((16, 1), 4)))
    ref = L(((4, 4), (2, 2)), ((2, 64), (256, 1)))
    assert [c(i) for i in range(c.size())] == [ref(i) for i in range(ref.size())]


@pytest.mark.parametrize("a, b, expected", [
    (L((4, 8), (1, 4)), L((2, 2), (1, 4)), "((2,2),(2,4)):((1,4),(2,8))"),       # 2.3.8.2
    (L((4, 8), (1, 4)), L((2, 2), (4, 1)), "((2,2),(2,4)):((4,1),(2,8))"),       # 2.3.8.4
    (L((4, 6), (1, 40)), L(6, 4), "(6,4):(40,1)"),                               # 2.3.8.7
    (L((8, 8), (8, 1)), L((2, 2), (1, 4)), "((2,2),(2,8)):((8,32),(16,1))"),     # 4.2.1.1 (erratum)
])
def test_logical_divide_vectors(a: Layout, b: Layout, expected: str) -> None:
    got = logical_divide(a, b)
    ref = _parse(expected)
    assert [got(i) for i in range(got.size())] == [ref(i) for i in range(ref.size())]
    assert got.size() == ref.size()


@pytest.mark.parametrize("a, b, expected", [
    (L((2, 2), (5, 10)), L((3, 5), (5, 1)), "((2,2),(3,5)):((5,10),(20,1))"),    # 2.3.9.3
    (L((3, 3), (6, 1)), L((10, 12), (24, 2)), "((3,3),(10,12)):((6,1),(216,18))"),  # 2.3.9.4
    (L((3, 10, 10), (200, 1, 20)), L((2, 2), (1, 2)), "((3,10,10),(2,2)):((200,1,20),(10,600))"),
])
def test_logical_product_vectors(a: Layout, b: Layout, expected: str) -> None:
    got = logical_product(a, b)
    ref = _parse(expected)
    assert [got(i) for i in range(got.size())] == [ref(i) for i in range(ref.size())]


@pytest.mark.parametrize("layout, tractable", [
    (L((2, 2, 2), (1, 2, 4)), True), (L((2, 4, 32), (1, 2, 8)), True),
    (L((2, 4, 32), (128, 32, 1)), True), (L((3, 7, 7), (0, 15, 0)), True),
    (L((2, 2, 2, 2), (1, 2048, 16, 64)), True),
    (L(((3, 3), (1, 3), (3, 1, 3)), ((81, 1), (0, 9), (3, 0, 27))), True),   # 2.3.10.5 (erratum)
    (L((2, 2, 2), (1, 7, 4)), False), (L((4, 8), (3, 3)), False),
    (L(((8, 8), (5, 5)), ((8, 1), (10, 2))), False), (L((1, 4), (2, 1)), False),
])
def test_tractability(layout: Layout, tractable: bool) -> None:
    assert is_tractable(layout) is tractable


@pytest.mark.parametrize("f, layout", [
    (M(((5, 5), 8), (5, 8, 5), (1, 3, 2)), "((5,5),8):((1,40),5)"),               # §1.4
    (M((3, 128, 128), (3, 2, 128, 2, 128), (1, 3, 5)), "(3,128,128):(1,6,1536)"),  # 3.1.2.2
    (M((3, 128, 128), (128, 128), (0, 2, 1)), "(3,128,128):(0,128,1)"),           # 3.1.2.3
    (M((16, 16, 16, 1, 32), (16, 32, 1, 1), (0, 0, 1, 0, 2)), "(16,16,16,1,32):(0,0,1,0,16)"),
    (M((2, 2, 2, 4, 4), (2, 2, 4, 4, 2), (2, 1, 5, 3, 4)), "(2,2,2,4,4):(2,1,64,4,16)"),  # 3.1.3.2
    (M((64, 64, 3, 8), (64, 3), (1, 0, 2, 0)), "(64,64,3,8):(1,0,64,0)"),         # 3.1.3.4
    (M((512, 512), (2, 512, 4, 512), (2, 4)), "(512,512):(2,4096)"),              # 3.1.3.5
    (M(((8, 8), (4, 4)), (8, 4, 4, 8), (1, 4, 3, 2)), "((8,8),(4,4)):((1,128),(32,8))"),  # 3.2.2.3
    (M((128, (4, 4, 2)), ((4, 4), 128), (3, 1, 2, 0)), "(128,(4,4,2)):(16,(1,4,0))"),     # 3.2.2.4
])
def test_encoded_layouts(f: Morphism, layout: str) -> None:
    assert str(compute_layout(f)) == layout


@pytest.mark.parametrize("layout, morphism", [
    (L((2, 2), (3, 30)), "(2,2) --(2, 4)--> (3,2,5,2)"),                          # 3.1.2.6
    (L((128, 128), (128, 1)), "(128,128) --(2, 1)--> (128,128)"),                 # 3.1.2.7
    (L((2, 2, 2, 2), (24, 0, 3, 480)), "(2,2,2,2) --(4, 0, 2, 6)--> (3,2,4,2,10,2)"),  # 3.1.2.8
    (L((32, (2, 2)), (192, (24, 3))), "(32,(2,2)) --(6, 4, 2)--> (3,2,4,2,4,32)"),  # 3.2.2.7
    (L((3, 128, 128), (0, 128, 1)), "(3,128,128) --(0, 2, 1)--> (128,128)"),
])
def test_standard_representations(layout: Layout, morphism: str) -> None:
    f = compute_morphism(layout)
    assert str(f) == morphism and f.is_standard_form()
    assert compute_layout(f) == layout


def test_morphism_operations_of_the_introduction() -> None:    # §1.4 and chapter 3
    f = M(((2, 2), (2, 2)), ((2, 2, 2), (2, 2, 2)), (3, 2, 6, 5))
    g = M(((2, 2, 2), (2, 2, 2)), (2, 2, 2, 2), (1, 0, 2, 0, 3, 4))
    assert str(compose(f, g)) == "((2,2),(2,2)) --(2, 0, 4, 3)--> (2,2,2,2)"
    assert str(coalesce(M((2, 2, 10, 10), (2, 2, 2, 10, 10), (1, 2, 4, 5)))) == \
        "(4,100) --(1, 3)--> (4,2,100)"
    assert str(complement(M((2, 2), (2, 5, 2, 5), (1, 3)))) == "(5,5) --(2, 4)--> (2,5,2,5)"
    assert str(logical_divide(M((4, 8, 4, 8), (4, 8, 4, 8), (1, 2, 3, 4)),
                              M((4, 4), (4, 8, 4, 8), (1, 3)))) == \
        "((4,4),(8,8)) --(1, 3, 2, 4)--> (4,8,4,8)"
    assert str(logical_product(M((2, 2), (2, 2, 5, 5), (1, 2)), M((5, 5), (5, 5), (2, 1)))) == \
        "((2,2),(5,5)) --(1, 2, 4, 3)--> (2,2,5,5)"
    assert str(coalesce(M(((2, 2), (3, 3), (5, 5)), (5, 5, 3, 3, 2, 2), (5, 6, 3, 4, 1, 2)))) == \
        "(4,9,25) --(3, 2, 1)--> (25,9,4)"                                       # 3.2.6.12
    assert str(complement(M(((2, 2), (5, 5)), ((2, 5, 7), (2, 5, 7)), (1, 4, 2, 5)))) == \
        "(7,7) --(3, 6)--> ((2,5,7),(2,5,7))"                                    # 3.2.6.18
    assert str(logical_divide(M(((2, 2), 2), ((4, 2), (4, 2)), (2, 4, 0)),
                              M((2, 2), ((2, 2), 2), (1, 3)))) == \
        "((2,2),(2)) --(2, 0, 4)--> ((4,2),(4,2))"                               # 3.2.6.24 (corrected)


@pytest.mark.parametrize("bad, message", [
    (lambda: M((4, 4), (4, 2, 4), (1, 1)), "injective"),
    (lambda: M((4, 4), (4, 2, 4), (1, 2)), "Tuple condition"),
    (lambda: M((4,), (4,), (2,)), "outside the codomain"),
    (lambda: compose(M((4,), (4,), (1,)), M((4, 1), (4, 1), (1, 2))), "cannot compose"),
    (lambda: complement(M((4, 8), (4,), (1, 0))), "injective"),
    (lambda: compute_morphism(L((2, 2, 2), (1, 7, 4))), "not tractable"),
    (lambda: M((2**40, 2**40), (2**40, 2**40), (1, 2)), "too large"),
    # Found by tools/fuzz: a map entry beyond 64 bits was a RuntimeError (std::bad_cast).
    (lambda: M((4,), (4,), (2**64,)), "morphism map entry 18446744073709551616 is not an integer of 64 bits"),
])
def test_invalid_morphisms_raise(bad, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bad()


# -- the compatibility theorems on random morphisms ---------------------------


def _random_morphism(rng: random.Random, codomain=None, injective=False) -> Morphism:
    if codomain is None:
        codomain = tuple(rng.choice([2, 3, 4]) for _ in range(rng.randint(1, 4)))
    n = len(codomain)
    targets = rng.sample(range(1, n + 1), k=rng.randint(0 if not injective else 1, n))
    entries, mapping = [], []
    for t in targets:
        entries.append(codomain[t - 1])
        mapping.append(t)
    if not injective:
        for _ in range(rng.randint(0, 2)):
            k = rng.randint(0, len(entries))
            entries.insert(k, rng.choice([2, 3, 5]))
            mapping.insert(k, 0)
    if not entries:
        entries, mapping = [1], [0]
    return M(tuple(entries), codomain, tuple(mapping))


def _same(a: Layout, b: Layout) -> bool:
    return a.size() == b.size() and all(a(i) == b(i) for i in range(a.size()))


@pytest.mark.parametrize("seed", range(300))
def test_theorems_a_to_d_and_f(seed: int) -> None:
    rng = random.Random(seed)
    f = _random_morphism(rng)
    lf = compute_layout(f)
    # A: L_f is tractable; f_L is standard and encodes L; the round trip.
    assert is_tractable(lf)
    std = compute_morphism(lf)
    assert std.is_standard_form() and compute_layout(std) == lf
    # B: L_{g o f} = L_g o L_f.
    g = _random_morphism(rng, codomain=None)
    g = M(f.codomain, g.codomain, _map_into(rng, f.codomain, g.codomain))
    if g is not None:
        assert _same(compute_layout(compose(f, g)), composition(compute_layout(g), lf))
    # C: L_coal(f) = coal(L_f).
    assert compute_layout(coalesce(f)) == coalesce(lf)
    # D: coal(L_{f^c}) = comp(L_f, size(T)) for injective f.
    fi = _random_morphism(rng, injective=True)
    size_t = 1
    for t in fi.codomain:
        size_t *= t
    assert coalesce(compute_layout(complement(fi))) == complement(compute_layout(fi), size_t)
    # F: L_{f x g} = L_f x L_g (f injective, cod g = dom f^c).
    fc = complement(fi)
    h = _random_morphism(rng, codomain=tuple(fc.domain) if isinstance(fc.domain, tuple) else (fc.domain,))
    h = M(h.domain, fc.domain, h.map)
    assert _same(compute_layout(logical_product(fi, h)),
                 logical_product(compute_layout(fi), compute_layout(h)))
    # E: coal(L_{f / g}) = coal(L_f / L_g) for g injective into dom f.
    g_in = _random_morphism(rng, codomain=tuple(fi.domain) if isinstance(fi.domain, tuple) else (fi.domain,),
                            injective=True)
    g_in = M(g_in.domain, fi.domain, g_in.map)
    assert coalesce(compute_layout(logical_divide(fi, g_in))) == \
        coalesce(logical_divide(compute_layout(fi), compute_layout(g_in)))


def _map_into(rng: random.Random, domain, codomain):
    """A valid map from `domain` entries into `codomain` (or * when none fits)."""
    free = list(range(1, len(codomain) + 1))
    out = []
    for s in domain:
        choices = [j for j in free if codomain[j - 1] == s]
        if choices and rng.random() < 0.8:
            j = rng.choice(choices)
            free.remove(j)
            out.append(j)
        else:
            out.append(0)
    return tuple(out)


def _parse(text: str) -> Layout:
    import ast

    shape, stride = text.split(":")
    return Layout(ast.literal_eval(shape), ast.literal_eval(stride))


def test_morphism_picture_and_cli(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from raptor.layout.picture import render_morphism_svg

    f = M((2, 2, 3), (2, 5, 2), (1, 3, 0))
    root = ET.fromstring(render_morphism_svg(f))
    ns = "{http://www.w3.org/2000/svg}"
    assert len(list(root.iter(f"{ns}line"))) == 2  # the * entry has no arrow
    assert len(list(root.iter(f"{ns}rect"))) == 1 + 3 + 3  # background, domain, codomain
    out = tmp_path / "f.svg"
    result = subprocess.run([sys.executable, "-m", "raptor", "layout-svg", "(4,4) --(1, 3)--> (4,2,4)",
                             "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    ET.parse(out)
    bad = subprocess.run([sys.executable, "-m", "raptor", "layout-svg", "(4,4) --(1, 2)--> (4,2,4)",
                          "-o", str(tmp_path / "g.svg")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "Tuple condition" in bad.stderr


@pytest.mark.parametrize("spec, message", [
    ("(4,4):(1", "expected SHAPE:STRIDE"),
    ("4:2:1", "expected SHAPE:STRIDE"),
    ("(4.0,2):(1,4)", "expected SHAPE:STRIDE"),
    ("('a',2):(1,2)", "expected SHAPE:STRIDE"),
    ("(4,4) --(1)--> (4,4)", "the map has 1 entries but the domain (4,4) has 2"),
    ("99999999999999999999:1", "does not fit in 64 bits"),
])
def test_layout_svg_refuses_bad_specs(tmp_path: Path, spec: str, message: str) -> None:
    out = tmp_path / "x.svg"
    result = subprocess.run([sys.executable, "-m", "raptor", "layout-svg", spec, "-o", str(out)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith(f"raptor: error: cannot draw '{spec}': ")
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("t, u, expected", [
    ((6, 6), (12, 3, 6), ((6, (2, 3)), ((6, 2), 3, 6))),
    ((6, 6), (2, 6, 3), (((2, 3), (2, 3)), (2, (3, 2), 3))),                      # 4.1.1.2
    ((8, 8, 8), (2, 8, 8, 8), (((2, 4), (2, 4), (2, 4)), (2, (4, 2), (4, 2), (4, 2)))),  # 4.1.1.3
    ((4, 2, 2, 32), (32, 32), ((4, 2, 2, (2, 16)), ((4, 2, 2, 2), (16, 2)))),      # 4.1.1.4
    ((8, 8), (3, 8, 8), None),                                                     # 4.1.1.5
])
def test_mutual_refinements(t, u, expected) -> None:
    from raptor.layout import mutual_refinement

    assert mutual_refinement(t, u) == expected


@pytest.mark.parametrize("b, a, expected", [
    (L((2, 2), (2, 1)), L((4,), (1,)), "((2,2)):((2,1))"),                        # 4.1.4.1
    (L((12, 3, 6), (1, 72, 12)), L((6, 6), (6, 1)), "((2,3),6):((6,72),1)"),      # 4.1.4.2
    (L((16, 16), (16, 1)), L((8, 8), (8, 1)), "((2,4),8):((128,1),16)"),          # 4.1.4.3
    (L((8, 8, 8), (64, 8, 1)), L((16, 16), (16, 1)), "((4,4),(8,2)):((16,1),(64,8))"),  # 4.1.4.4
    (L((10, 360), (2, 60)), L((6, 6), (5, 60)), "((2,3),6):((10,60),360)"),       # 4.1.4.5
    (L(100, 7), L((3, 5), (10, 2)), None),   # 2.3.7.5: composable, but no mutual refinement
])
def test_chapter_4_composition_vectors(b: Layout, a: Layout, expected) -> None:
    from raptor.layout import compose_tractable

    got = compose_tractable(b, a)
    assert (None if got is None else str(got)) == expected


def test_chapter_4_composition_agrees_with_the_layout_function() -> None:
    from raptor.layout import compose_tractable

    compared = 0
    for seed in range(200):
        rng = random.Random(10_000 + seed)
        a = compute_layout(_random_morphism(rng))
        b = compute_layout(_random_morphism(rng))
        got = compose_tractable(b, a)
        if got is None:
            continue
        compared += 1
        # Phi_{B o A} = Phi_B o Phi_A wherever A lands in B's domain.
        assert got.size() == a.size(), seed
        assert all(got(i) == b(a(i)) for i in range(a.size()) if a(i) < b.size()), seed
    # Pinned: 73 of these 200 seeded pairs compose; a change in what is
    # refused (or a generator that stops producing composable pairs) shows here.
    assert compared == 73


@pytest.mark.parametrize("seed", range(200))
def test_theorem_a_round_trip(seed: int) -> None:
    # A non-degenerate morphism in standard form is f_{L_f}.
    rng = random.Random(20_000 + seed)
    f = compute_morphism(compute_layout(_random_morphism(rng)))
    assert f.is_standard_form()
    assert compute_morphism(compute_layout(f)) == f


# -- more worked examples: chapter 2 flat operations, 2.3 and chapter 3 -----------

from raptor.layout import (concatenate, factor, flat_divide, flat_product, permute,  # noqa: E402
                           properties, pullback, pushforward, restrict)


def _fn(layout: Layout) -> list[int]:
    return [layout(i) for i in range(layout.size())]


@pytest.mark.parametrize("got, expected", [
    (lambda: permute(L((15, 12, 10), (240, 1, 24)), (2, 1, 3)), "(12,15,10):(1,240,24)"),          # 2.1.3.20
    (lambda: permute(L((2, 2, 2, 2, 2), (1, 2, 4, 8, 16)), (5, 4, 2, 3, 1)), "(2,2,2,2,2):(16,8,2,4,1)"),
    (lambda: flat_divide(L((2, 2, 2, 2), (1, 4, 2, 8)), L((2, 2), (4, 2))), "(2,2,2,2):(2,4,1,8)"),  # 2.1.7.10 (erratum)
    (lambda: flat_divide(L((3, 5, 9, 6), (54, 0, 6, 1)), L((6, 3), (135, 1))), "(6,3,5,9):(1,54,0,6)"),
    (lambda: flat_product(L((2, 2, 2), (1, 2, 4)), L((2, 2, 2), (1, 2, 4))), "(2,2,2,2,2,2):(1,2,4,8,16,32)"),
    (lambda: flat_product(L((2, 2, 2), (1, 2, 4)), L((3, 5), (5, 1))), "(2,2,2,3,5):(1,2,4,40,8)"),  # 2.1.7.15
    (lambda: composition(L((64, 32), (1, 64)), L((128, 128), (0, 0))), "(128,128):(0,0)"),            # 2.1.7.4
    (lambda: composition(L((2, 2, 6), (12, 6, 1)), L((4,), (2,))), "((2,2)):((6,1))"),                # 2.3.7.6
    (lambda: complement(L((8, 8), (1, 8))), "1:0"),                                                    # 2.1.6.17
    (lambda: complement(L(((16, 4), 64), ((1, 16), 64)), 4096), "1:0"),                               # 2.3.6.11
    (lambda: complement(L(((16, 4), 64), ((1, 16), 64)), 8192), "2:4096"),                            # 2.3.6.12
    (lambda: complement(L(((16, 4), 64), ((8, 1), 128)), 16384), "(2,2):(4,8192)"),                   # 2.3.6.13
])
def test_more_plain_vectors(got, expected: str) -> None:
    assert str(got()) == expected


@pytest.mark.parametrize("got, expected", [
    (lambda: complement(L((3, 10), (80, 4)), 2400), "(4,2,10):(1,40,240)"),                           # 2.1.6.30
    (lambda: complement(L(((4, 2), (2, 2)), ((3, 24), (192, 96))), 768), "(3,2,2,2):(1,12,48,384)"),  # 2.3.6.10
    (lambda: composition(L((4, 4, 4, 4), (2, 4, 8, 16)), L(((2, 4), 8), ((4, 8), 8))),
     "((2,(2,2)),(2,4)):((4,(8,8)),(8,8))"),                                                          # 2.3.7.8
    (lambda: composition(L((9, 8, 3, 8), (24, 3, 1, 384)), L(((3, (2, 2)), 24), ((3, (9, 18)), 72))),
     "((3,(2,2)),(3,8)):((72,(3,6)),(1,384))"),                                                       # 2.3.7.9
    (lambda: composition(L((8, 8), (3, 7)), L((4, 4), (4, 1))), "((2,2),4):((12,7),3)"),              # 4.1.5
    (lambda: logical_divide(L((4, 8), (1, 4)), L((2, 4), (2, 4))), "((2,4),(2,2)):((2,4),(1,16))"),  # 2.3.8.6
    (lambda: logical_divide(L((4, 6, 2, 4, 2, 5), (36, 1, 18, 0, 0, 144)), L((4, 10), (1, 192))),
     "((4,(2,5)),(6,2,4)):((36,(0,144)),(1,18,0))"),                                                  # 2.3.8.8
    (lambda: logical_divide(L((64, 32), (32, 1)), L((4, 4), (1, 64))), "((4,4),(16,8)):((32,1),(128,4))"),
    (lambda: logical_product(L((2, 10), (1680, 4)), L((4, 9), (2, 56))),
     "((2,10),((2,2),(3,3))):((1680,4),((2,40),(560,3360)))"),                                        # 2.3.9.5
    (lambda: logical_product(L((2, 2), (1, 2)), L((5, 5), (5, 1))), "((2,2),(5,5)):((1,2),(20,4))"),  # 4.2.2.1
])
def test_more_vectors_by_function(got, expected: str) -> None:
    result = got()
    ref = _parse(expected)
    assert result.size() == ref.size() and _fn(result) == _fn(ref)


def test_example_2_3_9_6_is_refused() -> None:
    # The paper prints ((4,(2,2)),((2,4),8)):((9,(1,3)),((36,144),72)), but its
    # left factor is not complementable by 2.1.6's definition (sorted modes
    # 2:1, 2:3: 2 does not divide 3); pycute's lenient complement produces the
    # printed value, Raptor names the failed condition instead.
    with pytest.raises(ValueError, match="not complementable"):
        logical_product(L((4, (2, 2)), (9, (1, 3))), L(((2, 4), 8), ((1, 4), 2)))


@pytest.mark.parametrize("layout, key, value", [
    (L((4, 1, 1, 4, 4), (64, 0, 0, 1, 8)), "complementable", True),                   # 2.1.6.12
    (L((4, 4, 4), (64, 1, 1)), "complementable", False),
    (L((10, 2), (4, 80)), "complementable", True),                                    # 2.1.6.13
    (L((10, 2), (80, 4)), "complementable", True),                                    # (erratum)
    (L((8, 8), (1, 8)), "compact", True), (L((2, 2), (2, 8)), "compact", False),
    (L((8, 1), (1, 4)), "non_degenerate", False), (L((8, 1), (1, 0)), "non_degenerate", True),
])
def test_layout_predicates(layout: Layout, key: str, value: bool) -> None:
    assert properties(layout)[key] is value


def test_more_morphism_vectors() -> None:
    f = M((2, 16, 8, 4), (8, 16, 4), (0, 2, 1, 3))                                      # 3.1.3.7
    assert str(compute_layout(f)) == "(2,16,8,4):(0,8,1,128)"
    assert str(restrict(f, (2, 4))) == "(16,4) --(2, 3)--> (8,16,4)"
    assert str(compute_layout(restrict(f, (2, 4)))) == "(16,4):(8,128)"
    g = M((8, 8), (2, 8, 2, 8, 10), (4, 2))                                             # 3.1.3.10
    assert str(compute_layout(g)) == "(8,8):(32,2)"
    assert str(factor(g, (2, 4, 5))) == "(8,8) --(2, 1)--> (8,8,10)"
    assert str(compute_layout(factor(g, (2, 4, 5)))) == "(8,8):(8,1)"
    h = M((64, 32), (4, 64, 4, 32), (2, 4))
    assert str(pullback(h, ((2, 2), (16, 4), (2, 2), (16, 2)))) == \
        "((16,4),(16,2)) --(3, 4, 7, 8)--> ((2,2),(16,4),(2,2),(16,2))"                # 3.2.5.6
    assert str(pushforward(h, ((16, 4), (16, 2)))) == \
        "((16,4),(16,2)) --(2, 3, 5, 6)--> (4,(16,4),4,(16,2))"                        # 3.2.5.13
    assert str(concatenate(M((3, (512, 512)), (2, 512, 2, 512), (0, 2, 4)),
                           M((2, 2), (2, 512, 2, 512), (1, 3)))) == \
        "((3,(512,512)),(2,2)) --(0, 2, 4, 1, 3)--> (2,512,2,512)"                     # 3.2.6.5
    assert str(compute_layout(M((2, 2, 2, 4, 4), (2, 2, 2, 4, 4), (1, 2, 3, 4, 5)))) == \
        "(2,2,2,4,4):(1,2,4,8,32)"                                                      # 3.1.3.1
    assert str(compute_layout(M((4, 4), (4, 4, 8, 8), (1, 2)))) == "(4,4):(1,4)"         # 3.1.3.6
    # 3.1.2.16: two degenerate morphisms encode one layout.
    assert compute_layout(M((8, 1, 1), (8, 1, 1), (1, 2, 3))) == \
        compute_layout(M((8, 1, 1), (8, 1, 1), (1, 3, 2))) == L((8, 1, 1), (1, 8, 8))
    assert str(logical_divide(M((8, 8, 512, 512, 512), (512, 512, 512), (0, 0, 1, 2, 3)),
                              M((8, 512), (8, 8, 512, 512, 512), (1, 3)))) == \
        "((8,512),(8,512,512)) --(0, 1, 0, 2, 3)--> (512,512,512)"                     # 3.2.6.25 (corrected)
    assert str(logical_product(M((8, 8), (8, 8, 16, 16), (1, 2)), M((16, 16), (16, 16), (1, 2)))) == \
        "((8,8),(16,16)) --(1, 2, 3, 4)--> (8,8,16,16)"                                # 3.2.6.29
    assert str(logical_product(M((128, 128), (32, 32, 128, 128), (3, 4)), M((32,), (32, 32), (2,)))) == \
        "((128,128),(32)) --(3, 4, 2)--> (32,32,128,128)"                              # 3.2.6.30
