"""Hand-made mutants of raptor.zoo, third round (docs/mutation.md): the
operators the decomposition table keeps whole because Raptor has an ``nn``
op for each (raptor.zoo._export's documented list), seen in the graph a
tiny exported module decomposes into."""

from __future__ import annotations

import torch

from raptor.zoo import decomposition_table

aten = torch.ops.aten


class Kept(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.fc(x))
        y = torch.nn.functional.silu(y) + torch.nn.functional.gelu(y)
        up = torch.nn.functional.interpolate(y.reshape(1, 1, 2, 8), scale_factor=2, mode="nearest")
        return up.sum() + torch.nn.functional.rms_norm(y, [8]).sum()


def test_operators_raptor_lowers_stay_whole() -> None:
    with torch.no_grad():
        ep = torch.export.export(Kept().eval(), (torch.randn(2, 8),), strict=False)
        ep = ep.run_decompositions(decomposition_table())
    targets = {n.target for n in ep.graph.nodes if n.op == "call_function"}
    for op in (aten.linear.default, aten.layer_norm.default, aten.silu.default, aten.gelu.default,
               aten.rms_norm.default):
        assert op in targets, op
    assert any(getattr(t, "overloadpacket", None) is aten.upsample_nearest2d for t in targets)
    table = decomposition_table()
    for packet in (aten.silu, aten.gelu, aten.linear, aten.layer_norm, aten.scaled_dot_product_attention,
                   aten.rms_norm):
        assert not any(getattr(packet, o) in table for o in packet.overloads()), packet
    # Nearest upsampling: only Raptor's own rule, which keeps whole repeats
    # (the one above stays) and selects the rows of any other resize.
    from raptor.frontend._decompositions import DECOMPOSITIONS

    nearest = [getattr(aten.upsample_nearest2d, o) for o in aten.upsample_nearest2d.overloads()]
    assert [o for o in nearest if o in table] == [aten.upsample_nearest2d.vec]
    assert table[aten.upsample_nearest2d.vec] is DECOMPOSITIONS[aten.upsample_nearest2d.vec]
