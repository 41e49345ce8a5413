"""The typed ops for what real models use (issue 14), through the torch
frontend: each small model imports in strict mode, and the imported graph,
run by the reference evaluator, equals eager torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers

import raptor
from raptor.frontend.torch import ExportError, ImportOptions, import_module

from nn_reference import evaluate


def _op_names(module) -> set[str]:
    return set(raptor.graph_summary(module)["functions"][0]["op_counts"])


def _check(model: torch.nn.Module, *inputs: torch.Tensor, expect: set[str]) -> None:
    torch.manual_seed(0)
    module, report, weights = import_module(model, inputs, ImportOptions(strict=True))
    assert not report.generic
    assert expect <= _op_names(module), _op_names(module)
    with torch.no_grad():
        reference = model(*inputs)
    got = evaluate(module, [x.numpy() for x in inputs], weights)
    np.testing.assert_allclose(got[0], reference.numpy(), rtol=1e-5, atol=1e-5)


class HardActivations(torch.nn.Module):
    """MobileNet's activations: ReLU6, hard-swish, hard-sigmoid, clamp."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.relu6(self.conv(x) * 4)
        y = torch.nn.functional.hardswish(y - 3) + torch.nn.functional.hardsigmoid(y - 2)
        return torch.clamp(y, min=0.25) + torch.clamp(y, max=0.5) + torch.nn.functional.hardtanh(y, -0.5, 0.75)


def test_hard_activations_are_hardtanh_and_clamp() -> None:
    _check(HardActivations(), torch.randn(1, 3, 8, 8), expect={"nn.hardtanh", "nn.clamp"})


