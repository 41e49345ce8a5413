"""The four zoo models: import, Table 1 storage, typed ops, bundled graphs."""

from __future__ import annotations

import functools

import pytest

import raptor
from raptor import zoo

from raptor.frontend.torch import ImportOptions, ImportReport, import_program


@functools.cache
def _imported(name: str) -> tuple[int, str, dict, ImportReport]:
    """(storage counted on the exported program, IR text, summary, report)."""
    ep = zoo.export(name)
    module, report = import_program(ep, ImportOptions(**zoo.import_options(name)))
    (summary,) = raptor.graph_summary(module)["functions"]
    return zoo.fp32_storage_bytes(ep), str(module), summary, report


@pytest.mark.parametrize("name", zoo.NAMES)
def test_storage_matches_table_1(name: str) -> None:
    exported_bytes, _, summary, _ = _imported(name)
    # The paper prints one decimal; the counting convention is in docs/.
    assert round(summary["fp32_storage_bytes"] / 2**20, 1) == zoo.PAPER_FP32_MIB[name]
    # The C++ summary of the nn graph agrees with a count on the torch side.
    assert summary["fp32_storage_bytes"] == exported_bytes


@pytest.mark.parametrize("name", zoo.NAMES)
def test_every_op_is_typed(name: str) -> None:
    _, _, summary, report = _imported(name)
    assert summary["generic_ops"] == {} and report.generic == {}
    assert all(op.startswith("nn.") and op != "nn.aten" for op in summary["op_counts"])


@pytest.mark.parametrize("name", zoo.NAMES)
def test_bundled_graph_is_current(name: str) -> None:
    _, text, _, _ = _imported(name)
    assert zoo.graph_path(name).read_text() == text, (
        f"python/raptor/zoo/graphs/{name}.mlir is stale: run `make fixtures`")


def test_smollm2_has_the_decoder_operators() -> None:
    _, _, summary, report = _imported("smollm2")
    counts = summary["op_counts"]
    # 30 layers: two RMSNorms each plus the final one; RoPE on q and k.
    assert counts["nn.rms_norm"] == 61
    assert counts["nn.rotary_embedding"] == 60
    assert counts["nn.fan_out"] == 60 and counts["nn.kv_cache"] == 30
    assert counts["nn.scaled_dot_product_attention"] == 30
    assert report.rewrites["causal_mask"] == 30
    # The embedding table is unused when the model is fed inputs_embeds.
    assert summary["num_constants"] == 2  # the RoPE cos and sin tables


def test_cnn_graphs_have_the_expected_operators() -> None:
    shufflenet = _imported("shufflenet_v2")[2]["op_counts"]
    assert shufflenet["nn.convolution"] == 56 and shufflenet["nn.batch_norm"] == 56
    assert shufflenet["nn.split_with_sizes"] == 13 and shufflenet["nn.cat"] == 16
    unet = _imported("unet")[2]["op_counts"]
    assert unet["nn.upsample_nearest2d"] == 5 and unet["nn.add"] == 16
