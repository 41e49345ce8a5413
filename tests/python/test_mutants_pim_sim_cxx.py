"""The functional simulator's instruction semantics where the earlier tests
left a degree of freedom (simulator/Simulator.cpp): an int8 MVM's relu
flag, ext.vdequant's per-element scales, vrsu's unsigned shift within the
element width, the bytes an mvmul and a vector-matrix product read.
Expected values come from numpy and from the instruction definitions
(../shared/docs/pim-target.md: mvmul and its relu flag, vrsu the unsigned
right shift beside vvsra's arithmetic one; docs/quantization.md:
ext.vquant, ext.vdequant; docs/timing.md: an mvmul's bytes), never from
the simulator.

Hand-made C++ mutants of 2026-12-06 (docs/mutation.md) that these kill:
the relu flag ignored on the integer path, an int8 mvmul's reads counted at
the output width, every element dequantized with the first scale, vrsu
shifting arithmetically, ext.vvecmat counted as reading `len` elements of
its vector instead of `rows`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pim_helpers import int8_mvmul, run_one_core


def simulate(tmp_path: Path, body: str, x: np.ndarray, y: np.ndarray, m: int = 16, extra: str = "",
             group: str = "") -> tuple[np.ndarray, dict]:
    run = run_one_core(tmp_path, body, x, y, m, extra, group)
    return run.outputs["z"], run.stats




def test_an_int8_mvmul_with_relu_clamps_its_int32_sums_at_zero(tmp_path: Path) -> None:
    """setbw 8, 32 and `relu = true`: the int32 sums of codes times integer
    cells, negative ones replaced by 0 (the flag means the same as on the
    f32 path). The drawn weights and inputs give sums of both signs."""
    case = int8_mvmul(np.random.default_rng(31), relu=True)
    out, stats = simulate(tmp_path, case.body, case.x, np.ones(16, np.float32), extra=case.extra, group=case.group)
    sums = case.x[:8].astype(np.int64) @ case.weights.astype(np.int64)
    assert (sums < 0).any() and (sums > 0).any()  # the test means something
    np.testing.assert_array_equal(out.view(np.int32)[:12], np.maximum(sums, 0))
    np.testing.assert_array_equal(out.view(np.int32)[12:16], 0)
    # Local traffic (docs/timing.md: an mvmul reads xbar_rows inputs of ibiw
    # bits and writes its group's crossbars x xbar_cols x cell_bits / mbiw
    # outputs of obiw bits): the vquant reads 16 f32 and its multiplier (68
    # bytes) and writes 16 codes; the mvmul reads 8 one-byte codes and
    # writes 2 x 8 four-byte sums; the st reads 64 bytes, the two ld write
    # 64 each.
    assert stats["total"]["local_read_bytes"] == 68 + 8 + 64
    assert stats["total"]["local_write_bytes"] == 16 + 2 * 8 * 4 + 2 * 64


def test_dequantization_scales_each_element_by_its_own_scale(tmp_path: Path) -> None:
    """ext.vquant multiplies by one multiplier (y[0] = 1), ext.vdequant by
    a vector of scales, element i by y[i]."""
    x = np.random.default_rng(32).integers(-100, 100, 16).astype(np.float32)
    y = np.array([1, 0.5, 2, 0.25, 4, 0.125, 8, 3, 1.5, 0.75, 6, 5, 0.0625, 10, 7, 9], np.float32)
    body = ("    pim.ext.vquant r4, r2, r3 len 16 : i8\n"
            "    pim.ext.vdequant r5, r4, r3 len 16 : i8\n")
    out, _ = simulate(tmp_path, body, x, y)
    np.testing.assert_array_equal(out, x * y)


def test_vrsu_shifts_in_zeros_within_the_element_width(tmp_path: Path) -> None:
    """vrsu is the logical right shift by the scalar b[0]: the element's own
    bits (8 of an i8, 32 of an i32) move right and zeros come in, so a
    negative element becomes a large positive one (vvsra would keep its
    sign). With y = 2 everywhere, ext.vquant makes a = round(2 x) and the
    shift b = 2 x 2 = 4 (test_quant.py's construction)."""
    x = np.array([-8, -1, -1000, 1000, 7, -127, 0, 64, -2, 3, -77, 99, -5, 12, -300, 301], np.float32)
    y = np.full(16, 2, np.float32)
    body = ("    pim.sldi r7, 6144\n"
            "    pim.ext.vquant r4, r2, r3 len 16 : {t}\n"
            "    pim.ext.vquant r7, r3, r3 len 16 : {t}\n"
            "    pim.vrsu r5, r4, r7 len 16 : {t}\n")
    out, _ = simulate(tmp_path, body.format(t="i32"), x, y)
    expect = [((2 * int(v)) & 0xFFFFFFFF) >> 4 for v in x]
    np.testing.assert_array_equal(out.view(np.uint32), expect)
    x8 = np.array([-8, -1, -60, 60, 7, -63, 0, 32, -2, 3, -37, 49, -5, 12, -30, 31], np.float32)
    out8, _ = simulate(tmp_path / "i8", body.format(t="i8"), x8, y, m=4)
    np.testing.assert_array_equal(out8.view(np.uint8), [((2 * int(v)) & 0xFF) >> 4 for v in x8])


def test_a_vector_matrix_product_reads_its_matrix_and_rows_elements(tmp_path: Path) -> None:
    """ext.vvecmat rows 2 len 4: y = x M with M 2 x 4 (8 elements) and x of
    2 elements (one per row), so it reads 4 x (8 + 2) = 40 bytes and writes
    16; the st of z reads 16 more, the ld's read none (they write local
    memory). Values against numpy."""
    rng = np.random.default_rng(33)
    x = rng.standard_normal(16).astype(np.float32)
    y = rng.standard_normal(16).astype(np.float32)
    body = "    pim.ext.vvecmat r5, r2, r3 rows 2 len 4 : f32\n"
    out, stats = simulate(tmp_path, body, x, y, m=4)
    np.testing.assert_allclose(out, y[:2] @ x[:8].reshape(2, 4), rtol=2e-6)
    assert stats["total"]["local_read_bytes"] == 40 + 16
    assert stats["total"]["local_write_bytes"] == 64 + 64 + 16