class Pools(torch.nn.Module):
    """DenseNet's transition pooling and the adaptive pooling of classifiers:
    to sizes that divide the input (kept as pooling) and to sizes that do
    not (products by pooling matrices: linear layers)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = torch.nn.functional.avg_pool2d(x, 2, stride=2)
        b = torch.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        c = torch.nn.functional.adaptive_avg_pool2d(x, (3, 3))
        d = torch.nn.functional.adaptive_avg_pool2d(x, (2, 4))
        return torch.cat([a.flatten(1), b.flatten(1), c.flatten(1), d.flatten(1)], dim=1)


def test_average_pooling_plain_and_adaptive() -> None:
    _check(Pools(), torch.randn(1, 4, 9, 9), expect={"nn.avg_pool2d", "nn.adaptive_avg_pool2d", "nn.linear"})


class Selections(torch.nn.Module):
    """ViT's class token, Swin's relative-position table and roll (gathers
    by constant indices: slices of their runs)."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(9, 4))
        self.register_buffer("position", torch.tensor([[0, 4, 8], [2, 1, 7]]))
        self.register_buffer("order", torch.tensor([3, 0, 2, 1]), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cls = x[:, 0]                                   # select.int
        last = x[:, -1, 1]                              # select of a select
        shuffled = torch.index_select(x, 2, self.order)  # index_select
        rolled = torch.roll(x, shifts=1, dims=1)        # index_select by a constant
        bias = self.table[self.position]                # index.Tensor
        return (cls.mean() + last.mean() + shuffled[:, :, :3] * rolled[:, :, :3]).mean(1) + bias.mean()


def test_selections_with_constant_indices() -> None:
    _check(Selections(), torch.randn(2, 5, 4), expect={"nn.select", "nn.index", "nn.slice", "nn.cat"})


class Strided(torch.nn.Module):
    """as_strided of a contiguous tensor: a transposed window (kept) and a
    reshape (adaptive pooling to 1x1 leaves one: becomes a view)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        window = torch.as_strided(x, (3, 2), (1, 4), 1)
        pooled = torch.nn.functional.adaptive_avg_pool2d(x.view(1, 2, 2, 4), 1)
        return window.mean() + pooled.flatten() + torch.ops.aten.alias.default(x).mean(0)[:2]


def test_as_strided_plain_views_and_alias() -> None:
    _check(Strided(), torch.randn(4, 4), expect={"nn.as_strided"})


class ChannelsLastPool(torch.nn.Module):
    """ConvNeXt's tail: a channels-last layer norm, then adaptive pooling to
    1x1, which leaves an as_strided that only restrides a contiguous tensor."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 1)
        self.norm = torch.nn.LayerNorm(4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.conv(x).permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)


def test_an_as_strided_that_only_reshapes_becomes_a_view() -> None:
    model = ChannelsLastPool().eval()
    module, report, _ = import_module(model, (torch.randn(1, 3, 7, 7),), ImportOptions(strict=True))
    assert report.rewrites["as_strided_view"] == 1
    assert "nn.as_strided" not in _op_names(module)
    _check(model, torch.randn(1, 3, 7, 7), expect={"nn.view", "nn.layer_norm"})


class NanGuard(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nan_to_num(x, nan=0.5) + torch.nan_to_num(x, 0.0, 7.0, -7.0)


def test_nan_to_num() -> None:
    """Raptor's decomposition table decomposes nan_to_num (into isnan and
    where, which stay generic); kept, it is nn.nan_to_num (the ONNX
    frontend's NaN guard)."""
    from raptor.frontend.torch import import_program
    from raptor.zoo import decomposition_table

    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
    table = decomposition_table()
    table.pop(torch.ops.aten.nan_to_num.default, None)
    ep = torch.export.export(NanGuard(), (x,), strict=False).run_decompositions(table)
    module, report = import_program(ep, ImportOptions(strict=True))
    assert _op_names(module) == {"nn.nan_to_num", "nn.add"}
    np.testing.assert_array_equal(evaluate(module, [x.numpy()], {})[0], NanGuard()(x).numpy())


class ErfGelus(torch.nn.Module):
    """GELU written with erf, as ESM and older BERT ports write it: divided
    by sqrt 2, or multiplied by its reciprocal with the half first."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = x * 0.5 * (1.0 + torch.erf(x / 2.0**0.5))
        b = 0.5 * x * (torch.erf(x * 0.7071067811865476) + 1.0)
        return a + b


class NotAGelu(torch.nn.Module):
    """erf of x / 2: not a GELU, left to erf."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 0.5 * (1.0 + torch.erf(x / 2.0))


def test_gelus_written_with_erf_become_nn_gelu() -> None:
    x = torch.randn(2, 8)
    module, report, _ = import_module(ErfGelus(), (x,), ImportOptions(strict=True))
    assert report.rewrites["erf_gelu"] == 2
    _check(ErfGelus(), x, expect={"nn.gelu"})
    assert "nn.mul" not in _op_names(module)
    module, report, _ = import_module(NotAGelu(), (x,))
    assert "erf_gelu" not in report.rewrites and report.generic == {"aten.erf.default": 1}


class IndexedBiases(torch.nn.Module):
    """LeViT's attention biases, ``biases[:, idxs]`` (a weight indexed
    along its second dimension by a constant 2-d table), and a run-time
    tensor indexed along its last dimension."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.biases = torch.nn.Parameter(torch.randn(3, 10))
        self.register_buffer("idxs", torch.randint(0, 10, (4, 4)), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.biases[:, self.idxs] + x[:, :, self.idxs].sum()


def test_an_index_after_leading_colons_indexes_a_permuted_tensor() -> None:
    x = torch.randn(3, 2, 10)
    module, report, _ = import_module(IndexedBiases(), (x,), ImportOptions(strict=True))
    assert report.rewrites["indexed_dimension_first"] == 2 and not report.generic
    _check(IndexedBiases(), x, expect={"nn.index", "nn.permute"})


class SquareRoots(torch.nn.Module):
    """torch.sqrt at run time: I-BERT's and DeBERTa's norms and scales."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5) + torch.sqrt(x * x + 1.0)


def test_square_roots_are_powers_of_a_half() -> None:
    x = torch.randn(2, 8)
    module, report, _ = import_module(SquareRoots(), (x,), ImportOptions(strict=True))
    assert not report.generic
    _check(SquareRoots(), x, expect={"nn.pow"})


class EmptyPast(torch.nn.Module):
    """An empty KV cache's concatenation: torch.cat skips a 1-d tensor of no
    elements (its legacy rule), whatever the dimension."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("past", torch.empty(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.past, x, self.past, x * 2], dim=-2)


def test_a_concatenation_skips_empty_one_dimensional_tensors() -> None:
    _check(EmptyPast(), torch.randn(1, 2, 3, 4), expect={"nn.cat"})


def test_gpt2_imports_without_kv_cache_objects() -> None:
    """Decoder configurations default to use_cache=True; import_module turns
    it off for the export (and restores it), and GPT-2's Conv1D (addmm) and
    x**3 import as typed ops. Logits equal eager torch's."""
    config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64, n_positions=16,
                                     bos_token_id=0, eos_token_id=0)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, 64, (1, 6))
    module, report, weights = import_module(model, (ids,), ImportOptions(strict=True))
    assert model.config.use_cache is True
    assert report.rewrites["addmm"] == 4
    assert {"nn.pow", "nn.matmul"} <= _op_names(module)
    with torch.no_grad():
        logits = model(ids).logits
    got = evaluate(module, [ids.numpy()], weights)
    np.testing.assert_allclose(got[0], logits.numpy(), rtol=1e-4, atol=1e-4)


