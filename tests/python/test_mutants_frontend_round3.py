"""Hand-made mutants of raptor.frontend, third round (docs/mutation.md): the
ONNX rules' less travelled attributes (SAME_LOWER padding, a 1-d
convolution's dilation, Resize's output size from a scale and its
nearest_mode default, pytorch_half_pixel to one element, LayerNormalization
over several axes, ReduceL2, Unsqueeze of two axes, Gather by a matrix of
indices, Pad without axes, constant GatherElements by negative indices) and
Raptor's own decompositions called directly. Every expected value comes
from onnxruntime (which applies the ONNX specification) or from eager torch
(F.interpolate, F.adaptive_avg_pool2d, F.conv1d), never from Raptor."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from onnx import helper

from raptor.frontend import _decompositions as dec
from raptor.frontend._index_runs import index_runs
from raptor.frontend.onnx import OnnxImportError, UnsupportedOperatorError, import_model

from test_defaults_onnx import _init
from test_onnx_frontend import _check, _model, _runtime, _tensor



def _data(*shape: int) -> np.ndarray:
    """Seeded by the shape: the same values whichever tests a worker ran
    before (a shared generator once drew six negatives for a ReLU test)."""
    return np.random.default_rng([2026_12_06, *shape]).standard_normal(shape).astype(np.float32)


# --- ONNX rules, against onnxruntime ------------------------------------------

def test_same_lower_padding_puts_the_odd_pad_in_front() -> None:
    """A 2 x 2 kernel at stride 1 needs one pad per axis: SAME_LOWER puts it
    before, SAME_UPPER after (ONNX Conv); the two differ in every value."""
    init = [_init("w", _data(2, 3, 2, 2))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["lower"], auto_pad="SAME_LOWER"),
             helper.make_node("Conv", ["x", "w"], ["upper"], auto_pad="SAME_UPPER")]
    model = _model(nodes, [_tensor("x", [1, 3, 5, 5])],
                   [_tensor("lower", [1, 2, 5, 5]), _tensor("upper", [1, 2, 5, 5])], init)
    _check(model.SerializeToString(), _data(1, 3, 5, 5), rtol=1e-4)


def test_same_padding_at_stride_two_gives_the_ceiling_of_size_over_stride() -> None:
    """7 at stride 2 with a 3-kernel: ceil(7 / 2) = 4 outputs (pads 1 and 1);
    width 6: 3 outputs (total pad 1)."""
    init = [_init("w", _data(2, 2, 3, 3))]
    node = helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_LOWER", strides=[2, 2])
    model = _model([node], [_tensor("x", [1, 2, 7, 6])], [_tensor("y", [1, 2, 4, 3])], init)
    _check(model.SerializeToString(), _data(1, 2, 7, 6), rtol=1e-4)


def test_a_one_dimensional_convolution_dilates_along_its_length() -> None:
    """Conv of a (N, C, L) input with dilations [2]: taps 2 apart along L."""
    init = [_init("w", _data(4, 3, 3)), _init("b", _data(4))]
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], dilations=[2], strides=[1], pads=[1, 1])
    model = _model([node], [_tensor("x", [2, 3, 9])], [_tensor("y", [2, 4, 7])], init)
    _check(model.SerializeToString(), _data(2, 3, 9), rtol=1e-4)


def test_a_one_dimensional_convolution_without_strides_or_dilations() -> None:
    """ONNX Conv's strides and dilations default to 1 along each spatial axis:
    one for a 1-d convolution (imported as a 2-d one of unit height, whose
    kernel has two)."""
    init = [_init("w", _data(4, 3, 3))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"]),
             helper.make_node("Conv", ["x", "w"], ["z"], strides=[2])]
    model = _model(nodes, [_tensor("x", [2, 3, 9])], [_tensor("y", [2, 4, 7]), _tensor("z", [2, 4, 4])], init)
    _check(model.SerializeToString(), _data(2, 3, 9), rtol=1e-4)


def test_resize_by_a_scale_floors_the_output_size() -> None:
    """Scale 1.5 of 5 is 7.5: the output has floor(7.5) = 7 rows and columns
    (ONNX Resize: output_dimension = floor(input_dimension * scale))."""
    init = [_init("scales", np.array([1.0, 1.0, 1.5, 1.5], np.float32))]
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear")
    model = _model([node], [_tensor("x", [1, 2, 5, 5])], [_tensor("y", [1, 2, 7, 7])], init)
    _check(model.SerializeToString(), _data(1, 2, 5, 5), rtol=1e-4)


def test_nearest_resize_without_nearest_mode_rounds_half_down_not_floors() -> None:
    """Nearest 5 -> 7 (asymmetric): output 1 maps to 5/7 = 0.71, which
    round_prefer_floor (the default) takes to element 1 and floor to
    element 0. Refusing the node is right; importing it as floor is not."""
    init = [_init("sizes", np.array([1, 1, 7, 7], np.int64))]
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest",
                            coordinate_transformation_mode="asymmetric")
    model = _model([node], [_tensor("x", [1, 1, 5, 5])], [_tensor("y", [1, 1, 7, 7])], init)
    data = model.SerializeToString()
    try:
        _check(data, _data(1, 1, 5, 5))
    except UnsupportedOperatorError as e:  # (kept generic: refused in strict mode)
        assert "Resize (1: nearest_mode round_prefer_floor)" in str(e)


def test_pytorch_half_pixel_to_one_element_samples_the_first() -> None:
    """pytorch_half_pixel maps an output of length 1 to coordinate 0 (rows
    5 -> 1: row 0), half_pixel's rule to the middle row; the columns 6 -> 4
    follow the ordinary rule."""
    init = [_init("sizes", np.array([1, 2, 1, 4], np.int64))]
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear",
                            coordinate_transformation_mode="pytorch_half_pixel")
    model = _model([node], [_tensor("x", [1, 2, 5, 6])], [_tensor("y", [1, 2, 1, 4])], init)
    _check(model.SerializeToString(), _data(1, 2, 5, 6), rtol=1e-4)


def test_layer_normalization_from_axis_one_normalizes_every_later_axis() -> None:
    """axis=1 of a (2, 3, 4) tensor: statistics over the 12 values of each
    batch entry, scale and bias of shape (3, 4)."""
    init = [_init("s", _data(3, 4)), _init("b", _data(3, 4))]
    node = helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=1)
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 3, 4])], init)
    x = _data(2, 3, 4) + np.arange(3, dtype=np.float32).reshape(1, 3, 1)  # rows of other means
    _check(model.SerializeToString(), x, rtol=1e-4)


def test_reduce_l2_is_the_root_of_the_sum_of_squares() -> None:
    init = [_init("axes", np.array([1], np.int64))]
    node = helper.make_node("ReduceL2", ["x", "axes"], ["y"], keepdims=0)
    model = _model([node], [_tensor("x", [3, 5, 2])], [_tensor("y", [3, 2])], init, opset=18)
    _check(model.SerializeToString(), _data(3, 5, 2), rtol=1e-4)


def test_unsqueeze_of_two_axes_counts_them_in_the_output_rank() -> None:
    """Axes 0 and 3 of a (2, 3) tensor: the output has rank 4, (1, 2, 3, 1)."""
    init = [_init("axes", np.array([0, 3], np.int64))]
    nodes = [helper.make_node("Unsqueeze", ["x", "axes"], ["u"]), helper.make_node("Relu", ["u"], ["y"])]
    model = _model(nodes, [_tensor("x", [2, 3])], [_tensor("y", [1, 2, 3, 1])], init)
    _check(model.SerializeToString(), _data(2, 3))


def test_gather_by_a_matrix_of_indices_puts_its_dimensions_at_the_axis() -> None:
    """data (2, 5, 4), indices (3, 2) along axis 1: (2, 3, 2, 4)."""
    init = [_init("i", np.array([[0, 4], [2, 2], [3, 1]], np.int64))]
    node = helper.make_node("Gather", ["x", "i"], ["y"], axis=1)
    model = _model([node], [_tensor("x", [2, 5, 4])], [_tensor("y", [2, 3, 2, 4])], init)
    _check(model.SerializeToString(), _data(2, 5, 4))


def test_pad_without_axes_pads_the_axes_in_order() -> None:
    """pads [0, 1, 2, 0, 3, 0] of a (2, 3, 4) tensor: 1 row before axis 1,
    2 before axis 2, 3 after axis 1 (begins of all axes, then ends)."""
    init = [_init("pads", np.array([0, 1, 2, 0, 3, 0], np.int64))]
    node = helper.make_node("Pad", ["x", "pads"], ["y"])
    model = _model([node], [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 7, 6])], init)
    _check(model.SerializeToString(), _data(2, 3, 4))


def test_constant_gather_elements_wraps_negative_indices_along_its_axis() -> None:
    """A constant GatherElements (folded at import) along axis 1 of a (2, 4)
    table: index -1 is column 3, not column 1."""
    table = np.arange(8, dtype=np.float32).reshape(2, 4) + 1
    init = [_init("t", table), _init("i", np.array([[-1, 0], [1, -2]], np.int64))]
    nodes = [helper.make_node("GatherElements", ["t", "i"], ["g"], axis=1),
             helper.make_node("Add", ["x", "g"], ["y"])]
    model = _model(nodes, [_tensor("x", [2, 2])], [_tensor("y", [2, 2])], init)
    x = np.zeros((2, 2), np.float32)
    np.testing.assert_array_equal(_runtime(model.SerializeToString(), x)[0], [[4.0, 1.0], [6.0, 7.0]])
    _check(model.SerializeToString(), x)


def test_shape_of_a_computed_value_has_every_dimension() -> None:
    """Shape without start or end is all the dimensions: a flattened (2, 3, 4)
    tensor reshaped by the shape of the original gets it back."""
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Shape", ["r"], ["s"]),
             helper.make_node("Flatten", ["r"], ["f"], axis=0), helper.make_node("Reshape", ["f", "s"], ["y"])]
    model = _model(nodes, [_tensor("x", [2, 3, 4])], [_tensor("y", [2, 3, 4])])
    _check(model.SerializeToString(), _data(2, 3, 4))


def test_an_input_shape_of_size_zero_is_refused() -> None:
    """The ONNX importer's --input-shape wants positive sizes
    (docs/frontends.md: static shapes; a zero-size input computes nothing)."""
    node = helper.make_node("Relu", ["x"], ["y"])
    model = _model([node], [helper.make_tensor_value_info("x", 1, ["n", 3])],
                   [helper.make_tensor_value_info("y", 1, ["n", 3])])
    with pytest.raises(OnnxImportError, match="positive"):
        import_model(model, {"x": [0, 3]}, strict=True)


# --- raptor.frontend._decompositions, against eager torch -----------------------

def test_index_runs_splits_at_every_break_in_the_sequence() -> None:
    """By hand: 0 1 2 | 5 | 4 | 7 8 | 8."""
    assert index_runs([0, 1, 2, 5, 4, 7, 8, 8]) == [(0, 3), (5, 6), (4, 5), (7, 9), (8, 9)]
    assert index_runs([]) == []


@pytest.mark.parametrize("size, out", [(5, 8), (7, 3), (4, 4)])
def test_align_corners_matrix_is_torchs_bilinear_with_align_corners(size: int, out: int) -> None:
    x = torch.randn(1, 1, 1, size, generator=torch.Generator().manual_seed(size * 10 + out))
    want = F.interpolate(x, size=(1, out), mode="bilinear", align_corners=True)[0, 0, 0]
    got = torch.from_numpy(dec.interpolation_matrix(size, out, "align_corners")) @ x[0, 0, 0]
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size, out", [(7, 3), (5, 3), (10, 4), (3, 5)])
def test_adaptive_pooling_matrix_is_torchs_adaptive_average_pooling(size: int, out: int) -> None:
    x = torch.randn(1, 1, size, generator=torch.Generator().manual_seed(size * 10 + out))
    want = F.adaptive_avg_pool1d(x, out)[0, 0]
    got = torch.from_numpy(dec.adaptive_pooling_matrix(size, out)) @ x[0, 0]
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_adaptive_average_pool_decomposition_equals_torch() -> None:
    x = torch.randn(2, 3, 7, 5, generator=torch.Generator().manual_seed(7))
    got = dec.DECOMPOSITIONS[torch.ops.aten._adaptive_avg_pool2d.default](x, [3, 2])
    torch.testing.assert_close(got, F.adaptive_avg_pool2d(x, (3, 2)), rtol=1e-5, atol=1e-6)


def test_bilinear_by_a_scale_factor_maps_coordinates_by_that_factor() -> None:
    """Scale 1.5 of 5 gives 7 outputs; torch maps them by 1 / 1.5, not 5 / 7."""
    x = torch.randn(1, 2, 5, 5, generator=torch.Generator().manual_seed(15))
    got = dec.DECOMPOSITIONS[torch.ops.aten.upsample_bilinear2d.vec](x, None, False, [1.5, 1.5])
    want = F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False)
    assert got.shape == want.shape == (1, 2, 7, 7)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_one_dimensional_convolution_decomposition_keeps_stride_padding_and_dilation() -> None:
    g = torch.Generator().manual_seed(3)
    x, w, b = torch.randn(2, 3, 11, generator=g), torch.randn(4, 3, 3, generator=g), torch.randn(4, generator=g)
    got = dec.DECOMPOSITIONS[torch.ops.aten.convolution.default](x, w, b, [2], [1], [2], False, [0], 1)
    torch.testing.assert_close(got, F.conv1d(x, w, b, stride=2, padding=1, dilation=2), rtol=1e-5, atol=1e-5)


# --- raptor.frontend._fx_rewrites, through the torch frontend against eager torch ---

class Fills(torch.nn.Module):
    """ones_like, zeros_like and full_like read only their input's shape."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.ones_like(x) + 2 * torch.ones_like(x) - torch.zeros_like(x) * x + torch.full_like(x, 0.5)


