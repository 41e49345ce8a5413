"""Model families the back end reaches through decompositions at import:
1-d convolutions (also with a weight norm, wav2vec2's), group and instance norm, bilinear and nearest resizing,
L2 norms, sums and fills shaped like a tensor, gathers by constant indices,
einsum and @ by weights (linear layers on crossbars), selections of a
run-time value by index, products of two activations (q @ k^T written out),
eager attention's causal mask (a where by a known condition), adaptive
average pooling to sizes that do not divide the input, and Swin's shifted
windows (a roll, a relative-position table indexed by a constant, patch
merging), ConvNeXt V2's global response norm (a square root that is not
a divisor; on a 1 x 1 map an absolute value), absolute values (torch's and
ONNX's, of signed data), maxima and minima with constants (XGLM's scores
against the float's lowest value), Swin V2's scaled cosine attention (exp of a clamped weight,
an MLP over a constant table: computed by the compiler), and Mamba's selective scan (softplus, exp
of activations) with Mamba2's running sums.
Each is a small torch model with random weights, saved as .pt2 and
exported to ONNX, imported strictly, compiled (float32 in latency and
pipeline mode, int8), simulated and compared with eager torch or
onnxruntime."""

from __future__ import annotations

import io
import math
import warnings
import zlib
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper

import raptor
from raptor import pim, quant, sources, weights as weights_io
from raptor.frontend._decompositions import adaptive_pooling_matrix, interpolation_matrix
from raptor.frontend._index_runs import index_runs

from pim_helpers import compile_source


class Conv1d(torch.nn.Module):
    """Whisper's front end in small: two 1-d convolutions, GELU, a stride."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv1d(4, 8, 3, padding=1)
        self.b = torch.nn.Conv1d(8, 6, 5, stride=2, padding=2, dilation=1)
        self.c = torch.nn.Conv1d(6, 6, 3, groups=3, padding=2, dilation=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(F.gelu(self.b(F.relu(self.a(x)))))


class WeightNorm(torch.nn.Module):
    """wav2vec2's positional convolution in small: a grouped 1-d convolution
    whose weight is g * v / ||v|| over dimension 2 (torch's weight_norm
    parametrization), which the compiler computes from g and v."""

    def __init__(self) -> None:
        super().__init__()
        conv = torch.nn.Conv1d(8, 8, 5, padding=2, groups=2)
        self.conv = torch.nn.utils.parametrizations.weight_norm(conv, name="weight", dim=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + F.gelu(self.conv(x))


class GroupNorm(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm = torch.nn.GroupNorm(2, 8)
        torch.nn.init.uniform_(self.norm.weight, 0.5, 1.5)
        torch.nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.norm(self.conv(x)))


class Bilinear(torch.nn.Module):
    """A segmentation head in small: features upsampled by 2 and to a size."""

    mode = "bilinear"

    def __init__(self, align_corners: bool = False) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.align_corners = align_corners

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.interpolate(self.conv(x), scale_factor=2, mode=self.mode, align_corners=self.align_corners)
        return F.interpolate(y, size=(11, 13), mode=self.mode, align_corners=self.align_corners)


class Bicubic(Bilinear):
    """The same bicubically (timm's CrossViT resizes its image so for its
    second branch; ONNX ``Resize`` mode ``cubic``)."""

    mode = "bicubic"


class L2Norm(torch.nn.Module):
    """Embedding heads in small: features L2-normalized over channels
    (F.normalize: a root of a sum of squares, clamped, as a divisor), a
    sum over positions, and fills shaped like a tensor (full_like,
    zeros_like)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        pooled = y.sum(dim=(2, 3), keepdim=True) * 0.05
        return F.normalize(y, dim=1) + pooled + torch.full_like(y, 0.25) + torch.zeros_like(y)


class Gather(torch.nn.Module):
    """Channel and position picks by constant index lists (reordered and
    repeated), and a sum over everything."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        picked = y[:, [0, 1, 2, 5, 4, 4]]
        return picked[:, :, [3, 0, 1]] + 0.01 * y.sum()


class Einsum(torch.nn.Module):
    """Products by weights written as einsum and @: linear layers on crossbars."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(8, 12) / 3)
        self.b = torch.nn.Parameter(torch.randn(12, 6) / 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.einsum("bsi,ij->bsj", x, self.a)) @ self.b


class FusedProjections(torch.nn.Module):
    """BLOOM's fused query, key and value: one linear layer, its output
    picked apart by index (aten.select on a run-time value)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 3 * 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fused = self.qkv(x).view(1, 5, 3, 8)
        q, k, v = fused[:, :, 0], fused[:, :, 1], fused[:, :, -1]
        return torch.relu(q * k + v)


class ActivationProducts(torch.nn.Module):
    """Attention scores as a product of two activations, q @ k^T per head,
    written out (no SDPA): the keys' row copies are transposed and
    broadcast before the product reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.q = torch.nn.Linear(8, 8)
        self.k = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.q(x).view(1, 6, 2, 4).transpose(1, 2)
        k = self.k(x).view(1, 6, 2, 4).permute(0, 2, 3, 1)
        return torch.relu(q @ k + q @ k)


class CausalMask(torch.nn.Module):
    """Eager causal attention (GPT-Neo, GPT-J): scores masked by
    ``where(mask, scores, min)``, the mask a triangle sliced from a constant
    buffer longer than the sequence."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.register_buffer("bias", torch.tril(torch.ones(9, 9, dtype=torch.bool)).view(1, 1, 9, 9),
                             persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).view(1, 6, 3, 2, 4).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2)
        mask = self.bias[:, :, :6, :6]
        scores = torch.where(mask, scores, torch.tensor(torch.finfo(torch.float32).min))
        return torch.softmax(scores, dim=-1) @ v


class ShiftedWindows(torch.nn.Module):
    """Swin in small: a map rolled by ``torch.roll`` (a gather by constant
    indices), attention within 3 x 3 windows with a relative-position bias
    (a table indexed by a constant buffer, computed by the compiler), the
    windows put back and merged by patches (slices by 2)."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.table = torch.nn.Parameter(torch.randn(25, 1))
        coords = torch.stack(torch.meshgrid(torch.arange(3), torch.arange(3), indexing="ij")).flatten(1)
        relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + 2
        self.register_buffer("index", (relative[..., 0] * 5 + relative[..., 1]).flatten())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.roll(self.proj(x), shifts=(-1, -1), dims=(1, 2))
        windows = x.view(1, 2, 3, 2, 3, 4).permute(0, 1, 3, 2, 4, 5).reshape(4, 9, 4)
        scores = windows @ windows.transpose(-1, -2) + self.table[self.index].view(9, 9)
        y = (torch.softmax(scores, dim=-1) @ windows).view(1, 2, 2, 3, 3, 4).permute(0, 1, 3, 2, 4, 5)
        y = y.reshape(1, 6, 6, 4)
        return torch.cat([y[:, 0::2, 0::2], y[:, 1::2, 0::2], y[:, 0::2, 1::2], y[:, 1::2, 1::2]], -1)


