"""Reads a placed module back into an explicit edge list for the codec
placement property tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir



@dataclass
class Graph:
    """A function body as nodes (0..args-1 are arguments, then ops) and edges."""

    kinds: list[str] = field(default_factory=list)
    edges: list[tuple[int, int]] = field(default_factory=list)
    colours: list[int] = field(default_factory=list)
    types: list[tuple[str, str]] = field(default_factory=list)
    dominators: dict[int, list[int]] = field(default_factory=dict)

    def topological(self) -> range:
        return range(len(self.kinds))  # block order is topological


def _sem(attr: ir.Attribute) -> tuple[int, str, str]:
    text = str(attr)  # #codec.sem<7 : f32 -> i8>
    inner = text[text.index("<") + 1:text.rindex(">")]
    ident, types = inner.split(":", 1)
    source, target = (t.strip() for t in types.split("->"))
    return int(ident), source, target


def read_graph(module: ir.Module) -> Graph:
    """The placed graph with each edge's semantics (read from the markers)."""
    func = module.body.operations[0]
    block = func.regions[0].blocks[0]
    g = Graph()
    g.kinds.extend("arg" for _ in block.arguments)
    arg_attrs = func.attributes["arg_attrs"] if "arg_attrs" in func.attributes else None
    if arg_attrs is not None:
        for i, d in enumerate(arg_attrs):
            d = ir.DictAttr(d)
            if "codec.dominator_of" in d:
                g.dominators[i] = list(ir.DenseI64ArrayAttr(d["codec.dominator_of"]))
    ops = list(block.operations)
    owners = {}
    for k, op in enumerate(ops):
        g.kinds.append(op.name)
        owners[op.operation] = len(block.arguments) + k
    for k, op in enumerate(ops):
        head = len(block.arguments) + k
        if "codec.dominator_of" in op.attributes:
            g.dominators[head] = list(ir.DenseI64ArrayAttr(op.attributes["codec.dominator_of"]))
        for operand in op.operands:
            if not isinstance(operand.type, ir.RankedTensorType):
                continue
            owner = operand.owner
            if isinstance(owner, ir.Block):
                tail = ir.BlockArgument(operand).arg_number
            else:
                tail = owners[owner]
            sem = None
            if op.name.startswith("codec.mark"):
                sem = _sem(op.attributes["edge_in"])
            tail_op = None if tail < len(block.arguments) else ops[tail - len(block.arguments)]
            if tail_op is not None and tail_op.name.startswith("codec.mark"):
                tail_sem = _sem(tail_op.attributes["edge_out"])
                assert sem is None or sem == tail_sem, "markers disagree on an edge"
                sem = tail_sem
            assert sem is not None, f"edge into {op.name} has no marker"
            g.edges.append((tail, head))
            g.colours.append(sem[0])
            g.types.append((sem[1], sem[2]))
    return g
