"""Mixture-of-experts layers made exportable for a crossbar chip.

A routed mixture of experts (Mixtral, Qwen-MoE, OLMoE, ...) sends each token
to the ``k`` experts its router scores highest. transformers computes only
those experts, through sorting, histograms and a grouped matrix product whose
shapes depend on the routing (``transformers.grouped_mm_fallback``): nothing
a chip with its weights resident in crossbars can run. Every expert's weights
are on the chip anyway, so :func:`dense_experts` rewrites the layers, before
``torch.export``, to compute every expert for every token and weigh each by
its routing weight, zero for the experts a token is not routed to:

- the up (or gate-and-up) projections of all experts are one linear layer
  (their matrices stacked), the down projections one more (their matrices
  side by side, reading each expert's gated activations times the token's
  weight for it); the same result as the routed sum, to float rounding;
- ``torch.topk`` inside the layer (the router's choice of experts) is
  computed without comparisons, which the ISA lacks: the k largest by
  repeated row maxima, the first position where ``max - x`` is zero
  (``1 - min(relu(max - x) * 2**126, 1)``; of equal values the first, by an
  exclusive running sum) taken out of the row by subtracting more than the
  row's range. Indices come out as float32 (the
  layer's own experts read them as floats).

The rewritten model is exported and compiled as any other; it needs
``transformers`` only for the layers it rewrites.
"""

from __future__ import annotations

import types
from typing import Any

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

__all__ = ["dense_experts", "topk_without_comparisons"]

#: ``relu(d) * 2**126`` is at least 1 for any normal float32 ``d > 0`` (and
#: infinite for large ``d``): after ``min(., 1)`` an exact step function.
_STEP_SCALE = 2.0 ** 126


def _is_zero(d: torch.Tensor) -> torch.Tensor:
    """1 where ``d`` (never negative) is zero, else 0, without comparisons."""
    return 1 - torch.clamp(torch.relu(d) * _STEP_SCALE, max=1.0)


