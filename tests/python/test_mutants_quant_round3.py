"""Hand-made mutants of raptor.quant.accuracy, third round (docs/mutation.md):
the summary of several samples (the lowest and the mean cosine, the mean of
the mean errors) and the mean relative error's denominator, on vectors whose
metrics are computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from raptor.quant.accuracy import compare, metrics


def test_the_mean_relative_error_is_against_the_mean_magnitude() -> None:
    """exact (4, 0, 0, 0): mean magnitude 1, peak 4; quantized (4, 2, 0, 0):
    mean |difference| 0.5, so mean relative 0.5 and max relative 2 / 4."""
    m = metrics(np.array([4.0, 2.0, 0.0, 0.0]), np.array([4.0, 0.0, 0.0, 0.0]))
    assert m["mean_relative_error"] == pytest.approx(0.5)
    assert m["max_relative_error"] == pytest.approx(0.5)
    assert m["cosine"] == pytest.approx(4 / math.sqrt(20))


def test_the_summary_keeps_the_worst_sample_and_the_means() -> None:
    """Sample 1 exact; sample 2 at 45 degrees (cosine 1/sqrt 2, mean relative
    error 1, max relative error 1); sample 3 parallel but twice as long
    (cosine 1, errors 1 and 1): the lowest cosine is sample 2's, the highest 1."""
    samples = [{"f": np.array([[1.0, 0.0]]), "q": np.array([[1.0, 0.0]])},
               {"f": np.array([[1.0, 0.0]]), "q": np.array([[1.0, 1.0]])},
               {"f": np.array([[0.0, 2.0]]), "q": np.array([[0.0, 4.0]])}]
    report = compare(samples, lambda s: s["f"], lambda s: s["q"])
    s = report["summary"]
    assert s["samples"] == 3
    assert s["min_cosine"] == pytest.approx(1 / math.sqrt(2))
    assert s["mean_cosine"] == pytest.approx((2 + 1 / math.sqrt(2)) / 3)
    assert s["max_relative_error"] == pytest.approx(1.0)
    # mean relative errors: 0; 0.5 / 0.5 = 1; 1 / 1 = 1
    assert s["mean_relative_error"] == pytest.approx(2 / 3)
    # top-1: sample 2 ties (argmax 0 both), sample 3 agrees at 1
    assert s["top1_agreement"] == pytest.approx(1.0)
    assert [r["cosine"] for r in report["per_sample"]] == pytest.approx([1.0, 1 / math.sqrt(2), 1.0])
