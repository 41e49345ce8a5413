"""``torch.gather`` and ONNX ``GatherElements`` by a constant index
(frontend/_constant_gathers.py):
an affine index becomes one ``as_strided`` view (reversed where a stride is
negative), another one the slices of its runs; the back end copies an
``as_strided`` into a row-major result (tests/lit/passes/pim/
lower-as-strided.mlir). Checked against eager torch on synthetic gathers
and on DeBERTa and DeBERTa-v2 configurations (relative-position attention,
whose gathers stopped the import: ``aten.gather.default has no PIM
lowering``), int8 against the quantized model's reference, pipelined."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import cli, sources
from raptor._io import UserError
from raptor.frontend._constant_gathers import MAX_RUNS, gather_plan
from raptor.frontend._index_runs import index_runs

from pim_helpers import OutputField, compile_source, onnx_agrees
from test_gathers_and_softmax_axes import _close, _compiled
from test_token_ids import LastHidden


class _Gather(torch.nn.Module):
    """A projection's scores gathered along the last dimension by a constant
    index, then a linear layer."""

    def __init__(self, index: torch.Tensor, width: int) -> None:
        super().__init__()
        self.register_buffer("index", index, persistent=False)
        self.proj = torch.nn.Linear(8, width)
        self.fc = torch.nn.Linear(index.shape[-1], 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = torch.relu(self.proj(x))
        return self.fc(torch.gather(scores, -1, self.index.expand(x.shape[0], -1, -1)))


def _index(case: str, n: int) -> tuple[torch.Tensor, int]:
    """(index (1, n, m), the gathered dimension's size)."""
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    if case == "relative":  # DeBERTa's c2p: i - j + span over 2 * span scores
        return (i - j + n), 2 * n
    if case == "shifted":  # forwards: i + j
        return (i + j), 2 * n
    if case == "clamped":  # relative positions beyond a span of 3 clamped: not affine
        return (i - j).clamp(-3, 3) + 3, 7 if n > 7 else n
    rng = np.random.default_rng(0)  # scattered: no structure
    return torch.from_numpy(rng.integers(0, n, (n, n))), n


def _planned_gather(x: torch.Tensor, dim: int, index: torch.Tensor) -> tuple[str, torch.Tensor]:
    """``gather(x, dim, index)`` as its plan moves data: the plan's kind and
    the result."""
    plan = gather_plan(list(x.shape), dim, index)
    assert plan is not None
    if plan.columns is not None:
        x = x.index_select(dim, torch.tensor(plan.columns))
    if plan.strided is not None:
        shape, strides, start, backwards = plan.strided
        y = torch.as_strided(x.contiguous().flatten(), shape, strides, start)
        kind = "relative" if plan.columns is not None else "strided"
        return kind, y.flip(backwards) if backwards else y
    return "runs", x.flatten()[torch.tensor(plan.runs)].reshape(index.shape)


def test_gather_plans_move_what_torch_gathers() -> None:
    """The plan of each kind of index, applied, equals torch.gather: affine
    (forwards, backwards, broadcast), a function of i - j (clamped relative
    positions, along either dimension), and neither (a permutation of the
    columns the same in every row, random)."""
    torch.manual_seed(0)
    x = torch.randn(3, 7, 9)
    i, j = torch.arange(7)[:, None], torch.arange(9)[None, :]
    cases = {
        "strided": [(2, i + j - i), (2, 8 - j + 0 * i), (1, (6 - i).expand(7, 9)), (2, (i + 2 * j) // 3 * 0 + i)],
        "relative": [(2, (i - j).clamp(-3, 3) + 3), (1, (j[:, :7] - i).clamp(-2, 2).t().contiguous() + 2)],
        "runs": [(2, torch.tensor([2, 0, 3, 1, 8, 4, 5, 7, 6]).expand(7, 9)), (2, torch.randint(0, 9, (7, 9))),
                 (2, (i + 2 * j) % 9)],
    }
    for kind, indices in cases.items():
        for dim, index in indices:
            index = index[None].expand(3, *index.shape).contiguous()
            want = torch.gather(x, dim, index)
            got_kind, got = _planned_gather(x, dim, index)
            assert torch.equal(got, want) and got_kind == kind, (kind, dim, got_kind)


def test_a_plan_is_a_value() -> None:
    """Plans are shared by both importers and compared: frozen."""
    plan = gather_plan([1, 4], 1, torch.tensor([[1, 0, 3, 2]]))
    assert plan == gather_plan([1, 4], 1, torch.tensor([[1, 0, 3, 2]]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.runs = None  # type: ignore[misc]


def test_a_plan_of_runs_takes_at_most_max_runs() -> None:
    """Pairs swapped ([1, 0, 3, 2, ...]: every element a run of its own,
    neither affine nor relative): MAX_RUNS runs are a plan, two more none."""
    for n, planned in ((MAX_RUNS, True), (MAX_RUNS + 2, False)):
        index = (torch.arange(n) ^ 1)[None]
        plan = gather_plan([1, n], 1, index)
        assert (plan is not None) == planned
        if planned:
            assert plan.runs == index.flatten().tolist() and len(index_runs(plan.runs)) == MAX_RUNS


@pytest.mark.parametrize("case", ["relative", "shifted", "clamped", "scattered"])
def test_a_gather_by_a_constant_index_equals_torch(tmp_path: Path, case: str) -> None:
    torch.manual_seed(0)
    n = 8
    index, width = _index(case, n)
    model = _Gather(index[None], width).eval()
    x = torch.randn(1, n, 8)
    program, rewrites = _compiled(model, x, tmp_path)
    assert rewrites.get("constant_gather") == 1
    imported = sources.load(str(tmp_path / "m.pt2"), strict=True)
    try:
        text = str(imported.module)
    finally:
        imported.cleanup()
    # An affine or relative (clamped) index is one strided view; the
    # scattered one its runs' slices.
    assert ("nn.as_strided" in text) == (case != "scattered") and "gather" not in text
    _close(program, model, x)
    _close(program, model, torch.randn(1, n, 8))


@pytest.mark.parametrize("case", ["relative", "clamped"])
def test_an_onnx_gather_elements_by_a_constant_index_equals_onnxruntime(tmp_path: Path, case: str) -> None:
    """ONNX GatherElements follows the same plan (gather_plan)."""
    torch.manual_seed(0)
    index, width = _index(case, 8)
    onnx_agrees(_Gather(index[None], width).eval(), torch.randn(1, 8, 8), tmp_path)


def test_a_gather_of_too_many_runs_stops_in_one_line(tmp_path: Path) -> None:
    """An index with no structure over many positions would be thousands of
    slices: the gather stays, and the compile stops in one line (strict
    import: no nn op; else the back end's "has no PIM lowering"), writing
    nothing."""
    torch.manual_seed(0)
    n = 96
    model = _Gather(torch.from_numpy(np.random.default_rng(0).integers(0, n, (1, n, n))), n).eval()
    with pytest.raises(UserError, match=r"aten\.gather\.default"):
        _compiled(model, torch.randn(1, n, 8), tmp_path)
    assert not (tmp_path / "p").exists()


def _deberta(version: int) -> torch.nn.Module:
    from transformers import DebertaConfig, DebertaModel, DebertaV2Config, DebertaV2Model

    torch.manual_seed(0)
    common = dict(vocab_size=97, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                  max_position_embeddings=64, relative_attention=True, pos_att_type=["c2p", "p2c"],
                  max_relative_positions=16)
    if version == 1:
        return LastHidden(DebertaModel(DebertaConfig(**common)))
    return LastHidden(DebertaV2Model(DebertaV2Config(**common, position_buckets=8)))


@pytest.mark.parametrize("version", [1, 2])
def test_deberta_runs_the_flow(tmp_path: Path, version: int) -> None:
    model = _deberta(version).eval()
    ids = torch.from_numpy(np.random.default_rng(1).integers(0, 97, (1, 12)))
    program, rewrites = _compiled(model, ids, tmp_path)
    assert rewrites.get("constant_gather") == 2  # c2p and p2c
    for seed in (2, 3):
        _close(program, model, torch.from_numpy(np.random.default_rng(seed).integers(0, 97, (1, 12))))


def test_sew_d_runs_the_flow(tmp_path: Path) -> None:
    """SEW-D's relative positions are log buckets (79 frames: 12,482 runs
    of flat offsets, beyond MAX_RUNS): a function of i - j, so 157 columns
    and a skew."""
    from transformers import SEWDConfig, SEWDModel

    torch.manual_seed(0)
    config = SEWDConfig(conv_dim=(32, 32), conv_kernel=(10, 3), conv_stride=(5, 2), num_conv_pos_embeddings=16,
                        num_conv_pos_embedding_groups=2, hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=64, vocab_size=97, squeeze_factor=2,
                        position_buckets=16, max_position_embeddings=64)
    model = OutputField(SEWDModel(config), argument="input_values").eval()
    x = torch.randn(1, 1600)
    program, rewrites = _compiled(model, x, tmp_path)
    assert rewrites.get("constant_gather") == 2
    _close(program, model, x)
    _close(program, model, torch.randn(1, 1600))


def test_deberta_from_onnx_equals_onnxruntime(tmp_path: Path) -> None:
    onnx_agrees(_deberta(1).eval(), torch.from_numpy(np.random.default_rng(1).integers(0, 97, (1, 12))), tmp_path)


def test_deberta_int8_and_pipelined(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _deberta(1).eval()
    ids = torch.from_numpy(np.random.default_rng(1).integers(0, 97, (1, 12)))
    program, _ = _compiled(model, ids, tmp_path, pipeline=4)
    assert program.manifest["schedule"]["mode"] == "pipeline"
    _close(program, model, ids)
    compile_source(tmp_path / "m.pt2", tmp_path / "int8", precision="int8")
    assert cli.main(["simulate", str(tmp_path / "int8"), "--check", "--json"]) == 0
    check = json.loads(capsys.readouterr().out)
    # Float arithmetic (its layer norms): bit for bit the quantized
    # reference, and close to torch.
    assert check["arithmetic"] == "float" and check["integer_reference_bit_exact"]
    assert check["max_error_relative"] < 0.01
