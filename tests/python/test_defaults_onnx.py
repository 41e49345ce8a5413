"""ONNX attribute defaults: every node here omits the attributes the
importer fills in (BatchNormalization's epsilon, Transpose's perm,
Flatten's axis on a batch of 2, Softmax's axis, ...), and the imported
graph's values must equal onnxruntime's, which applies the defaults of
the ONNX specification. The data are chosen so that a wrong default
changes the result (variances near epsilon, non-square shapes, a batch
dimension that a wrong flatten axis would merge)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper, numpy_helper

from test_onnx_frontend import _check, _model, _tensor

def _data(*shape: int) -> np.ndarray:
    # Seeded by the shape: the same data whichever tests ran before.
    return np.random.default_rng([31, *shape]).standard_normal(shape).astype(np.float32)


def _init(name: str, value: np.ndarray):
    return numpy_helper.from_array(np.asarray(value), name)


def test_batch_normalization_without_epsilon_uses_1e_5() -> None:
    # Variances of 0, 1e-6 and 4e-5: the normalized values scale with
    # 1/sqrt(var + eps), so another epsilon (or none) moves them by 2x and more.
    x = 1e-3 * _data(2, 3, 4, 4)
    init = [_init("s", np.array([1.0, 2.0, 0.5], np.float32)), _init("b", np.array([0.1, -0.2, 0.3], np.float32)),
            _init("m", np.array([0.0, 1e-3, -1e-3], np.float32)), _init("v", np.array([0.0, 1e-6, 4e-5], np.float32))]
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])
    model = _model([node], [_tensor("x", [2, 3, 4, 4])], [_tensor("y", [2, 3, 4, 4])], init)
    _check(model.SerializeToString(), x, rtol=1e-4)


def test_transpose_without_perm_reverses_the_dimensions() -> None:
    node = helper.make_node("Transpose", ["x"], ["y"])
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", [4, 3, 2])])
    _check(model.SerializeToString(), _data(2, 3, 4))


@pytest.mark.parametrize("shape", [[2, 3, 4, 5], [3, 10]])
def test_flatten_without_axis_keeps_the_batch(shape: list[int]) -> None:
    """axis 1: (2, 60) from (2, 3, 4, 5); a linear layer after it sees the
    batch rows apart (axis 0 would give (1, 120), axis 2 (6, 20))."""
    features = int(np.prod(shape[1:]))
    init = [_init("w", _data(features, 3)), _init("c", _data(3))]
    nodes = [helper.make_node("Flatten", ["x"], ["f"]), helper.make_node("Gemm", ["f", "w", "c"], ["y"])]
    model = _model(nodes, [_tensor("x", shape)], [_tensor("y", [shape[0], 3])], init)
    _check(model.SerializeToString(), _data(*shape), rtol=1e-4)


def test_softmax_without_axis_normalizes_the_last_dimension() -> None:
    node = helper.make_node("Softmax", ["x"], ["y"])
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 3, 4])])
    _check(model.SerializeToString(), _data(2, 3, 4))


def test_layer_normalization_without_axis_or_epsilon() -> None:
    """axis -1 and epsilon 1e-5: the rows have variances near 1e-5."""
    x = 3e-3 * _data(2, 3, 4)
    init = [_init("s", np.array([1.0, 0.5, 2.0, -1.0], np.float32)), _init("b", np.array([0.0, 0.1, 0.2, 0.3],
                                                                                          np.float32))]
    node = helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"])
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 3, 4])], init)
    _check(model.SerializeToString(), x, rtol=1e-4)


def test_hard_sigmoid_without_alpha_or_beta() -> None:
    node = helper.make_node("HardSigmoid", ["x"], ["y"])
    model = _model([node], [_tensor("x", [3, 8])], [_tensor("y", [3, 8])])
    _check(model.SerializeToString(), 4 * _data(3, 8))


def test_split_without_axis_or_sizes_halves_the_first_dimension() -> None:
    node = helper.make_node("Split", ["x"], ["a", "b"])
    model = _model([node], [_tensor("x", [4, 6])], [_tensor("a", [2, 6]), _tensor("b", [2, 6])])
    _check(model.SerializeToString(), _data(4, 6))


def test_gather_without_axis_indexes_the_first_dimension() -> None:
    init = [_init("i", np.array([3, 0, 0, 2], np.int64))]
    node = helper.make_node("Gather", ["x", "i"], ["y"])
    model = _model([node], [_tensor("x", [5, 3])], [_tensor("y", [4, 3])], init)
    _check(model.SerializeToString(), _data(5, 3))


def test_conv_without_strides_pads_dilations_or_group() -> None:
    init = [_init("w", _data(3, 2, 3, 2)), _init("c", _data(3))]
    node = helper.make_node("Conv", ["x", "w", "c"], ["y"])
    model = _model([node], [_tensor("x", [2, 2, 6, 5])], [_tensor("y", [2, 3, 4, 4])], init)
    _check(model.SerializeToString(), _data(2, 2, 6, 5), rtol=1e-4)


def test_pools_without_strides_or_count_include_pad() -> None:
    """MaxPool's strides default to 1 (a 5 x 5 map gives 4 x 4 from 2 x 2
    windows); AveragePool's padded border cells are not counted."""
    nodes = [helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[2, 2]),
             helper.make_node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    model = _model(nodes, [_tensor("x", [1, 2, 5, 5])], [_tensor("m", [1, 2, 4, 4]), _tensor("a", [1, 2, 5, 5])])
    _check(model.SerializeToString(), _data(1, 2, 5, 5))


def test_reduce_mean_keeps_the_reduced_dimension_by_default() -> None:
    node = helper.make_node("ReduceMean", ["x"], ["y"], axes=[1])
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 1, 4])], opset=17)
    _check(model.SerializeToString(), _data(2, 3, 4) + 0.5)


def test_gemm_without_trans_alpha_or_beta() -> None:
    """transB 0: the weight is (in, out); alpha = beta = 1."""
    init = [_init("w", _data(5, 3)), _init("c", _data(3))]
    node = helper.make_node("Gemm", ["x", "w", "c"], ["y"])
    model = _model([node], [_tensor("x", [2, 5])], [_tensor("y", [2, 3])], init)
    _check(model.SerializeToString(), _data(2, 5), rtol=1e-4)


def test_pad_without_a_value_pads_with_zero() -> None:
    init = [_init("p", np.array([0, 1, 2, 0], np.int64))]
    node = helper.make_node("Pad", ["x", "p"], ["y"])
    model = _model([node], [_tensor("x", [2, 3])], [_tensor("y", [4, 4])], init)
    _check(model.SerializeToString(), _data(2, 3) + 3.0)


def test_gelu_without_approximate_is_exact() -> None:
    node = helper.make_node("Gelu", ["x"], ["y"])
    model = _model([node], [_tensor("x", [4, 8])], [_tensor("y", [4, 8])], opset=20)
    _check(model.SerializeToString(), 3 * _data(4, 8), rtol=1e-5)



def test_reduce_max_without_keepdims_keeps_the_reduced_axes() -> None:
    """keepdims 1: (2, 1, 4) from (2, 3, 4) over axis 1; with no axes every
    axis, (1, 1, 1)."""
    one = helper.make_node("ReduceMax", ["x"], ["y"], axes=[1])
    _check(_model([one], [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 1, 4])]).SerializeToString(), _data(2, 3, 4))
    every = helper.make_node("ReduceMax", ["x"], ["y"])
    _check(_model([every], [_tensor("x", [2, 3, 4])], [_tensor("y", [1, 1, 1])]).SerializeToString(), _data(2, 3, 4))