class GlobalResponseNorm(torch.nn.Module):
    """ConvNeXt V2's global response norm: per-channel L2 norms over the
    positions, divided by their mean over the channels (a square root that
    is not a divisor)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)
        self.gamma = torch.nn.Parameter(torch.randn(1, 1, 1, 6))
        self.beta = torch.nn.Parameter(torch.randn(1, 1, 1, 6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x).permute(0, 2, 3, 1)
        norms = torch.norm(y, p=2, dim=(1, 2), keepdim=True)
        scaled = norms / (norms.mean(dim=-1, keepdim=True) + 1e-6)
        return self.gamma * (y * scaled) + self.beta + y


class ScaledCosineAttention(torch.nn.Module):
    """Swin V2's attention in small: cosine scores scaled by the exponential
    of a clamped weight, plus a bias from an MLP over a constant coordinate
    table (linear, ReLU, linear, sigmoid): every op on the weight side is
    computed by the compiler."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        # the second head's scale is above the clamp (Swin V2 clamps at 100)
        self.logit_scale = torch.nn.Parameter(torch.log(torch.tensor([2.0, 8.0]).reshape(2, 1, 1)))
        self.mlp = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(),
                                       torch.nn.Linear(16, 2, bias=False))
        grid = torch.stack(torch.meshgrid(torch.linspace(-1, 1, 6), torch.linspace(-1, 1, 6),
                                          indexing="ij"), -1)
        self.register_buffer("table", grid.reshape(36, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).reshape(1, 6, 3, 2, 4).permute(2, 0, 3, 1, 4)
        scores = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        scale = torch.clamp(self.logit_scale, max=math.log(4)).exp()
        bias = 16 * torch.sigmoid(self.mlp(self.table).permute(1, 0).reshape(2, 6, 6))
        return (torch.softmax(scores * scale + bias, dim=-1) @ v).transpose(1, 2).reshape(1, 6, 8)


class LearnedLatents(torch.nn.Module):
    """Perceiver's cross-attention in small: learned latents, layer-normed
    and projected (computed by the compiler), as the queries of two heads
    over the input's keys and values: the scores are weights @ activations
    per head, which become a linear layer per head."""

    def __init__(self) -> None:
        super().__init__()
        self.latents = torch.nn.Parameter(torch.randn(4, 8))
        self.norm = torch.nn.LayerNorm(8)
        self.q = torch.nn.Linear(8, 8)
        self.kv = torch.nn.Linear(8, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.q(self.norm(self.latents)).expand(1, 4, 8).reshape(1, 4, 2, 4).transpose(1, 2)
        k, v = self.kv(x).reshape(1, 6, 2, 2, 4).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / 2
        return (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(1, 4, 8)


class Absolute(torch.nn.Module):
    """|y| of signed data, and ConvNeXt V2's response norm where its map is
    1 x 1 (the last stage of a small image): torch's vector norm over
    dimensions of size 1 decomposes to an absolute value."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # (1, 6, 1, 1) of a 3 x 3 input
        norms = torch.linalg.vector_norm(y, ord=2, dim=(2, 3), keepdim=True)
        return y.abs() * 0.5 + norms / (norms.mean(dim=1, keepdim=True) + 1e-6) + y


class ConstantBounds(torch.nn.Module):
    """XGLM's attention scores held above the float's lowest value
    (`torch.max` with a constant: the scores themselves), and maxima and
    minima with constants of one value, 0-d or broadcast, on either side
    (clamps; by -inf the tensor itself)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        scores = torch.max(y, torch.tensor(torch.finfo(y.dtype).min))
        return torch.maximum(scores, torch.full((), -0.3)) + torch.min(torch.tensor(0.4), y) \
            + torch.minimum(y, torch.full((1, 8), 0.2)) + torch.max(y, torch.tensor(-math.inf))


class ConstantConvolution(torch.nn.Module):
    """EdgeNeXt's positional encoding: convolutions of a constant grid
    (features of the positions) by weights, which the compiler computes
    (with stride, padding, dilation and groups), added to a convolution
    of the input."""

    def __init__(self, kernel: int = 3, stride: int = 2, padding: int = 2, dilation: int = 2, groups: int = 2) -> None:
        super().__init__()
        self.proj = torch.nn.Conv2d(4, 6, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups)
        self.point = torch.nn.Conv2d(6, 3, 1)
        self.mix = torch.nn.Conv2d(3, 3, 1)
        ys, xs = torch.meshgrid(torch.arange(9.0), torch.arange(7.0), indexing="ij")
        self.register_buffer("grid", torch.stack([ys.sin(), xs.cos(), ys / 9, xs / 7])[None], persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mix(x) + self.point(self.proj(self.grid))


class LeakyActivations(torch.nn.Module):
    """CSPDarknet's activation, leaky ReLU, at two slopes between
    convolutions (decomposed exactly: relu(x) - slope relu(-x))."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.b = torch.nn.Conv2d(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu(self.b(torch.nn.functional.leaky_relu(self.a(x), 0.1)), 0.01)


class BlockAttention(torch.nn.Module):
    """NesT's attention in small: two heads attend within each of three
    blocks, (batch, heads, blocks, length, dim) queries (rank 5, folded into
    (batch, heads x blocks, ...) by raptor-normalize-row-ops), with a
    constant additive mask that differs per block (expanded over the heads
    before the fold)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.proj = torch.nn.Linear(8, 8)
        self.register_buffer("mask", torch.randn(3, 4, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, t, n, 3, 2, c // 2).permute(3, 0, 4, 1, 2, 5)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=self.mask)
        return self.proj(y.permute(0, 2, 3, 1, 4).reshape(b, t, n, c))


class Reversed(torch.nn.Module):
    """Sequencer's bidirectional LSTM reads its sequence backwards: a
    projection of the flipped sequence flipped back, beside the forward
    one, and a flip over two dimensions (torch.flip; ONNX Slice of step
    -1)."""

    def __init__(self) -> None:
        super().__init__()
        self.forward_proj = torch.nn.Linear(8, 8)
        self.backward_proj = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        back = torch.flip(self.backward_proj(torch.flip(x, [1])), [1])
        return torch.flip(torch.relu(self.forward_proj(x)) + back, [-1, 1])


class TokenMaximum(torch.nn.Module):
    """VOLO's auxiliary head reads the maximum over tokens (``x.max(1)[0]``,
    aten.max.dim of which only the values are used; ONNX ReduceMax), beside
    a maximum over two dimensions kept as size 1 (aten.amax)."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x)
        return y.max(1)[0] + torch.amax(y, dim=(1, 2), keepdim=True).squeeze(1)


class StandardizedWeights(torch.nn.Module):
    """BiT's weight-standardized convolution (each output channel's weights
    normalized by ``F.batch_norm(..., training=True)``: computed by the
    compiler) followed by an affine instance norm (normalized by each
    sample's own statistics at run time)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.norm = torch.nn.InstanceNorm2d(4, affine=True)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.normal_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = F.batch_norm(self.conv.weight.reshape(1, 4, -1), None, None, training=True, eps=1e-6)
        y = F.conv2d(x, w.reshape_as(self.conv.weight), self.conv.bias, padding=1)
        return self.norm(torch.relu(y))


class SelectiveScan(torch.nn.Module):
    """Mamba's mixer in small (transformers' slow path): a projection, a
    causal depthwise 1-d convolution, step sizes by softplus, the state
    matrix -exp(A_log) (computed by the compiler) discretized by exp of
    activations, and the scan unrolled over the tokens."""

    def __init__(self, d: int = 8, inner: int = 8, state: int = 4, rank: int = 2) -> None:
        super().__init__()
        self.inner, self.state, self.rank = inner, state, rank
        self.in_proj = torch.nn.Linear(d, 2 * inner, bias=False)
        self.conv = torch.nn.Conv1d(inner, inner, 3, groups=inner, padding=2)
        self.x_proj = torch.nn.Linear(inner, rank + 2 * state, bias=False)
        self.dt_proj = torch.nn.Linear(rank, inner)
        self.A_log = torch.nn.Parameter(torch.log(torch.arange(1, state + 1, dtype=torch.float32)).repeat(inner, 1))
        self.D = torch.nn.Parameter(torch.randn(inner))
        self.out_proj = torch.nn.Linear(inner, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        h, gate = self.in_proj(x).transpose(1, 2).chunk(2, dim=1)
        h = F.silu(self.conv(h)[..., :length])
        dt, b, c = self.x_proj(h.transpose(1, 2)).split([self.rank, self.state, self.state], dim=-1)
        dt = F.softplus(self.dt_proj(dt)).transpose(1, 2)  # (1, inner, length)
        a = -torch.exp(self.A_log)
        da = torch.exp(a[None, :, None, :] * dt[:, :, :, None])  # (1, inner, length, state)
        dbu = dt[:, :, :, None] * b[:, None, :, :] * h[:, :, :, None]
        s = torch.zeros(1, self.inner, self.state)
        ys = []
        for i in range(length):
            s = da[:, :, i, :] * s + dbu[:, :, i, :]
            ys.append(torch.matmul(s, c[:, i, :].unsqueeze(-1))[:, :, 0])
        y = torch.stack(ys, dim=-1) + h * self.D[None, :, None]
        return self.out_proj((y * F.silu(gate)).transpose(1, 2))


class RunningSums(torch.nn.Module):
    """Mamba2's segment sums in small: running sums along the tokens (not
    the last dimension) and along the features, between projections."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.a(x)
        return self.b(torch.cumsum(h, dim=1) + torch.cumsum(torch.relu(h), dim=-1))


class SmoothActivations(torch.nn.Module):
    """YOLOv4's and CSPDarknet's Mish, x tanh(softplus(x)) after torch's
    decomposition, and a softplus of beta 2 (the ONNX exporter's
    Softplus(2 x) / 2)."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(8, 4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softplus(self.b(F.mish(self.a(x))), beta=2.0)


class UnevenNearest(torch.nn.Module):
    """GhostNetV2's DFC attention in small: a gate pooled by 2 from a 7 x 5
    map (to 3 x 2), resized back by nearest to 7 x 5; and a nearest
    resize by a factor of 2.5 (17 rows from 7: 0, 0, 0, 1, 1, 2, ...)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        gate = torch.sigmoid(F.avg_pool2d(y, 2, 2))
        y = y * F.interpolate(gate, size=y.shape[-2:], mode="nearest")
        return F.interpolate(y, scale_factor=2.5, mode="nearest", recompute_scale_factor=False)


class ExponentialActivations(torch.nn.Module):
    """PReLU per channel (ESPNet, SRGAN), ELU, SELU and CELU of alpha 2:
    torch decomposes them by run-time comparisons, Raptor by relu and exp."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.prelu = torch.nn.PReLU(4)
        torch.nn.init.uniform_(self.prelu.weight, -0.5, 0.5)
        self.b = torch.nn.Conv2d(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.prelu(self.a(x))
        return F.celu(self.b(F.elu(y, 0.7)), 2.0) + F.selu(y)


FAMILIES = {
    "exponential_activations": (ExponentialActivations, (1, 3, 6, 6)),
    "uneven_nearest": (UnevenNearest, (1, 3, 7, 5)),
    "smooth_activations": (SmoothActivations, (1, 3, 8, 8)),
    "running_sums": (RunningSums, (1, 6, 8)),
    "selective_scan": (SelectiveScan, (1, 5, 8)),
    "standardized_weights": (StandardizedWeights, (1, 3, 6, 6)),
    "token_maximum": (TokenMaximum, (1, 5, 8)),
    "flip": (Reversed, (1, 5, 8)),
    "block_attention": (BlockAttention, (1, 3, 4, 8)),
    "leaky_relu": (LeakyActivations, (1, 3, 5, 5)),
    "scaled_cosine_attention": (ScaledCosineAttention, (1, 6, 8)),
    "shifted_windows": (ShiftedWindows, (1, 6, 6, 4)),
    "global_response_norm": (GlobalResponseNorm, (1, 3, 5, 5)),
    "absolute": (Absolute, (1, 3, 3, 3)),
    "constant_bounds": (ConstantBounds, (1, 6, 8)),
    "activation_products": (ActivationProducts, (1, 6, 8)),
    "causal_mask": (CausalMask, (1, 6, 8)),
    "conv1d": (Conv1d, (1, 4, 24)),
    "weight_norm": (WeightNorm, (1, 8, 12)),
    "group_norm": (GroupNorm, (1, 3, 8, 8)),
    "bilinear": (Bilinear, (1, 3, 6, 6)),
    "bicubic": (Bicubic, (1, 3, 6, 6)),
    "l2_norm": (L2Norm, (1, 3, 6, 6)),
    "gather": (Gather, (1, 3, 4, 4)),
    "einsum": (Einsum, (1, 5, 8)),
    "select": (FusedProjections, (1, 5, 8)),
    "learned_latents": (LearnedLatents, (1, 6, 8)),
}


def _pt2_and_torch(model: torch.nn.Module, x: torch.Tensor, pt2: Path) -> np.ndarray:
    """Saves ``model`` exported on ``x`` as ``pt2``; returns eager torch's output."""
    torch.export.save(torch.export.export(model, (x,)), pt2)
    with torch.no_grad():
        return model(x).numpy()


def _save(tmp_path: Path, family: str) -> tuple[torch.nn.Module, Path, Path, np.ndarray]:
    """The family's model, its .pt2 and .onnx files and an input."""
    cls, shape = FAMILIES[family]
    # Seeded per family, not per module: the weights and input must not
    # depend on which tests ran before (the einsum family's int8 cosine
    # read 0.986 after another selection of tests had drawn from the
    # global generator).
    torch.manual_seed(zlib.crc32(family.encode()))
    model = cls().eval()
    x = torch.randn(shape)
    pt2, onnx_file = tmp_path / f"{family}.pt2", tmp_path / f"{family}.onnx"
    torch.export.save(torch.export.export(model, (x,)), pt2)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), onnx_file, dynamo=False, opset_version=17)
    return model, pt2, onnx_file, x.numpy()


def _output(program: pim.Program, x: np.ndarray) -> np.ndarray:
    (out,) = program.simulate(x).outputs.values()
    return out


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_runs_the_flow_against_torch_and_onnxruntime(tmp_path: Path, family: str) -> None:
    model, pt2, onnx_file, x = _save(tmp_path, family)
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    scale = float(np.abs(want).max())
    latency = _output(compile_source(pt2, tmp_path / "latency"), x)
    assert latency.shape == want.shape and np.abs(latency - want).max() <= 2e-6 * scale
    pipelined = _output(compile_source(pt2, tmp_path / "pipeline", pipeline=2), x)
    assert np.abs(pipelined - want).max() <= 2e-6 * scale
    session = sources.onnxruntime_session(str(onnx_file))
    (runtime,) = session.run(None, {session.get_inputs()[0].name: x})
    from_onnx = _output(compile_source(onnx_file, tmp_path / "onnx"), x)
    assert np.abs(from_onnx - runtime).max() <= 2e-6 * scale
    _check_int8(tmp_path, pt2, x, want)


def test_block_attention_of_a_batch_of_two_equals_torch(tmp_path: Path) -> None:
    """The fold keeps (batch, heads x blocks) apart: with a batch of 2 a
    mask broadcast over the batch and varying per block reads its block's
    rows in both samples."""
    torch.manual_seed(3)
    model = BlockAttention().eval()
    x = torch.randn(2, 3, 4, 8)
    want = _pt2_and_torch(model, x, tmp_path / "m.pt2")
    out = _output(compile_source(tmp_path / "m.pt2", tmp_path / "p"), x.numpy())
    assert out.shape == want.shape and np.abs(out - want).max() <= 2e-6 * float(np.abs(want).max())


class BroadcastMasks(torch.nn.Module):
    """Attention masks broadcast along one axis of the scores: per key
    (1, S), shared by every query, and per query (L, 1), shared by every
    key (softmax is unchanged by a row's constant, so the output equals
    unmasked attention: only a mask read at the wrong key would move it)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)
        self.shape = shape

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).view(1, 6, 3, 2, 4).permute(2, 0, 3, 1, 4)
        # a constant of the program (not a buffer): the attention keeps it
        # as its compile-time mask, which the PIM lowering folds in
        mask = torch.arange(6, dtype=torch.float32).reshape(self.shape) * 0.7 - 2.0
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@pytest.mark.parametrize("shape", [(1, 6), (6, 1)])
def test_an_attention_mask_broadcast_along_one_axis_equals_torch(tmp_path: Path, shape: tuple[int, int]) -> None:
    torch.manual_seed(4)
    model = BroadcastMasks(shape).eval()
    x = torch.randn(1, 6, 8)
    want = _pt2_and_torch(model, x, tmp_path / "m.pt2")
    out = _output(compile_source(tmp_path / "m.pt2", tmp_path / "p"), x.numpy())
    assert out.shape == want.shape and np.abs(out - want).max() <= 2e-6 * float(np.abs(want).max())


class BatchStatistics(torch.nn.Module):
    """``F.batch_norm(..., training=True)`` on activations of a batch of
    2: each channel normalized by its mean and variance over the batch and
    the positions together."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(x * 2.0, None, None, training=True, eps=1e-5)


def test_a_batch_norm_by_batch_statistics_spans_the_batch(tmp_path: Path) -> None:
    x = torch.randn(2, 3, 5) * torch.tensor([1.0, 3.0, 0.5]).reshape(1, 3, 1) + 1.0
    model = BatchStatistics().eval()
    want = _pt2_and_torch(model, x, tmp_path / "m.pt2")
    out = _output(compile_source(tmp_path / "m.pt2", tmp_path / "p"), x.numpy())
    assert out.shape == want.shape and np.abs(out - want).max() <= 2e-6 * float(np.abs(want).max())


class ValuesAndIndices(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        values, indices = x.max(1)
        return values + indices.float()


def test_a_maximum_whose_indices_are_read_stops_naming_it(tmp_path: Path) -> None:
    """Only a ``max(x, dim)`` of which the values alone are read becomes
    ``amax``; the indices have no lowering: one line naming the operator."""
    torch.export.save(torch.export.export(ValuesAndIndices(), (torch.randn(1, 5, 6),)), tmp_path / "m.pt2")
    with pytest.raises(Exception, match="aten.max.dim") as caught:
        compile_source(tmp_path / "m.pt2", tmp_path / "p")
    assert "\n" not in str(caught.value)


class SlidingWindows(torch.nn.Module):
    """HaloNet's overlapping blocks: ``Tensor.unfold`` along the rows and
    then the columns (windows of 4 every 3, of 3 every 2)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.unfold(2, 4, 3).unfold(3, 3, 2).reshape(1, 4, -1) * 2.0


class HeadsAsBatch(torch.nn.Module):
    """MViTv2's pooled attention: each head's map pooled by one depthwise
    convolution (stride 2) with the heads as the batch, then a 1 x 1
    convolution, still batched."""

    def __init__(self) -> None:
        super().__init__()
        self.pool = torch.nn.Conv2d(4, 4, 3, padding=1, stride=2, groups=4)
        self.mix = torch.nn.Conv2d(4, 6, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mix(self.pool(x.reshape(3, 4, 6, 6))).reshape(1, 3, 6, 3, 3)


class WeightSoftmax(torch.nn.Module):
    """ConViT's gated positional attention: softmaxes of a weight and a
    constant table (computed by the compiler), over the last dimension and
    over another, mixing the input."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(2, 5, 5))
        self.register_buffer("table", torch.randn(5, 5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (torch.softmax(self.w * 3.0 + self.table, dim=-1) + torch.softmax(self.w, dim=1)) @ x


@pytest.mark.parametrize("model, shape", [(SlidingWindows, (1, 4, 10, 6)), (HeadsAsBatch, (1, 3, 4, 6, 6)),
                                          (WeightSoftmax, (1, 2, 5, 4))])
def test_held_out_forms_equal_torch(tmp_path: Path, model: type, shape: tuple[int, ...]) -> None:
    """Forms that stopped timm's HaloNet (aten.unfold), MViTv2 (a
    convolution of a batch of 3) and ConViT (a softmax of weights at compile
    time), each against torch; the batched convolution at int8 too."""
    torch.manual_seed(5)
    m = model().eval()
    x = torch.randn(shape)
    want = _pt2_and_torch(m, x, tmp_path / "m.pt2")
    out = _output(compile_source(tmp_path / "m.pt2", tmp_path / "p"), x.numpy())
    assert out.shape == want.shape and np.abs(out - want).max() <= 2e-6 * float(np.abs(want).max())
    if model is HeadsAsBatch:
        _check_int8(tmp_path, tmp_path / "m.pt2", x.numpy(), want)


@pytest.mark.parametrize("kernel, stride, padding, dilation, groups", [
    (1, 1, 0, 1, 1), (3, 1, 1, 1, 1), (3, 2, 0, 1, 2), (2, 3, 1, 2, 1), (3, 1, 1, 1, 2)])
def test_a_convolution_of_constants_is_computed_by_the_compiler(tmp_path: Path, kernel: int, stride: int,
                                                                padding: int, dilation: int, groups: int) -> None:
    """The host convolution (passes/nn/ConstantEvaluator.cpp) against torch
    over strides, paddings, dilations and groups: the program adds the
    computed grid to a convolution of its input."""
    torch.manual_seed(0)
    model = ConstantConvolution(kernel, stride, padding, dilation, groups).eval()
    with torch.no_grad():
        shape = model.point(model.proj(model.grid)).shape
    x = torch.randn(shape)
    want = _pt2_and_torch(model, x, pt2 := tmp_path / "c.pt2")
    got = _output(compile_source(pt2, tmp_path / "p"), x.numpy())
    assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max())


def test_an_int8_convolution_of_constants_is_computed_by_the_compiler(tmp_path: Path) -> None:
    """At int8 the convolutions of the constant grid keep FP32 (the codec
    placement gives no INT8 variant to an operator the compiler computes):
    the program is integer-only and equals the integer reference bit for
    bit, the reference summing them in float64 as the compiler does."""
    torch.manual_seed(0)
    model = ConstantConvolution().eval()
    x = torch.randn(1, 3, 5, 4)
    want = _pt2_and_torch(model, x, pt2 := tmp_path / "c.pt2")
    _check_int8(tmp_path, pt2, x.numpy(), want)
    quantized = (tmp_path / "int8" / "reports" / "quantized_model.mlir").read_text()
    # The input's convolution alone is int8: its input and weight encoded, its sums decoded.
    assert quantized.count("nn.convolution") == 3
    assert quantized.count("codec.encode") == 2 and quantized.count("codec.decode") == 1


class InfiniteScores(torch.nn.Module):
    def forward(self, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        lifted = torch.max(y, torch.tensor(torch.finfo(y.dtype).min))
        return torch.softmax(lifted, -1), torch.min(y, torch.tensor(math.inf)), torch.max(y, torch.tensor(math.inf))


def test_a_bound_by_the_lowest_float_lifts_minus_infinity(tmp_path: Path) -> None:
    """torch.max(scores, finfo.min) is a clamp, not the scores: a row of -inf
    scores (every position masked) softmaxes to a uniform row, not NaN; a
    minimum by +inf is the tensor, a maximum by +inf is not. The imported
    graphs from .pt2 and ONNX against torch on such rows (nn-level
    reference: the PIM programs take finite inputs)."""
    from nn_reference import evaluate

    x = torch.tensor([[-math.inf, -math.inf, -math.inf, -math.inf], [0.5, -math.inf, 2.0, -1.0]])
    pt2, onnx_file = tmp_path / "s.pt2", tmp_path / "s.onnx"
    torch.export.save(torch.export.export(InfiniteScores(), (x,)), pt2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(InfiniteScores(), (x,), onnx_file, dynamo=False, opset_version=17)
    soft, same, lifted = (t.numpy() for t in InfiniteScores()(x))
    np.testing.assert_allclose(soft[0], 0.25)  # (the oracle itself: a uniform row)
    for source in (pt2, onnx_file):
        model = sources.load(str(source), strict=True, weights_as="arrays")
        got_soft, got_same, got_lifted = evaluate(model.module, [x.numpy()], model.tensors)
        np.testing.assert_allclose(got_soft, soft, rtol=1e-6)
        np.testing.assert_array_equal(got_same, same)
        np.testing.assert_array_equal(got_lifted, lifted)  # (+inf everywhere: not the tensor)


class WiderBound(torch.nn.Module):
    def forward(self, y: torch.Tensor) -> torch.Tensor:
        return torch.maximum(y, torch.full((3, 8), 0.1))  # (1, 8) against (3, 8): the result is wider


class VaryingBound(torch.nn.Module):
    def forward(self, y: torch.Tensor) -> torch.Tensor:
        return torch.maximum(y, torch.linspace(-1.0, 1.0, 8))  # a bound per column


@pytest.mark.parametrize("model", [WiderBound, VaryingBound])
def test_a_bound_that_is_not_one_value_over_the_tensor_is_not_a_clamp(tmp_path: Path, model: type) -> None:
    """A maximum with a constant that broadcasts the tensor (the result has
    the bound's shape), or of several values, is no clamp: it stays
    unlowered, named in one line, from .pt2 and from ONNX."""
    x = torch.randn(1, 8)
    pt2, onnx_file = tmp_path / "w.pt2", tmp_path / "w.onnx"
    torch.export.save(torch.export.export(model(), (x,)), pt2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model(), (x,), onnx_file, dynamo=False, opset_version=17)
    for source, name in ((pt2, "aten.maximum"), (onnx_file, "Max")):
        with pytest.raises(Exception, match=name) as caught:
            compile_source(source, tmp_path / source.suffix[1:])
        assert "\n" not in str(caught.value)


def _check_int8(tmp_path: Path, pt2: Path, x: np.ndarray, want: np.ndarray) -> None:
    """int8: the program computes what the integer reference does (exactly
    in integer arithmetic), and stays close to float32."""
    program = compile_source(pt2, tmp_path / "int8", precision="int8")
    integer = _output(program, x)
    module = sources.load(str(tmp_path / "int8" / "reports" / "quantized_model.mlir"), weights_as=None).module
    imported = sources.load(str(pt2), weights_as="arrays")
    (reference,) = quant.reference(module, {"x": x}, imported.tensors)
    # (bit for bit with float32 between the codecs too: a norm's sums are
    # added in the programs' order by the reference)
    assert np.array_equal(integer, reference)
    # Near float32 as a sanity bound (the exact check is the one above): on
    # these few outputs, where two quantized activations multiply, twelve
    # draws of weights and input per family gave cosines down to 0.966.
    cosine = float(integer.ravel() @ want.ravel() / (np.linalg.norm(integer) * np.linalg.norm(want)))
    assert cosine >= 0.95, cosine


@pytest.mark.parametrize("size, out, align_corners, scale", [
    (6, 12, False, 2.0), (6, 11, False, None), (5, 13, True, None), (7, 3, False, None), (4, 4, False, None),
    (1, 5, True, None), (6, 9, False, 1.5)])
def test_interpolation_matrix_is_torch_on_a_basis(size: int, out: int, align_corners: bool,
                                                  scale: float | None) -> None:
    # Brute force: torch resizing each unit vector gives the matrix's columns.
    basis = torch.eye(size).reshape(size, 1, 1, size)
    kw = {"scale_factor": (1.0, scale)} if scale else {"size": (1, out)}
    columns = F.interpolate(basis, mode="bilinear", align_corners=align_corners, **kw).reshape(size, out)
    mode = "align_corners" if align_corners else "half_pixel"
    np.testing.assert_allclose(interpolation_matrix(size, out, mode, scale), columns.numpy().T, atol=1e-6)
    bicubic = F.interpolate(basis, mode="bicubic", align_corners=align_corners, **kw).reshape(size, out)
    np.testing.assert_allclose(interpolation_matrix(size, out, mode, scale, cubic=-0.75), bicubic.numpy().T,
                               atol=1e-6)
    nearest = F.interpolate(basis, mode="nearest", **kw).reshape(size, out)
    np.testing.assert_array_equal(interpolation_matrix(size, out, "asymmetric", scale, linear=False),
                                  nearest.numpy().T)


@pytest.mark.parametrize("size, out", [(2, 7), (1, 6), (6, 4), (9, 5), (7, 3), (5, 5), (3, 1)])
def test_adaptive_pooling_matrix_is_torch_on_a_basis(size: int, out: int) -> None:
    basis = torch.eye(size).reshape(size, 1, 1, size)
    columns = F.adaptive_avg_pool2d(basis, (1, out)).reshape(size, out)
    np.testing.assert_allclose(adaptive_pooling_matrix(size, out), columns.numpy().T, atol=1e-7)


class AdaptivePooling(torch.nn.Module):
    """VGG's and AlexNet's head below 224 x 224: adaptive average pooling
    to sizes that do not divide the input, shrinking (6 x 9 -> 4 x 5) and
    growing (-> 7 x 7, windows that repeat elements), then a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 7 * 7, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.adaptive_avg_pool2d(F.adaptive_avg_pool2d(torch.relu(self.conv(x)), (4, 5)), (7, 7))
        return self.fc(y.flatten(1))


def test_adaptive_pooling_to_sizes_that_do_not_divide_runs_the_flow(tmp_path: Path) -> None:
    """(TorchScript's ONNX exporter refuses such pooling: .pt2 only.)"""
    torch.manual_seed(0)
    model = AdaptivePooling().eval()
    x = torch.randn(1, 3, 6, 9)
    want = _pt2_and_torch(model, x, pt2 := tmp_path / "pool.pt2")
    scale = float(np.abs(want).max())
    for out, options in (("latency", {}), ("pipeline", {"pipeline": 2})):
        got = _output(compile_source(pt2, tmp_path / out, **options), x.numpy())
        assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * scale, out
    _check_int8(tmp_path, pt2, x.numpy(), want)


def _resize_model(attributes: dict, scales: list[float] | None, sizes: list[int] | None) -> bytes:
    inputs = ["x", "", "scales" if scales else "", "sizes" if sizes else ""]
    initializers = []
    if scales:
        initializers.append(helper.make_tensor("scales", TensorProto.FLOAT, [4], scales))
    if sizes:
        initializers.append(helper.make_tensor("sizes", TensorProto.INT64, [4], sizes))
    graph = helper.make_graph([helper.make_node("Resize", inputs, ["y"], **attributes)], "resize",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8).SerializeToString()


@pytest.mark.parametrize("attributes, scales, sizes", [
    ({"mode": "linear"}, [1, 1, 2, 2], None),
    ({"mode": "linear", "coordinate_transformation_mode": "align_corners"}, None, [1, 2, 9, 7]),
    ({"mode": "linear", "coordinate_transformation_mode": "asymmetric"}, [1, 1, 1.5, 0.5], None),
    ({"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"}, None, [1, 2, 1, 10]),
    ({"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
     [1, 1, 2, 3], None),
    ({"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
     None, [1, 2, 7, 8]),
    # Cubic (timm's CrossViT resizes its image bicubically for its second
    # branch): edges read at the border, or left out and renormalized.
    ({"mode": "cubic", "cubic_coeff_a": -0.75}, None, [1, 2, 4, 11]),
    ({"mode": "cubic", "cubic_coeff_a": -0.5, "coordinate_transformation_mode": "align_corners"}, [1, 1, 2, 0.5],
     None),
    ({"mode": "cubic", "coordinate_transformation_mode": "asymmetric", "exclude_outside": 1}, None, [1, 2, 9, 4]),
    ({"mode": "cubic", "coordinate_transformation_mode": "pytorch_half_pixel", "exclude_outside": 1},
     [1, 1, 0.4, 1.7], None),
])
def test_onnx_resize_on_the_back_end_equals_onnxruntime(tmp_path: Path, attributes: dict,
                                                        scales: list[float] | None, sizes: list[int] | None) -> None:
    data = _resize_model(attributes, scales, sizes)
    path = tmp_path / "resize.onnx"
    path.write_bytes(data)
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 6)).astype(np.float32)
    session = sources.onnxruntime_session(data)
    (want,) = session.run(None, {"x": x})
    got = _output(compile_source(path, tmp_path / "out"), x)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("groups, channels, size", [(1, 64, 56), (2, 6, 41)])
def test_a_group_norm_over_many_elements_is_as_accurate_as_torchs(tmp_path: Path, groups: int, channels: int,
                                                                   size: int) -> None:
    """A group norm is a layer norm over C/G x H x W elements (PoolFormer's
    over 64 x 56 x 56 = 200,704); summed in order, as one dot product adds,
    its statistics lose about sqrt(n) ulps (2.6e-5 of the output). Summed
    pairwise, within a few times torch's own float32 error, against float64
    torch; the second case has an odd count (3 x 41 x 41) at every halving."""
    torch.manual_seed(0)
    model = torch.nn.GroupNorm(groups, channels, eps=1e-6).eval()
    x = torch.randn(1, channels, size, size) + 3.0
    torch.export.save(torch.export.export(model, (x,)), tmp_path / "m.pt2")
    program = compile_source(tmp_path / "m.pt2", tmp_path / "out")
    with torch.no_grad():
        exact = model.double()(x.double()).numpy()
    error = np.abs(_output(program, x.numpy()).reshape(exact.shape) - exact).max() / np.abs(exact).max()
    assert error < 5e-7, error


def test_onnx_instance_norm_on_the_back_end_equals_onnxruntime(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.InstanceNorm2d(4, affine=True)).eval()
    torch.nn.init.uniform_(model[1].weight, 0.5, 1.5)
    x = torch.randn(1, 3, 9, 9)
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17)
    assert "InstanceNormalization" in {n.op_type for n in onnx.load_from_string(buffer.getvalue()).graph.node}
    path = tmp_path / "instance.onnx"
    path.write_bytes(buffer.getvalue())
    session = sources.onnxruntime_session(buffer.getvalue())
    (want,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    got = _output(compile_source(path, tmp_path / "out"), x.numpy())
    np.testing.assert_allclose(got, want, atol=2e-5)


def test_products_by_weights_take_crossbars_and_int8(tmp_path: Path) -> None:
    """einsum and @ by a parameter become linear layers: crossbars hold the
    weights, and policy Y (linear layers) quantizes them."""
    _, pt2, _, _ = _save(tmp_path, "einsum")
    program = compile_source(pt2, tmp_path / "int8", precision="int8", policy="Y")
    crossbars = sum(g["crossbars"] for c in program.manifest["cores"] for g in c["groups"])
    assert crossbars >= 2 and program.manifest["quantization"]


def test_imported_families_keep_no_generic_operator(tmp_path: Path) -> None:
    for family in FAMILIES:
        _, pt2, onnx_file, _ = _save(tmp_path, family)
        for path in (pt2, onnx_file):
            model = sources.load(str(path), weights_as="arrays")
            assert not model.report.generic, (path, model.report.generic)
            assert set(model.tensors) == set(weights_io.param_names(model.module))


@pytest.mark.parametrize("picks, runs", [([0, 1, 2, 5, 4, 4], [(0, 3), (5, 6), (4, 5), (4, 5)]),
                                         ([3], [(3, 4)]), ([2, 3, 0, 1], [(2, 4), (0, 2)])])
def test_a_gather_is_the_slices_of_its_runs(picks: list[int], runs: list[tuple[int, int]]) -> None:
    assert index_runs(picks) == runs
    assert [i for start, end in runs for i in range(start, end)] == picks


@pytest.mark.parametrize("slope", [0.01, 0.2, 1.5, -0.3])
def test_leaky_relu_decomposes_to_the_bit(slope: float) -> None:
    """relu(x) - slope relu(-x) equals torch's leaky_relu bit for bit, on
    values of every sign and scale (and 0)."""
    from raptor.frontend._decompositions import _leaky_relu

    x = torch.cat([torch.randn(1000) * 10.0 ** torch.randint(-6, 6, (1000,)), torch.tensor([0.0, -0.0])])
    assert torch.equal(_leaky_relu(x, slope), torch.nn.functional.leaky_relu(x, slope))


@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 20.0), (0.5, 15.0)])
def test_softplus_decomposes_within_float_rounding(beta: float, threshold: float) -> None:
    """relu(b x) + log1p(exp(-|b x|)) over b is torch's softplus on values of
    every sign and scale, across its threshold (where torch returns x)."""
    from raptor.frontend._decompositions import _softplus

    x = torch.cat([torch.randn(1000) * 10.0 ** torch.randint(-6, 4, (1000,)),
                   torch.tensor([0.0, -100.0, 100.0, threshold / beta, threshold / beta * 1.001])])
    want = torch.nn.functional.softplus(x.double(), beta, threshold)
    torch.testing.assert_close(_softplus(x, beta, threshold).double(), want, rtol=2e-7, atol=1e-30)


def test_a_softplus_of_a_low_threshold_keeps_torchs_decomposition() -> None:
    """Below a threshold of 15 torch's linear branch differs from the
    formula by more than float32 rounding (0.0134 at beta 0.5, threshold 5):
    not decomposed (torch's where on a gt then stops at import, naming it)."""
    from raptor.frontend._decompositions import _softplus

    assert _softplus(torch.ones(3), 0.5, 5.0) is NotImplemented
    assert _softplus(torch.ones(3), 1.0, 14.9) is NotImplemented


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_running_sum_matrix_is_numpys_cumsum(exclusive: bool, reverse: bool) -> None:
    from raptor.frontend._decompositions import running_sum_matrix

    x = np.random.default_rng(3).standard_normal((4, 7))
    want = np.cumsum(x[:, ::-1] if reverse else x, axis=1)
    if exclusive:
        want = np.concatenate([np.zeros((4, 1)), want[:, :-1]], axis=1)
    want = want[:, ::-1] if reverse else want
    np.testing.assert_allclose(x @ running_sum_matrix(7, exclusive, reverse).T, want, atol=1e-12)


@pytest.mark.parametrize("exclusive, reverse, axis", [(0, 0, 1), (1, 0, -1), (0, 1, 0), (1, 1, 2)])
def test_onnx_cumsum_equals_onnxruntime(tmp_path: Path, exclusive: int, reverse: int, axis: int) -> None:
    """ONNX CumSum's attributes on the back end, against onnxruntime."""
    node = helper.make_node("CumSum", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)
    graph = helper.make_graph([node], "cumsum", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 5])],
                              [helper.make_tensor("axis", TensorProto.INT64, [], [axis])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10  # what onnxruntime reads
    path = tmp_path / "cumsum.onnx"
    path.write_bytes(model.SerializeToString())
    x = np.random.default_rng(axis + 2 * reverse + 4 * exclusive).standard_normal((2, 3, 5)).astype(np.float32)
    session = sources.onnxruntime_session(str(path))
    (want,) = session.run(None, {"x": x})
    got = _output(compile_source(path, tmp_path / "out"), x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _scatter_model(shape: list[int], indices: np.ndarray, updates_shape: list[int], **attributes) -> bytes:
    node = helper.make_node("ScatterND", ["x", "idx", "u"], ["y"], **attributes)
    graph = helper.make_graph([node], "scatter", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
                                                  helper.make_tensor_value_info("u", TensorProto.FLOAT, updates_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
                              [helper.make_tensor("idx", TensorProto.INT64, list(indices.shape),
                                                  indices.reshape(-1).tolist())])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10
    return model.SerializeToString()


@pytest.mark.parametrize("shape, indices", [
    ([2, 3, 4], np.array([[0, 1, 2], [1, 2, 3], [1, 0, 0]])),   # elements
    ([2, 3, 4], np.array([[[1, 2]], [[0, -1]]])),                # rows of 4, a negative index
    ([4, 5], np.array([[3], [0]])),                              # whole rows, out of order
])
def test_onnx_scatter_nd_at_constant_indices_equals_onnxruntime(tmp_path: Path, shape: list[int],
                                                                indices: np.ndarray) -> None:
    """Longformer's diagonal writes: ScatterND at constant indices as a
    gather from data and updates laid end to end, against onnxruntime."""
    k = indices.shape[-1]
    updates_shape = list(indices.shape[:-1]) + shape[k:]
    data = _scatter_model(shape, indices, updates_shape)
    path = tmp_path / "scatter.onnx"
    path.write_bytes(data)
    rng = np.random.default_rng(k)
    x = rng.standard_normal(shape).astype(np.float32)
    u = rng.standard_normal(updates_shape).astype(np.float32)
    session = sources.onnxruntime_session(data)
    (want,) = session.run(None, {"x": x, "u": u})
    model = sources.load(str(path), strict=True)
    pim.compile(model.module, tmp_path / "out", weights=model.weights)
    (got,) = pim.Program.load(tmp_path / "out").simulate({"x": x, "u": u}).outputs.values()
    assert not np.array_equal(want, x)
    np.testing.assert_array_equal(got, want)


def test_scatter_sources_is_the_specifications_loop() -> None:
    """Against ONNX's reference loop (a later write of one place wins)."""
    from raptor.frontend.onnx.rules.views import scatter_sources

    shape, indices = [3, 4], np.array([[2, 1], [0, 3], [2, 1]])
    line = np.arange(12 + 3)
    want = line[:12].reshape(shape).copy()
    for j, idx in enumerate(indices):
        want[tuple(idx)] = line[12 + j]
    assert scatter_sources(shape, indices) == want.reshape(-1).tolist()


@pytest.mark.parametrize("attributes, indices_input, match", [({"reduction": "add"}, True, "reduction"),
                                                             ({}, False, "computed indices")])
def test_onnx_scatter_nd_refusals_name_the_node(tmp_path: Path, attributes: dict, indices_input: bool,
                                                 match: str) -> None:
    data = _scatter_model([2, 3], np.array([[1]]), [1, 3], **attributes)
    model = onnx.load_from_string(data)
    if not indices_input:  # the indices become a graph input
        model.graph.initializer.pop()
        model.graph.input.append(helper.make_tensor_value_info("idx", TensorProto.INT64, [1, 1]))
    path = tmp_path / "scatter.onnx"
    path.write_bytes(model.SerializeToString())
    from raptor._io import UserError

    with pytest.raises(UserError, match=rf"scatter.onnx: ONNX operators without an nn op: ScatterND \(1: a ScatterND "
                                        rf"(with a|at) {match}\)"):
        sources.load(str(path), strict=True)


def test_nearest_indices_are_torchs() -> None:
    """Against torch's 2-d nearest resize of the positions themselves: every
    size up to 16 to every output up to 40, and 12 scale factors (2.0 and
    2.1 among them: the kernel's shortcut at twice the size)."""
    from raptor.frontend._decompositions import nearest_indices

    for size in range(1, 17):
        positions = torch.arange(size, dtype=torch.float32).view(1, 1, size, 1)
        for out in range(1, 41):
            want = F.interpolate(positions, size=(out, 1), mode="nearest").view(-1).long().tolist()
            assert nearest_indices(size, out).tolist() == want, (size, out)
        for scale in (0.3, 0.45, 0.5, 0.7, 1.3, 1.5, 2.0, 2.1, 2.5, 3.0, 3.1, 4.0):
            if math.floor(size * scale) < 1:
                continue
            want = F.interpolate(positions, scale_factor=(scale, 1.0), mode="nearest",
                                 recompute_scale_factor=False).view(-1).long().tolist()
            assert nearest_indices(size, len(want), scale).tolist() == want, (size, scale)


def test_whole_repeats_stay_an_upsampling_view(tmp_path: Path) -> None:
    """Only a nearest resize that is not each element repeated becomes
    selections: by 2 (and 2.1 on 7 rows, 14 = twice, which torch's kernel
    takes as a repeat) stays nn.upsample_nearest2d; by 2.5 becomes none."""
    class Resize(torch.nn.Module):
        def __init__(self, scale: float) -> None:
            super().__init__()
            self.scale = scale

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.interpolate(x, scale_factor=self.scale, mode="nearest", recompute_scale_factor=False)

    for scale, kept in ((2.0, True), (2.1, True), (2.5, False)):
        pt2 = tmp_path / f"r{scale}.pt2"
        torch.export.save(torch.export.export(Resize(scale), (torch.randn(1, 2, 7, 7),)), pt2)
        text = str(sources.load(str(pt2), strict=True, weights_as=None).module)
        assert ("nn.upsample_nearest2d" in text) == kept, scale


class RelativePositionMlp(torch.nn.Module):
    """timm's RelPosMlp in small (vit_relpos, Swin V2): an MLP of weights
    over a constant table of relative coordinates, gathered by a constant
    index into a (heads, L, L) bias of attention."""

    def __init__(self, length: int = 12, heads: int = 2, dim: int = 8) -> None:
        super().__init__()
        offsets = torch.arange(length)
        relative = offsets[:, None] - offsets[None, :] + length - 1  # 0 .. 2L - 2
        self.register_buffer("index", relative.reshape(-1), persistent=False)
        coords = torch.arange(-(length - 1), length, dtype=torch.float32)[:, None]
        self.register_buffer("coords", torch.sign(coords) * torch.log1p(coords.abs()), persistent=False)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.ReLU(), torch.nn.Linear(16, heads))
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.heads, self.length = heads, length

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        bias = self.mlp(self.coords)[self.index].view(n, n, self.heads).permute(2, 0, 1)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias.unsqueeze(0)).transpose(1, 2).reshape(b, n, c)


def test_a_gather_of_a_computed_table_stays_one_operator(tmp_path: Path) -> None:
    """The bias table the compiler computes (an MLP of weights over a
    constant table), gathered by a constant index: one nn.index the
    compiler computes, not a slice per pick (timm's vit_relpos_small made
    38,416 slices per layer: 461,028 ops, an 81 s import, a 264 s int8
    compile). Against torch, and at int8 against the integer reference."""
    torch.manual_seed(11)
    model = RelativePositionMlp().eval()
    x = torch.randn(1, 12, 8)
    want = _pt2_and_torch(model, x, tmp_path / "m.pt2")
    counts = raptor.graph_summary(sources.load(str(tmp_path / "m.pt2"), strict=True,
                                               weights_as=None).module)["functions"][0]["op_counts"]
    assert counts.get("nn.index") == 1 and counts.get("nn.slice", 0) < 10, counts
    out = _output(compile_source(tmp_path / "m.pt2", tmp_path / "p"), x.numpy())
    assert np.abs(out - want).max() <= 2e-6 * float(np.abs(want).max())
    _check_int8(tmp_path, tmp_path / "m.pt2", x.numpy(), want)
