"""Codec placement (shared seed 000) from Python.

The algorithms are Raptor's C++ passes; this module runs them through the
pass manager and reads the cost model through the binding::

    from raptor import codec, zoo
    module = zoo.load_graph("unet")
    codec.place(module, policy="W", placement="nonlocal-coalesced")
    print(codec.costs(module))            # storage / traffic / codec items
    codec.materialize(module)             # encode/decode/observe ops
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir, passmanager

from .. import _raptor

__all__ = ["PAPER_CONVENTIONS", "POLICIES", "PLACEMENTS", "Costs", "apply_paper_conventions", "costs",
           "expand_requantizers", "materialize", "place", "seed_table"]

#: The compression policies and placements (the C++ passes' vocabulary).
POLICIES: tuple[str, ...] = tuple(name for name, _ in _raptor.vocabulary("policy"))
PLACEMENTS: tuple[str, ...] = tuple(name for name, _ in _raptor.vocabulary("placement"))


@dataclass(frozen=True)
class Costs:
    """The seed's cost model for one function (bytes and items)."""

    function: str
    storage_bytes: int
    traffic_bytes: int
    operator_traffic_bytes: int
    codec_traffic_bytes: int
    codec_items: int
    encoders: int
    decoders: int
    requantizers: int
    subgraphs: int
    encoded_subgraphs: int
    markers: int

    MIB = 1024 * 1024

    @property
    def storage_mib(self) -> float:
        return self.storage_bytes / self.MIB

    @property
    def traffic_mib(self) -> float:
        return self.traffic_bytes / self.MIB

    @property
    def codec_items_m(self) -> float:
        return self.codec_items / 1e6

    def as_dict(self) -> dict[str, float | int | str]:
        """All fields plus the MiB / M figures, for JSON reports."""
        data: dict[str, float | int | str] = dict(self.__dict__)
        data.update(storage_mib=self.storage_mib, traffic_mib=self.traffic_mib,
                    codec_items_m=self.codec_items_m)
        return data


def _run(module: ir.Module, pipeline: str) -> None:
    with module.context:
        passmanager.PassManager.parse(f"builtin.module({pipeline})").run(module.operation)


def place(module: ir.Module, policy: str = "W", placement: str = "nonlocal-coalesced",
          table: str | None = None) -> None:
    """Places codec markers with their semantics, subgraphs and dominators.

    The module keeps its markers (for :func:`costs`); :func:`materialize`
    turns them into codec ops. Raises ``ValueError`` for an unknown policy or
    placement, and ``raptor._raptor.PassError`` for a bad table or graph.
    """
    if policy not in POLICIES:  # ("function" is a pass option, not a policy)
        raise ValueError(f"unknown policy '{policy}' (expected one of {', '.join(POLICIES)})")
    with module.context:
        _raptor.place_codecs(module, policy, placement, str(table) if table else "", False)


def materialize(module: ir.Module) -> None:
    """Replaces the markers by ``codec.encode``/``decode``/``requantize``/``observe`` ops."""
    with module.context:
        _raptor.materialize_codecs(module)


#: The passes that give an imported graph the codec-placement paper's
#: conventions (docs/codec.md, "Graph conventions").
PAPER_CONVENTIONS: tuple[str, ...] = (
    "raptor-materialize-padding", "raptor-unfuse-fan-out", "raptor-pack-rotary-heads",
    "raptor-insert-fan-out")


def apply_paper_conventions(module: ir.Module) -> None:
    """Rewrites ``module`` (an ``nn`` graph, in place) into the paper's graph
    conventions: padding as ``nn.constant_pad_nd`` before padded convolutions
    and max-pools, KV-head fan-outs unfused into view/expand/clone/view,
    rotary embeddings on the projections before their head split, and an
    explicit ``nn.fan_out`` after every feature read by several operands.
    The values computed are unchanged; the paper's Tables 2-4 count these
    operators' reads and codecs."""
    _run(module, ",".join(PAPER_CONVENTIONS))


def expand_requantizers(module: ir.Module) -> None:
    """Applies each ``codec.requantize`` as a ``codec.decode`` and a ``codec.encode``
    (for targets without a code-to-code conversion, as the PIM back end)."""
    with module.context:
        _raptor.expand_requantizers(module)


def costs(module: ir.Module) -> list[Costs]:
    """The cost model of each function of a placed (not yet materialized) module."""
    return [Costs(**{k: v for k, v in c.items() if k in Costs.__dataclass_fields__})
            for c in _raptor.codec_costs(module)]


def seed_table() -> str:
    """The seed's Table 5 in the commutation-table format (docs/codec.md)."""
    return _raptor.seed_commutation_table()
