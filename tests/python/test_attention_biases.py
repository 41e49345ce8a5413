"""Attention whose additive mask is computed at run time (Wav2Vec2-
Conformer's relative positions) spelled out as softmax(q k^T * scale +
mask) v (frontend/_attention_biases.py), where the PIM lowering of
``nn.scaled_dot_product_attention`` takes compile-time masks only; checked
against eager torch, and Wav2Vec2-Conformer with relative positions end
to end."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from pim_helpers import OutputField
from test_gathers_and_softmax_axes import _close, _compiled


class _Biased(torch.nn.Module):
    """Attention over 6 positions, 2 heads, biased by a product of the
    queries with a learned table (a run-time mask)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.table = torch.nn.Parameter(torch.randn(2, 4, 6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).view(1, 6, 3, 2, 4).permute(2, 0, 3, 1, 4)
        bias = q @ self.table  # (1, 2, 6, 6), from the input
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3).transpose(1, 2).reshape(1, 6, 8)


def test_a_run_time_attention_bias_equals_torch(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = _Biased().eval()
    x = torch.randn(1, 6, 8)
    program, rewrites = _compiled(model, x, tmp_path)
    assert rewrites.get("run_time_attention_bias") == 1
    _close(program, model, x)
    _close(program, model, torch.randn(1, 6, 8))


class _Grouped(torch.nn.Module):
    """Grouped-query attention (4 query heads, ``kv_heads`` key and value
    heads) biased at run time."""

    def __init__(self, kv_heads: int) -> None:
        super().__init__()
        self.kv_heads = kv_heads
        self.q = torch.nn.Linear(8, 16)
        self.kv = torch.nn.Linear(8, 8 * kv_heads)
        self.table = torch.nn.Parameter(torch.randn(4, 4, 6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.q(x).view(1, 6, 4, 4).transpose(1, 2)
        k, v = self.kv(x).view(1, 6, 2, self.kv_heads, 4).permute(2, 0, 3, 1, 4)
        bias = q @ self.table
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, enable_gqa=True)
        return out.transpose(1, 2).reshape(1, 6, 16)


@pytest.mark.parametrize("kv_heads", [1, 2])
def test_a_grouped_query_attention_with_a_run_time_bias_equals_torch(tmp_path: Path, kv_heads: int) -> None:
    """Each key and value head serves 4 / kv_heads query heads (head h reads
    h // (4 / kv_heads)): repeated, then spelled out (had stopped: "needs a
    compile-time attention mask")."""
    torch.manual_seed(0)
    model = _Grouped(kv_heads).eval()
    x = torch.randn(1, 6, 8)
    program, rewrites = _compiled(model, x, tmp_path)
    assert rewrites.get("run_time_attention_bias") == 1
    _close(program, model, x)
    _close(program, model, torch.randn(1, 6, 8))


def test_wav2vec2_conformer_with_relative_positions_runs_the_flow(tmp_path: Path) -> None:
    from transformers import Wav2Vec2ConformerConfig, Wav2Vec2ConformerModel

    torch.manual_seed(0)
    config = Wav2Vec2ConformerConfig(conv_dim=(32, 32), conv_kernel=(10, 3), conv_stride=(5, 2),
                                     num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, hidden_size=32,
                                     num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                                     vocab_size=97, position_embeddings_type="relative",
                                     conv_depthwise_kernel_size=3)
    model = OutputField(Wav2Vec2ConformerModel(config), argument="input_values").eval()
    x = torch.randn(1, 1600)
    program, rewrites = _compiled(model, x, tmp_path)
    assert rewrites.get("run_time_attention_bias") == 1
    _close(program, model, x, 1e-5)