def test_export_failure_is_one_line() -> None:
    class DataDependent(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + 1 if x.mean() > 0 else x - 1

    with pytest.raises(ExportError) as error:
        import_module(DataDependent(), torch.randn(3))
    assert str(error.value).startswith("torch.export failed: ")
    assert "\n" not in str(error.value)


def test_dynamic_shapes_are_refused() -> None:
    from raptor.frontend.torch import import_program

    model = torch.nn.Linear(4, 2).eval()
    batch = torch.export.Dim("batch")
    ep = torch.export.export(model, (torch.randn(3, 4),), dynamic_shapes=({0: batch},))
    with pytest.raises(ExportError, match=r"input '\w+' has a dynamic shape \[s\d+, 4\]"):
        import_program(ep)


class SliceAssignments(torch.nn.Module):
    """Assignments to slices (Funnel's relative attention shifts a score
    matrix into place): ``slice_scatter`` after export, at the start, in
    the middle, up to the end (a negative start), and an assignment to all
    of a tensor (``copy``, also broadcast)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 1.5
        y[:, :2] = x[:, 3:5] * 2
        y[:, 3:5] = x[:, :2] - 1
        y[..., -2:] = torch.relu(x[..., :2])
        z = x + 1
        z[:, :] = y[:, :] * 3
        w = x - 1
        w[:] = x[0] * 4
        w[:, 1] = x[:, -1] + 2
        w[:, :, -1] = x[:, :, 0]
        return y + z + w


class SteppedSliceAssignment(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 1.5
        y[:, ::2] = x[:, 1::2]
        return y


def test_slice_assignments_are_concatenations_of_the_untouched_parts() -> None:
    x = torch.randn(2, 6, 4)
    module, report, _ = import_module(SliceAssignments(), (x,), ImportOptions(strict=True))
    # Each assignment copies its value into its place (7 copies), three of
    # them into a part of a dimension (slice_scatter; a whole dimension's
    # slice is the tensor; torch writes an index's assignment as a where
    # over the index, which the compiler expands: raptor-expand-selects).
    assert report.rewrites["slice_scatter"] == 3 and report.rewrites["copy"] == 7 and not report.generic
    assert "nn.cat" in _op_names(module)
    _check(SliceAssignments(), x, expect={"nn.cat", "nn.slice"})
    # A stepped slice is no run of the dimension: left to the generic op.
    _, stepped, _ = import_module(SteppedSliceAssignment(), (torch.randn(2, 6),), ImportOptions(strict=False))
    assert stepped.rewrites["slice_scatter"] == 0 and "aten.slice_scatter.default" in stepped.generic


class Aliased(torch.nn.Module):
    """``torch.ops.aten.alias``: the same tensor under another name."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten.alias(x * 2) + x


def test_an_alias_is_its_input() -> None:
    x = torch.randn(3, 4)
    module, report, _ = import_module(Aliased(), (x,), ImportOptions(strict=True))
    assert report.rewrites["alias"] == 1 and "nn.alias" not in _op_names(module)
    _check(Aliased(), x, expect={"nn.mul", "nn.add"})
