"""Hand-made mutants of raptor.frontend.onnx's rules that no other test
pinned: attribute defaults the ONNX specification fixes (InstanceNormalization's
epsilon, Reshape's allowzero, Resize's coordinate transformation, MaxPool's
ceil_mode) and operand orders (a constant minus a tensor, an einsum by a
transposed square weight). Each imported graph's values are compared with
onnxruntime's, which applies the specification; the data are chosen so that
the wrong default or order changes them (variances near epsilon, a 0 in a
reshape, an output dimension of 1, a map whose size the pool does not
divide, a square weight)."""

from __future__ import annotations

import numpy as np
from onnx import helper

from test_defaults_onnx import _init
from test_onnx_frontend import _check, _model, _tensor

def _data(*shape: int) -> np.ndarray:
    # Seeded by the shape: the same data whichever tests ran before.
    return np.random.default_rng([131, *shape]).standard_normal(shape).astype(np.float32)


def test_instance_normalization_without_epsilon_uses_1e_5() -> None:
    """Per-channel variances of about 1e-5 and 4e-6: 1/sqrt(var + eps)
    moves by a third and more under another epsilon."""
    x = _data(2, 3, 4, 4) * np.array([3e-3, 2e-3, 1.0], np.float32).reshape(1, 3, 1, 1)
    init = [_init("s", np.array([1.0, 2.0, 0.5], np.float32)), _init("b", np.array([0.1, -0.2, 0.3], np.float32))]
    node = helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])
    model = _model([node], [_tensor("x", [2, 3, 4, 4])], [_tensor("y", [2, 3, 4, 4])], init)
    _check(model.SerializeToString(), x, rtol=1e-4)


def test_reshape_without_allowzero_copies_a_zero_dimension() -> None:
    """Shape [0, -1] of a (2, 3, 4) tensor: (2, 12), the 0 taking the input's size."""
    init = [_init("shape", np.array([0, -1], np.int64))]
    node = helper.make_node("Reshape", ["x", "shape"], ["y"])
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 12])], init)
    _check(model.SerializeToString(), _data(2, 3, 4))


def test_linear_resize_without_a_coordinate_mode_is_half_pixel() -> None:
    """An output height of 1 from 5: half_pixel samples row 2 (the
    middle), pytorch_half_pixel row 0; the width 6 -> 10 is half_pixel's."""
    init = [_init("sizes", np.array([1, 2, 1, 10], np.int64))]
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")
    model = _model([node], [_tensor("x", [1, 2, 5, 6])], [_tensor("y", [1, 2, 1, 10])], init)
    _check(model.SerializeToString(), _data(1, 2, 5, 6))


def test_max_pool_without_ceil_mode_floors_the_output_size() -> None:
    """Windows of 2 every 2 over 5 x 5: 2 x 2 (ceil mode would give 3 x 3)."""
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    model = _model([node], [_tensor("x", [1, 2, 5, 5])], [_tensor("y", [1, 2, 2, 2])])
    _check(model.SerializeToString(), _data(1, 2, 5, 5))


def test_a_constant_minus_a_tensor_keeps_its_operand_order() -> None:
    init = [_init("c", np.array([1.0, -2.0, 3.0, 0.5], np.float32))]
    nodes = [helper.make_node("Sub", ["c", "x"], ["y"]), helper.make_node("Div", ["c", "x"], ["z"])]
    model = _model(nodes, [_tensor("x", [3, 4])], [_tensor("y", [3, 4]), _tensor("z", [3, 4])], init)
    _check(model.SerializeToString(), _data(3, 4) + 4.0)


def test_einsum_by_a_transposed_square_weight() -> None:
    """ij,kj->ik is x @ w.T: with a square weight, the untransposed product
    has the same shape and other values."""
    init = [_init("w", _data(4, 4))]
    nodes = [helper.make_node("Einsum", ["x", "w"], ["y"], equation="ij,kj->ik"),
             helper.make_node("Einsum", ["x", "w"], ["z"], equation="ij,jk->ik")]
    model = _model(nodes, [_tensor("x", [3, 4])], [_tensor("y", [3, 4]), _tensor("z", [3, 4])], init)
    _check(model.SerializeToString(), _data(3, 4), rtol=1e-4)


def test_split_into_num_outputs_gives_the_last_part_the_remainder() -> None:
    """5 rows into 2 parts: ceil(5 / 2) = 3, then the 2 left (opset 18)."""
    node = helper.make_node("Split", ["x"], ["a", "b"], num_outputs=2)
    model = _model([node], [_tensor("x", [5, 3])], [_tensor("a", [3, 3]), _tensor("b", [2, 3])], opset=18)
    _check(model.SerializeToString(), _data(5, 3))


def test_slice_and_gather_count_negative_positions_from_the_end() -> None:
    """Columns -3.. of 5 are 2, 3, 4; row -1 of 4 is row 3."""
    init = [_init("starts", np.array([-3], np.int64)), _init("ends", np.array([100], np.int64)),
            _init("axes", np.array([1], np.int64)), _init("i", np.array([-1, 0], np.int64))]
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"]),
             helper.make_node("Gather", ["x", "i"], ["z"])]
    model = _model(nodes, [_tensor("x", [4, 5])], [_tensor("y", [4, 3]), _tensor("z", [2, 5])], init)
    _check(model.SerializeToString(), _data(4, 5))