class Sums(torch.nn.Module):
    """Sums over one, two and every dimension (as means times the count)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=(1, 2)) + x.sum(dim=-1).sum(dim=-1) + x.sum() + x.sum(1, keepdim=True).squeeze(1).mean(-1)


@pytest.mark.parametrize("model", [Fills(), Sums()], ids=["fills", "sums"])
def test_rewritten_fills_and_sums_equal_eager_torch(model: torch.nn.Module) -> None:
    from test_frontend_ops import _check as _check_torch

    _check_torch(model, torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(5)), expect=set())


def test_fills_of_a_program_imported_undecomposed_equal_eager_torch() -> None:
    """import_program on a program torch.export gave (not decomposed, as a
    .pt2 may hold it): ones_like and zeros_like reach the importer whole."""
    from raptor.frontend.torch import ImportOptions, import_program
    from nn_reference import evaluate

    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(6))
    ep = torch.export.export(Fills(), (x,), strict=False)
    targets = {n.target for n in ep.graph.nodes if n.op == "call_function"}
    assert {torch.ops.aten.ones_like.default, torch.ops.aten.zeros_like.default} <= targets
    module, report = import_program(ep, ImportOptions(strict=True))
    (got,) = evaluate(module, [x.numpy()], {})
    np.testing.assert_allclose(got, Fills()(x).numpy(), rtol=1e-6, atol=1e-6)