def topk_without_comparisons(x: torch.Tensor, k: int, dim: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``k`` largest values of ``x`` along ``dim``, largest first, and
    their positions as float32, from maxima, subtractions and ``relu`` only.

    Equal to ``torch.topk`` (positions as floats), but that of equal values
    the one at the lower position comes first (torch leaves their order
    unspecified).
    """
    dim = dim % x.dim()
    positions = torch.arange(x.shape[dim], dtype=x.dtype).reshape([-1] + [1] * (x.dim() - 1 - dim))
    # Subtracting more than the row's range puts a taken value below every other.
    top, bottom = torch.amax(x, dim, keepdim=True), -torch.amax(-x, dim, keepdim=True)
    out_of_row = 2 * (top - bottom) + 1
    rest, values, indices = x, [], []
    for _ in range(k):
        largest = torch.amax(rest, dim, keepdim=True)
        hit = _is_zero(largest - rest)
        # The first hit: no hit before it (the running sums are whole numbers).
        first = hit * (1 - torch.clamp(torch.cumsum(hit, dim) - hit, max=1.0))
        values.append(largest)
        indices.append(torch.sum(first * positions, dim, keepdim=True))
        rest = rest - first * out_of_row
    return torch.cat(values, dim), torch.cat(indices, dim)


#: Operators that read positions as indices, which the chosen experts'
#: float positions cannot be.
_BY_INDEX = {torch.gather, torch.Tensor.gather, torch.scatter, torch.Tensor.scatter, torch.Tensor.scatter_,
             torch.scatter_add, torch.Tensor.scatter_add, torch.Tensor.scatter_add_, torch.index_select,
             torch.Tensor.index_select}


class _ComparisonFreeTopk(TorchFunctionMode):
    """``torch.topk`` (function or method) as :func:`topk_without_comparisons`;
    an indexing by float positions refused with a message."""

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if func in _BY_INDEX and any(isinstance(a, torch.Tensor) and a.is_floating_point()
                                     for a in (*args[2:3], kwargs.get("index"))):
            raise NotImplementedError(f"dense_experts: the router indexes by the chosen experts' positions "
                                      f"({func.__name__}), which this rewrite does not cover")
        if func in (torch.topk, torch.Tensor.topk):
            x, k = args[0], args[1] if len(args) > 1 else kwargs["k"]
            dim = args[2] if len(args) > 2 else kwargs.get("dim", -1)
            if not kwargs.get("largest", True) or (len(args) > 3 and not args[3]):
                raise NotImplementedError("dense_experts: torch.topk(largest=False) in a mixture-of-experts layer")
            return topk_without_comparisons(x, int(k), dim)
        return func(*args, **kwargs)


def _dense_forward(self: torch.nn.Module, hidden_states: torch.Tensor, top_k_index: torch.Tensor,
                   top_k_weights: torch.Tensor) -> torch.Tensor:
    """Every expert on every token, weighed by the token's routing weight
    for it (zero when not routed): two linear layers over all experts."""
    experts = self.num_experts
    # Each token's weight per expert: sum over its k choices of the weight
    # times (position == expert), the equality as relu(1 - |position - e|)
    # (positions are whole numbers).
    distance = top_k_index.to(hidden_states.dtype).unsqueeze(-1) - torch.arange(experts, dtype=hidden_states.dtype)
    chosen = torch.relu(1 - torch.relu(distance) - torch.relu(-distance))
    weight = torch.sum(chosen * top_k_weights.to(hidden_states.dtype).unsqueeze(-1), dim=-2)  # (tokens, experts)
    up = self.gate_up_proj if self.has_gate else self.up_proj
    up = up.transpose(1, 2) if self.is_transposed else up  # (experts, out, in)
    per_expert = up.shape[1]
    up_bias = (self.gate_up_proj_bias if self.has_gate else self.up_proj_bias) if self.has_bias else None
    projected = F.linear(hidden_states, up.reshape(experts * per_expert, -1),
                         None if up_bias is None else up_bias.reshape(-1))
    gated = []
    for e in range(experts):
        part = projected[..., e * per_expert:(e + 1) * per_expert]
        part = self._apply_gate(part) if self.has_gate else self.act_fn(part)
        gated.append(part * weight[..., e:e + 1])
    down = self.down_proj.transpose(1, 2) if self.is_transposed else self.down_proj  # (experts, hidden, inner)
    out = F.linear(torch.cat(gated, dim=-1), down.permute(1, 0, 2).reshape(down.shape[1], -1))
    if self.has_bias:
        out = out + torch.sum(weight.unsqueeze(-1) * self.down_proj_bias, dim=-2)
    return out.to(hidden_states.dtype)


def _under_comparison_free_topk(forward: Any) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with _ComparisonFreeTopk():
            return forward(*args, **kwargs)
    return wrapped


def _is_routed_experts(module: torch.nn.Module) -> bool:
    """A transformers experts layer (``use_experts_implementation``)."""
    return (hasattr(module, "num_experts") and hasattr(module, "down_proj") and hasattr(module, "has_gate")
            and hasattr(module, "is_transposed") and isinstance(getattr(module, "down_proj"), torch.Tensor))


def dense_experts(model: torch.nn.Module) -> torch.nn.Module:
    """Rewrite ``model``'s mixture-of-experts layers (in place) to compute
    every expert densely and choose experts without comparisons; return it.

    Raises ``ValueError`` when the model has no such layer, or one this
    rewrite does not cover (a norm after each expert); running the model
    raises ``NotImplementedError`` where its router does what the rewrite
    does not cover (``torch.topk(largest=False)``, indexing by the chosen
    positions as DeepSeek-V3-style group routing does).
    """
    found = 0
    for name, module in model.named_modules():
        if not _is_routed_experts(module):
            continue
        if getattr(module, "has_post_expert_norm", False):
            raise ValueError(f"dense_experts: the experts of '{name}' apply a norm after each expert, "
                             "which this rewrite does not cover")
        module.forward = types.MethodType(_dense_forward, module)
        # The layer holding the experts (and its router) chooses without
        # comparisons: the model itself when it is that layer.
        parent = model.get_submodule(name.rpartition(".")[0])
        if not getattr(parent, "_raptor_dense", False):
            parent.forward = _under_comparison_free_topk(parent.forward)
            parent._raptor_dense = True
        found += 1
    if not found:
        raise ValueError("dense_experts: the model has no transformers mixture-of-experts layer "
                         "(a module with num_experts, down_proj and the experts interface's flags)")
    return model
