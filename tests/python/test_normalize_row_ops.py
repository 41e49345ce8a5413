"""raptor-normalize-row-ops on random shapes, against torch: softmaxes over
any dimension, maxima over any set of dimensions (kept or not) and
attention of rank 2, 3, 5 and 6 with masks broadcast in random patterns
are evaluated by their documented meaning (tests/python/nn_reference.py,
torch's functional operators) before and after the pass; the values must
agree and the rewritten module hold only the forms the PIM lowering takes
(softmax over the last dimension, no nn.amax, attention of rank 4)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from mlir import ir, passmanager

import raptor

from nn_reference import evaluate

SEEDS = range(40)


def _type(shape: list[int]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}f32>"


def _function(args: list[list[int]], body: str, result: list[int]) -> str:
    params = ", ".join(f'%a{i}: {_type(s)} {{nn.input = "a{i}"}}' for i, s in enumerate(args))
    return f"func.func @f({params}) -> {_type(result)} {{\n{body}  return %r : {_type(result)}\n}}\n"


def _softmax(rng: random.Random) -> tuple[str, list[list[int]]]:
    shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 5))]
    dim = rng.randrange(-len(shape), len(shape))
    body = f"  %r = nn.softmax %a0 {{dim = {dim}}} : {_type(shape)}\n"
    return _function([shape], body, shape), [shape]


def _maximum(rng: random.Random) -> tuple[str, list[list[int]]]:
    shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 5))]
    dims = rng.sample(range(len(shape)), rng.randint(0, len(shape)))
    keep = rng.random() < 0.5
    out = [1 if d in dims or not dims else n for d, n in enumerate(shape)] if keep else \
        [n for d, n in enumerate(shape) if dims and d not in dims]
    attrs = [f"dim = array<i64: {', '.join(str(d - len(shape) if rng.random() < 0.3 else d) for d in dims)}>"] \
        if dims else []
    if keep:
        attrs.append("keepdim = true")
    attr = f" {{{', '.join(attrs)}}}" if attrs else ""
    body = f"  %r = nn.amax %a0{attr} : ({_type(shape)}) -> {_type(out)}\n"
    return _function([shape], body, out), [shape]


def _attention(rng: random.Random) -> tuple[str, list[list[int]]]:
    rank = rng.choice([2, 3, 5, 6])
    leading = [rng.randint(1, 3) for _ in range(rank - 2)]
    length, keys, embed, width = (rng.randint(1, 5) for _ in range(4))
    q, k, v = leading + [length, embed], leading + [keys, embed], leading + [keys, width]
    args, names = [q, k, v], "%a0, %a1, %a2"
    if rng.random() < 0.7:  # a mask broadcast to the scores in a random pattern, of a random rank
        full = leading + [length, keys]
        mask = [n if rng.random() < 0.5 else 1 for n in full][rng.randint(0, rank - 2):]
        args.append(mask)
        names += ", %a3"
    out = leading + [length, width]
    types = ", ".join(_type(s) for s in args)
    body = f"  %r = nn.scaled_dot_product_attention {names} : ({types}) -> {_type(out)}\n"
    return _function(args, body, out), args


def _forms(module: ir.Module) -> list[str]:
    """The ops the PIM lowering would refuse: softmax not over the last
    dimension, amax, attention of rank other than 4."""
    bad = []
    for op in module.body.operations[0].regions[0].blocks[0].operations:
        name, o = op.operation.name, op.operation
        if name == "nn.amax":
            bad.append(name)
        if name == "nn.softmax":
            rank = len(ir.RankedTensorType(o.operands[0].type).shape)
            if ir.IntegerAttr(o.attributes["dim"]).value % max(rank, 1) != max(rank - 1, 0):
                bad.append(name)
        if name == "nn.scaled_dot_product_attention" and len(ir.RankedTensorType(o.operands[0].type).shape) != 4:
            bad.append(name)
    return bad


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["softmax", "maximum", "attention"])
def test_the_rewritten_ops_equal_the_originals(seed: int, kind: str) -> None:
    rng = random.Random(f"{kind}:{seed}")
    text, shapes = {"softmax": _softmax, "maximum": _maximum, "attention": _attention}[kind](rng)
    data = np.random.default_rng(seed)
    inputs = [data.standard_normal(s).astype(np.float32) for s in shapes]
    with raptor.Context():
        module = ir.Module.parse(text)
        before = evaluate(module, inputs, {})
        passmanager.PassManager.parse("builtin.module(raptor-normalize-row-ops)").run(module.operation)
        assert module.operation.verify()
        assert _forms(module) == [], str(module)
        after = evaluate(module, inputs, {})
    assert len(before) == len(after) == 1
    assert before[0].shape == after[0].shape
    np.testing.assert_allclose(after[0], before[0], rtol=1e-6, atol=1e-6)
