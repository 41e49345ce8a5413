"""Synthetic nn graphs for codec-placement tests and scaling benchmarks.

Every generator returns MLIR text of one function over ``tensor<4xf32>``
values; the ``size`` argument is the number of operator steps, and the graph
has O(size) edges.
"""

from __future__ import annotations

import random

T4 = "tensor<4xf32>"
T8 = "tensor<8xf32>"


class _Builder:
    def __init__(self, inputs: int = 1) -> None:
        self.lines: list[str] = []
        self.counter = 0
        self.inputs = [f"%a{i}" for i in range(inputs)]

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def op(self, text: str) -> str:
        out = self.fresh()
        self.lines.append(f"  {out} = {text}")
        return out

    def view(self, a: str) -> str:
        return self.op(f"nn.view {a} {{size = array<i64: 4>}} : ({T4}) -> {T4}")

    def unary(self, kind: str, a: str) -> str:
        return self.op(f"nn.{kind} {a} : {T4}")

    def binary(self, kind: str, a: str, b: str) -> str:
        return self.op(f"nn.{kind} {a}, {b} : ({T4}, {T4}) -> {T4}")

    def cat_slice(self, a: str, b: str) -> str:
        cat = self.op(f"nn.cat {a}, {b} : ({T4}, {T4}) -> {T8}")
        return self.op(f"nn.slice {cat} {{start = 2 : i64, end = 6 : i64}} : ({T8}) -> {T4}")

    def cat_split(self, a: str, b: str) -> tuple[str, str]:
        cat = self.op(f"nn.cat {a}, {b} : ({T4}, {T4}) -> {T8}")
        out = self.fresh()
        self.lines.append(f"  {out}:2 = nn.split_with_sizes {cat} "
                          f"{{split_sizes = array<i64: 4, 4>}} : ({T8}) -> ({T4}, {T4})")
        return f"{out}#0", f"{out}#1"

    def finish(self, results: list[str]) -> str:
        args = ", ".join(f'{a}: {T4} {{nn.input = "{a[1:]}"}}' for a in self.inputs)
        types = ", ".join([T4] * len(results))
        return (f"func.func @g({args}) -> ({types}) {{\n" + "\n".join(self.lines) +
                f"\n  return {', '.join(results)} : {types}\n}}\n")


def reshape_chain(size: int) -> str:
    """x -> view -> view -> ... (one subgraph at policy W)."""
    b = _Builder()
    value = b.inputs[0]
    for _ in range(size):
        value = b.view(value)
    return b.finish([value])


def concat_tree(size: int) -> str:
    """A binary tree of concatenates (cat + slice) over views of the input."""
    b = _Builder()
    level = [b.view(b.inputs[0]) for _ in range(max(2, size // 3))]
    while len(level) > 1:
        nxt = [b.cat_slice(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return b.finish(level)


def residual_ladder(size: int) -> str:
    """y = add(relu(view(y)), y), repeated: fan-out and re-join at every rung."""
    b = _Builder()
    y = b.inputs[0]
    for _ in range(max(1, size // 3)):
        y = b.binary("add", b.unary("relu", b.view(y)), y)
    return b.finish([y])


def random_dag(seed: int, size: int, window: int = 0) -> str:
    """A random DAG mixing commuting and non-commuting operators.

    Operands are drawn from all earlier values, or from the last ``window``
    values when ``window`` > 0 (keeps long graphs local, like real models).
    Includes max_pool2d with (sometimes used) indices and parallel edges.
    """
    rng = random.Random(seed)
    b = _Builder(inputs=2)
    values = list(b.inputs)

    def pick() -> str:
        pool = values[-window:] if window > 0 else values
        return rng.choice(pool)

    for _ in range(size):
        kind = rng.choice(["view", "clone", "relu", "add", "mul", "cat_split",
                           "cat_slice", "permute", "pool"])
        a, c = pick(), pick()
        if kind == "view":
            values.append(b.view(a))
        elif kind in ("clone", "relu"):
            values.append(b.unary(kind, a))
        elif kind in ("add", "mul"):
            values.append(b.binary(kind, a, c))
        elif kind == "permute":
            values.append(b.op(f"nn.permute {a} {{dims = array<i64: 0>}} : ({T4}) -> {T4}"))
        elif kind == "cat_split":
            values.extend(b.cat_split(a, c))
        elif kind == "cat_slice":
            values.append(b.cat_slice(a, c))
        else:
            image = b.op(f"nn.view {a} {{size = array<i64: 1, 1, 2, 2>}} : ({T4}) -> tensor<1x1x2x2xf32>")
            pool = b.fresh()
            b.lines.append(f"  {pool}:2 = nn.max_pool2d {image} {{kernel_size = array<i64: 1, 1>}} : "
                           f"(tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)")
            flat = b.op(f"nn.view {pool}#0 {{size = array<i64: 4>}} : (tensor<1x1x2x2xf32>) -> {T4}")
            if rng.random() < 0.5:
                idx = b.op(f"nn.view {pool}#1 {{size = array<i64: 4>}} : "
                           f"(tensor<1x1x2x2xi64>) -> tensor<4xi64>")
                flat = b.op(f"nn.add {flat}, {idx} : ({T4}, tensor<4xi64>) -> {T4}")
            values.append(flat)
    return b.finish(rng.sample(values, k=min(len(values), rng.randint(1, 3))))


GENERATORS = {
    "reshape_chain": reshape_chain,
    "concat_tree": concat_tree,
    "residual_ladder": residual_ladder,
    "random_dag": lambda size: random_dag(0, size, window=16),
}
