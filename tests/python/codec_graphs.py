"""Random nn graphs for the codec placement property tests, and a reader
that turns a placed module back into an explicit edge list."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from mlir import ir

T4 = "tensor<4xf32>"


def random_graph(seed: int, num_ops: int) -> str:
    """A random DAG of nn ops over tensor<4xf32> values, as MLIR text.

    Mixes operators with non-trivial port blocks (view, clone, permute,
    cat + split_with_sizes/slice), operators with trivial ones (relu, add,
    mul) and max_pool2d's two results, with fan-out and parallel edges.
    """
    rng = random.Random(seed)
    lines: list[str] = []
    values = ["%a0", "%a1"]
    counter = 0

    def fresh() -> str:
        nonlocal counter
        counter += 1
        return f"%v{counter}"

    for _ in range(num_ops):
        kind = rng.choice(["view", "clone", "relu", "add", "mul", "cat_split",
                           "cat_slice", "permute", "pool"])
        a, b = rng.choice(values), rng.choice(values)
        out = fresh()
        if kind == "view":
            lines.append(f"{out} = nn.view {a} {{size = array<i64: 4>}} : ({T4}) -> {T4}")
        elif kind in ("clone", "relu"):
            lines.append(f"{out} = nn.{kind} {a} : {T4}")
        elif kind in ("add", "mul"):
            lines.append(f"{out} = nn.{kind} {a}, {b} : ({T4}, {T4}) -> {T4}")
        elif kind == "permute":
            lines.append(f"{out} = nn.permute {a} {{dims = array<i64: 0>}} : ({T4}) -> {T4}")
        elif kind == "cat_split":
            cat = fresh()
            lines.append(f"{cat} = nn.cat {a}, {b} : ({T4}, {T4}) -> tensor<8xf32>")
            lines.append(f"{out}:2 = nn.split_with_sizes {cat} {{split_sizes = array<i64: 4, 4>}}"
                         f" : (tensor<8xf32>) -> ({T4}, {T4})")
            values.append(f"{out}#1")
            out = f"{out}#0"
        elif kind == "cat_slice":
            cat = fresh()
            lines.append(f"{cat} = nn.cat {a}, {b} : ({T4}, {T4}) -> tensor<8xf32>")
            lines.append(f"{out} = nn.slice {cat} {{start = 2 : i64, end = 6 : i64}}"
                         f" : (tensor<8xf32>) -> {T4}")
        else:
            # 2-d pooling over a 1x1x2x2 view; sometimes its indices are used.
            img, ind = fresh(), fresh()
            lines.append(f"{img} = nn.view {a} {{size = array<i64: 1, 1, 2, 2>}}"
                         f" : ({T4}) -> tensor<1x1x2x2xf32>")
            lines.append(f"{out}:2 = nn.max_pool2d {img} {{kernel_size = array<i64: 1, 1>}}"
                         f" : (tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)")
            flat = fresh()
            lines.append(f"{flat} = nn.view {out}#0 {{size = array<i64: 4>}}"
                         f" : (tensor<1x1x2x2xf32>) -> {T4}")
            if rng.random() < 0.5:
                idx = fresh()
                lines.append(f"{idx} = nn.view {out}#1 {{size = array<i64: 4>}}"
                             f" : (tensor<1x1x2x2xi64>) -> tensor<4xi64>")
                lines.append(f"{ind} = nn.add {flat}, {idx} : ({T4}, tensor<4xi64>) -> {T4}")
                out = ind
            else:
                out = flat
        values.append(out)
    results = rng.sample(values, k=min(len(values), rng.randint(1, 3)))
    body = "\n  ".join(lines)
    types = ", ".join([T4] * len(results))
    return (f"func.func @g(%a0: {T4} {{nn.input = \"a0\"}}, %a1: {T4} {{nn.input = \"a1\"}})"
            f" -> ({types}) {{\n  {body}\n  return {', '.join(results)} : {types}\n}}\n")


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
