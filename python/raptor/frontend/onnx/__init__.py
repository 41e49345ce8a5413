"""Import an ONNX model into an ``nn`` module.

    from raptor.frontend.onnx import import_model
    module, report, weights = import_model("model.onnx", input_shapes={"x": [1, 3, 224, 224]})

ONNX operators become the same ``nn`` ops the torch frontend emits (whose
operand names are aten's argument names), so every later pass applies
unchanged: ``Conv`` is ``nn.convolution``, ``Gemm`` and ``MatMul`` by a
weight are ``nn.linear``, ``Clip`` is ``nn.hardtanh``, ``Gather`` by constant
indices is ``nn.select``/``nn.index_select``, and so on. Initializers that
feed the graph become ``nn.param`` arguments (their values are returned as
the weights), data computed from constants only (shape arithmetic, masks)
is folded, with the ``onnx`` package's reference implementation, into
``nn.constant`` or attributes. Every tensor must have a static shape: the
graph's own, or one given for an input in ``input_shapes``. An operator
without an ``nn`` op is kept as the generic ``nn.aten`` op (target
``onnx.OpType``), or, in strict mode, all of them are named in one error.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mlir import ir
from mlir.dialects import func

import raptor

from ...dialects import nn
from .._attributes import scalar_attribute

__all__ = ["ImportReport", "OnnxImportError", "SUPPORTED_OPSETS", "UnsupportedOperatorError",
           "import_model", "load_model"]

#: Versions of the default ONNX operator set this frontend reads.
SUPPORTED_OPSETS = range(13, 24)

#: Float data folded from constants becomes a weight from this many elements on.
_FOLDED_WEIGHT_SIZE = 1024


class OnnxImportError(ValueError):
    """The model cannot be imported (unreadable file, opset, dynamic shape)."""


class UnsupportedOperatorError(OnnxImportError):
    """Raised in strict mode when operators have no ``nn`` op (all named)."""


@dataclass
class ImportReport:
    """What the import did: operators kept generic, ONNX nodes folded."""

    generic: Counter[str] = field(default_factory=Counter)
    folded: int = 0
    opset: int = 0


def load_model(path: str | os.PathLike[str]) -> Any:
    """Reads and checks an ONNX file; OnnxImportError names the cause."""
    import onnx

    try:
        model = onnx.load(os.fspath(path))
    except FileNotFoundError:
        raise OnnxImportError(f"cannot read '{path}': no such file") from None
    except Exception as e:  # protobuf's DecodeError and friends
        raise OnnxImportError(f"'{path}' is not an ONNX model: {type(e).__name__}: "
                              f"{_one_line(e)}") from None
    if not model.graph.node and not model.graph.output:
        raise OnnxImportError(f"'{path}' is not an ONNX model: it has no graph")
    return model


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:300] + ("..." if len(text) > 300 else "")


# -- types -------------------------------------------------------------------

def _onnx_types() -> dict[int, tuple[Callable[[], ir.Type], Any]]:
    from onnx import TensorProto as T
    return {
        T.FLOAT: (ir.F32Type.get, np.float32), T.FLOAT16: (ir.F16Type.get, np.float16),
        T.DOUBLE: (ir.F64Type.get, np.float64), T.BFLOAT16: (ir.BF16Type.get, np.float32),
        T.INT64: (lambda: ir.IntegerType.get_signless(64), np.int64),
        T.INT32: (lambda: ir.IntegerType.get_signless(32), np.int32),
        T.INT16: (lambda: ir.IntegerType.get_signless(16), np.int16),
        T.INT8: (lambda: ir.IntegerType.get_signless(8), np.int8),
        T.UINT8: (lambda: ir.IntegerType.get_unsigned(8), np.uint8),
        T.BOOL: (lambda: ir.IntegerType.get_signless(1), np.bool_),
    }


def _numpy_element_type(dtype: np.dtype) -> ir.Type:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return ir.IntegerType.get_signless(1)
    if dtype.kind == "f":
        return {2: ir.F16Type.get, 4: ir.F32Type.get, 8: ir.F64Type.get}[dtype.itemsize]()
    if dtype.kind == "i":
        return ir.IntegerType.get_signless(8 * dtype.itemsize)
    if dtype.kind == "u":
        return ir.IntegerType.get_unsigned(8 * dtype.itemsize)
    raise OnnxImportError(f"unsupported tensor dtype {dtype}")


def _dense(array: np.ndarray) -> ir.Attribute:
    array = np.ascontiguousarray(array)
    if array.dtype == np.bool_:
        packed = np.packbits(array, bitorder="little")
        return ir.DenseElementsAttr.get(packed, type=ir.IntegerType.get_signless(1),
                                        shape=list(array.shape))
    return ir.DenseElementsAttr.get(array, type=_numpy_element_type(array.dtype))


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _is_float(value: ir.Value) -> bool:
    return isinstance(ir.RankedTensorType(value.type).element_type,
                      (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type))


def _attrs(node: Any) -> dict[str, Any]:
    import onnx
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _decode(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


class _Unsupported(Exception):
    """A node outside what the ``nn`` ops model: kept generic."""


# -- the importer --------------------------------------------------------------

class _Importer:
    def __init__(self, model: Any, input_shapes: Mapping[str, Sequence[int]]) -> None:
        import onnx

        self.onnx = onnx
        self.model = model
        self.graph = model.graph
        self.report = ImportReport()
        self.types = _onnx_types()
        self.opset = self._check_opset()
        self.report.opset = self.opset
        self.consts: dict[str, np.ndarray] = {}
        self.initializers: set[str] = set()
        for init in self.graph.initializer:
            self.consts[init.name] = onnx.numpy_helper.to_array(init)
            self.initializers.add(init.name)
        self.values: dict[str, ir.Value] = {}
        self.weights: dict[str, np.ndarray] = {}
        self.params: dict[str, ir.Value] = {}
        self.inputs = self._input_types(input_shapes)
        self._inferred: dict[str, tuple[list[int], int]] | None = None
        self.users = Counter(name for n in self.graph.node for name in n.input if name)
        self.users.update(o.name for o in self.graph.output)
        self.consumers: dict[str, list[int]] = {}
        for index, n in enumerate(self.graph.node):
            for name in n.input:
                if name:
                    self.consumers.setdefault(name, []).append(index)
        self.skip: set[int] = set()

    # -- checks --------------------------------------------------------------
    def _check_opset(self) -> int:
        versions = {o.domain or "ai.onnx": o.version for o in self.model.opset_import}
        version = versions.get("ai.onnx")
        if version is None:
            raise OnnxImportError("the model imports no version of the default ONNX operator set")
        if version not in SUPPORTED_OPSETS:
            raise OnnxImportError(
                f"unsupported ONNX opset {version} (supported: {SUPPORTED_OPSETS.start}-"
                f"{SUPPORTED_OPSETS.stop - 1}; convert it with onnx.version_converter)")
        return version

    def _input_types(self, input_shapes: Mapping[str, Sequence[int]]) -> list[tuple[str, list[int], int]]:
        inputs = [i for i in self.graph.input if i.name not in self.initializers]
        known = {i.name for i in inputs}
        for name in input_shapes:
            if name not in known:
                raise OnnxImportError(f"--input-shape names '{name}', which is not a graph input "
                                      f"(inputs: {', '.join(sorted(known)) or 'none'})")
        out = []
        for i in inputs:
            t = i.type.tensor_type
            if not i.type.HasField("tensor_type"):
                raise OnnxImportError(f"input '{i.name}' is not a tensor")
            if t.elem_type not in self.types:
                raise OnnxImportError(f"input '{i.name}' has an unsupported element type "
                                      f"{self.onnx.TensorProto.DataType.Name(t.elem_type)}")
            dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
                    for d in t.shape.dim]
            if i.name in input_shapes:
                shape = [int(s) for s in input_shapes[i.name]]
                if not t.HasField("shape"):
                    pass
                elif len(shape) != len(dims) or any(
                        isinstance(d, int) and d > 0 and d != s for d, s in zip(dims, shape)):
                    raise OnnxImportError(
                        f"--input-shape {i.name}={','.join(map(str, shape))} does not match the "
                        f"graph's shape [{', '.join(map(str, dims))}]")
                if any(s <= 0 for s in shape):
                    raise OnnxImportError(f"--input-shape {i.name}: sizes must be positive")
            else:
                if not t.HasField("shape") or any(not isinstance(d, int) or d <= 0 for d in dims):
                    spelled = "unknown" if not t.HasField("shape") else \
                        "[" + ", ".join(map(str, dims)) + "]"
                    raise OnnxImportError(
                        f"input '{i.name}' has a dynamic shape {spelled}: give its sizes with "
                        f"--input-shape {i.name}=" + ",".join(
                            str(d) if isinstance(d, int) and d > 0 else "N" for d in dims))
                shape = dims
            out.append((i.name, shape, t.elem_type))
        return out

    @property
    def inferred(self) -> dict[str, tuple[list[int], int]]:
        """Static types of every value, by ONNX's shape inference on the
        model with the inputs' static shapes: computed when a generic op
        first needs its result types."""
        if self._inferred is None:
            self._inferred = self._infer_shapes()
        return self._inferred

    def _infer_shapes(self) -> dict[str, tuple[list[int], int]]:
        onnx = self.onnx
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        # Large initializers (weights) as typed inputs: their values only
        # cost time here (shape arithmetic uses small constants).
        graph = model.graph
        listed = {i.name for i in graph.input}
        large = [i for i in graph.initializer if math.prod(i.dims) > 4096 and i.name not in listed]
        for init in large:
            graph.input.append(onnx.helper.make_tensor_value_info(init.name, init.data_type, list(init.dims)))
        kept = [i for i in graph.initializer if math.prod(i.dims) <= 4096]
        del graph.initializer[:]
        graph.initializer.extend(kept)
        fixed = {name: shape for name, shape, _ in self.inputs}
        for i in model.graph.input:
            if i.name in fixed:
                i.type.tensor_type.shape.Clear()
                for s in fixed[i.name]:
                    i.type.tensor_type.shape.dim.add().dim_value = s
        return _static_shapes(model)

    # -- values ----------------------------------------------------------------
    def is_const(self, name: str) -> bool:
        return name in self.consts

    def const(self, name: str) -> np.ndarray:
        if name not in self.consts:
            raise _Unsupported(f"'{name}' is not a constant")
        return self.consts[name]

    def value(self, name: str) -> ir.Value:
        """The IR value of ``name``: an emitted result, a weight argument
        (an initializer) or an ``nn.constant`` (folded data)."""
        if name in self.values:
            return self.values[name]
        if name not in self.consts:
            if self.report.generic:  # strict mode: after an operator without a stand-in
                self._strict_error()
            raise OnnxImportError(f"value '{name}' is used before it is defined")
        array = self.consts[name]
        # Weights: float initializers, and large float data folded from them
        # (a transposed or reshaped weight); small folded data is a constant.
        if array.dtype.kind == "f" and array.ndim > 0 and (
                name in self.initializers or array.size >= _FOLDED_WEIGHT_SIZE):
            return self.param(name, array)
        with ir.Location.name(name):
            v = nn.ConstantOp(_dense(array)).result
        self.values[name] = v
        return v

    def param(self, name: str, array: np.ndarray) -> ir.Value:
        """A weight argument (``nn.param = name``) holding ``array``."""
        if name not in self.params:
            self.weights[name] = array
            arg = self.block.add_argument(
                ir.RankedTensorType.get(list(array.shape), _numpy_element_type(array.dtype)),
                ir.Location.name(name))
            self.params[name] = arg
        return self.params[name]

    def transposed_param(self, name: str) -> ir.Value:
        """Initializer ``name`` (2-d) transposed, as its own weight."""
        array = self.const(name)
        if array.ndim != 2 or array.dtype.kind != "f":
            raise _Unsupported("the matrix operand is not a 2-d weight")
        return self.param(f"{name}.T", np.ascontiguousarray(array.T))

    def tensor(self, node: Any, i: int) -> ir.Value | None:
        if i >= len(node.input) or not node.input[i]:
            return None
        return self.value(node.input[i])

    def optional_const(self, node: Any, i: int) -> np.ndarray | None:
        if i >= len(node.input) or not node.input[i]:
            return None
        return self.const(node.input[i])

    # -- emission --------------------------------------------------------------
    def run(self, strict: bool) -> ir.Module:
        module = ir.Module.create()
        input_types = [ir.RankedTensorType.get(shape, self.types[et][0]())
                       for _, shape, et in self.inputs]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", (input_types, []))
            self.block = fn.add_entry_block()
            for (name, _, _), arg in zip(self.inputs, self.block.arguments):
                self.values[name] = arg
            with ir.InsertionPoint(self.block):
                # Constants first, so that patterns can read ones defined later.
                for index, node in enumerate(self.graph.node):
                    if node.op_type == "Constant" and (node.domain or "ai.onnx") == "ai.onnx":
                        self._fold(node)
                        self.skip.add(index)
                for index, node in enumerate(self.graph.node):
                    if index in self.skip:
                        continue
                    self._node(index, node, strict)
                if strict and self.report.generic:
                    self._strict_error()
                results = [self.value(o.name) for o in self.graph.output]
                func.ReturnOp(results)
        self._check_outputs(results)
        arg_types = [a.type for a in self.block.arguments]
        fn.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(arg_types, [r.type for r in results]))
        attrs = [ir.DictAttr.get({"nn.input": ir.StringAttr.get(name)}) for name, _, _ in self.inputs]
        attrs += [ir.DictAttr.get({"nn.param": ir.StringAttr.get(name)}) for name in self.params]
        fn.arg_attrs = ir.ArrayAttr.get(attrs)
        return module

    def _strict_error(self) -> None:
        names = ", ".join(f"{k.removeprefix('onnx.')} ({n})" for k, n in sorted(self.report.generic.items()))
        raise UnsupportedOperatorError(
            f"ONNX operators without an nn op: {names}; import without strict mode to keep them as nn.aten")

    def _check_outputs(self, results: list[ir.Value]) -> None:
        for out, value in zip(self.graph.output, results):
            t = out.type.tensor_type
            dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
            if not t.HasField("shape"):
                continue
            got = _shape(value)
            if len(dims) != len(got) or any(d is not None and d != g for d, g in zip(dims, got)):
                raise OnnxImportError(
                    f"output '{out.name}': the imported graph computes shape {got} but the "
                    f"model declares {[d if d is not None else '?' for d in dims]}")

    def _check_arity(self, node: Any, index: int) -> None:
        """An ONNX file is untrusted: a node with fewer inputs or outputs than
        its operator's schema allows is refused in one line (the rules index
        them: a Gemm with one input was an IndexError)."""
        try:
            schema = self.onnx.defs.get_schema(node.op_type, self.opset, node.domain or "")
        except Exception:
            return  # (unknown operators become generic calls)
        name = node.name or f"{node.op_type}_{index}"
        for what, got, low, high in (("inputs", len(node.input), schema.min_input, schema.max_input),
                                     ("outputs", len(node.output), schema.min_output, schema.max_output)):
            if not low <= got <= high:
                bound = f"{low}" if low == high else f"{low} to {high}" if high < 2**31 - 1 else f"at least {low}"
                noun = what[:-1] if got == 1 else what
                raise OnnxImportError(f"node '{name}' ({node.op_type}) has {got} {noun}; the operator takes {bound}")

    def _node(self, index: int, node: Any, strict: bool) -> None:
        op = node.op_type
        domain = node.domain or "ai.onnx"
        self._check_arity(node, index)
        loc = ir.Location.name(node.name or f"{op}_{index}")
        with loc:
            if domain == "ai.onnx" and self._foldable(node):
                self._fold(node)
                return
            rule = _RULES.get(op) if domain == "ai.onnx" else None
            outputs = None
            if rule is not None:
                try:
                    outputs = rule(self, node, _attrs(node), index)
                except _Unsupported:
                    outputs = None
            if outputs is None:
                outputs = self._generic(node, domain, strict)
            for name, value in zip(node.output, outputs):
                if name and value is not None:
                    self.values[name] = value

    def _foldable(self, node: Any) -> bool:
        if node.op_type in ("Constant",):
            return True
        if node.op_type == "Shape":
            return bool(node.input) and (node.input[0] in self.consts or node.input[0] in self.values)
        if node.op_type in ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                            "Multinomial", "Bernoulli"):
            return False
        present = [n for n in node.input if n]
        return all(n in self.consts for n in present) and bool(present or node.op_type in (
            "ConstantOfShape", "Range"))

    def _fold(self, node: Any) -> None:
        self.report.folded += 1
        if node.op_type == "Shape" and node.input[0] not in self.consts:
            a = _attrs(node)
            shape = np.array(_shape(self.values[node.input[0]]), dtype=np.int64)
            rank = len(shape)
            start = a.get("start", 0)
            end = a.get("end", rank)
            self.consts[node.output[0]] = shape[slice(start, end)]
            return
        from onnx.reference import ReferenceEvaluator

        try:
            feeds = {n: self.consts[n] for n in node.input if n}
            if node.op_type in _NUMPY_FOLDS:
                results = _NUMPY_FOLDS[node.op_type](node, [self.consts[n] for n in node.input], _attrs(node))
            else:
                results = ReferenceEvaluator(node).run(None, feeds)
        except Exception as e:
            raise OnnxImportError(f"cannot evaluate the constant ONNX node "
                                  f"'{node.name or node.op_type}' ({node.op_type}): {_one_line(e)}") from None
        for name, r in zip(node.output, results):
            if name:
                self.consts[name] = np.asarray(r)

    def _generic(self, node: Any, domain: str, strict: bool) -> list[ir.Value]:
        name = f"onnx.{node.op_type}" if domain == "ai.onnx" else f"{domain}.{node.op_type}"
        self.report.generic[name] += 1
        if strict:  # named all at once after the walk; placeholders keep it going
            return [self._placeholder(node, o) for o in node.output]
        types = []
        if any(o and o not in self.inferred for o in node.output):
            self.inferred.update(self._infer_node(node))
        for o in node.output:
            if not o:
                continue
            if o not in self.inferred:
                raise OnnxImportError(
                    f"cannot infer a static shape for '{o}' (output of {node.op_type} node "
                    f"'{node.name}')")
            dims, et = self.inferred[o]
            if et not in self.types:
                raise OnnxImportError(f"'{o}' has an unsupported element type")
            types.append(ir.RankedTensorType.get(dims, self.types[et][0]()))
        operands, ports = [], []
        schema = self._schema(node)
        for i, n in enumerate(node.input):
            if not n:
                continue
            operands.append(self.value(n))
            ports.append(schema[i] if i < len(schema) else f"input{i}")
        params = {}
        for key, v in _attrs(node).items():
            attr = scalar_attribute(_decode(v))
            if attr is not None:
                params[key] = attr
        op = nn.AtenOp(types, name, operands,
                       input_ports=ir.ArrayAttr.get([ir.StringAttr.get(p) for p in ports]),
                       params=ir.DictAttr.get(params) if params else None)
        results = iter(op.results)
        return [next(results) if o else None for o in node.output]

    def _infer_node(self, node: Any) -> dict[str, tuple[list[int], int]]:
        """ONNX shape inference of one node from its operands' known types
        (when inference over the whole model lost track)."""
        onnx = self.onnx
        to_onnx = {}
        for code, (make, _) in self.types.items():
            to_onnx.setdefault(str(make()), code)
        inputs, inits = [], []
        for name in node.input:
            if not name:
                continue
            if name in self.consts:
                inits.append(onnx.numpy_helper.from_array(np.asarray(self.consts[name]), name))
            elif name in self.values:
                t = ir.RankedTensorType(self.values[name].type)
                code = to_onnx.get(str(t.element_type))
                if code is None:
                    return {}
                inputs.append(onnx.helper.make_tensor_value_info(name, code, list(t.shape)))
        graph = onnx.helper.make_graph([node], "node", inputs, [
            onnx.helper.make_empty_tensor_value_info(o) for o in node.output if o], inits)
        model = onnx.helper.make_model(graph, opset_imports=list(self.model.opset_import))
        return _static_shapes(model)

    def _placeholder(self, node: Any, name: str) -> ir.Value | None:
        """In strict mode, a stand-in so that later nodes still convert."""
        if name and name not in self.inferred:
            self.inferred.update(self._infer_node(node))
        if not name or name not in self.inferred:
            return None
        dims, et = self.inferred[name]
        if et not in self.types:
            return None
        t = ir.RankedTensorType.get(dims, self.types[et][0]())
        return nn.AtenOp([t], "onnx.Unsupported", []).results[0]

    def _schema(self, node: Any) -> list[str]:
        try:
            schema = self.onnx.defs.get_schema(node.op_type, self.opset, node.domain or "")
        except Exception:
            return []
        names = [f.name for f in schema.inputs]
        if schema.inputs and schema.inputs[-1].option == schema.inputs[-1].option.Variadic:
            last = names[-1]
            names = names[:-1] + [f"{last}[{i}]" for i in range(len(node.input) - len(names) + 1)]
        return names


def _gather_elements(node: Any, inputs: list[np.ndarray], a: dict[str, Any]) -> list[np.ndarray]:
    data, index = inputs
    axis = a.get("axis", 0) % data.ndim
    index = np.where(index < 0, index + data.shape[axis], index)
    return [np.take_along_axis(data, index.astype(np.int64), axis)]


#: Folds computed here: the reference implementation of GatherElements
#: handles at most 64 positions along the axis (numpy.choose).
_NUMPY_FOLDS = {"GatherElements": _gather_elements}



def _static_shapes(model: Any) -> dict[str, tuple[list[int], int]]:
    """ONNX shape inference (with data propagation) on ``model``: each
    value with a static shape and a known element type, as (dims, type);
    nothing when inference fails."""
    import onnx

    try:
        model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception:  # onnx raises many kinds on graphs it cannot infer
        return {}
    out = {}
    for info in list(model.graph.value_info) + list(model.graph.output):
        t = info.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
        if t.HasField("shape") and t.elem_type and all(d >= 0 for d in dims):
            out[info.name] = (dims, t.elem_type)
    return out

# -- conversion rules ------------------------------------------------------------
# Each takes (importer, node, attributes, node index) and returns the values
# of the node's outputs, or raises _Unsupported (the node stays generic).

Rule = Callable[[_Importer, Any, dict[str, Any], int], list[ir.Value | None]]
_RULES: dict[str, Rule] = {}


def _rule(*names: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for n in names:
            _RULES[n] = fn
        return fn
    return register


def _view(x: ir.Value, shape: Sequence[int]) -> ir.Value:
    shape = [int(s) for s in shape]
    if _shape(x) == shape:
        return x
    return nn.ViewOp(x, shape).result


def _scalar_attr(array: np.ndarray) -> ir.Attribute:
    v = array.reshape(-1)[0].item()
    if isinstance(v, bool):
        raise _Unsupported("boolean scalar")
    if isinstance(v, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v)
    return ir.FloatAttr.get(ir.F64Type.get(), float(v))


_BINARY = {"Add": nn.AddOp, "Sub": nn.SubOp, "Mul": nn.MulOp, "Div": nn.DivOp}


def _near(im: _Importer, name: str, value: float) -> bool:
    return im.is_const(name) and im.const(name).size == 1 and \
        abs(float(im.const(name).reshape(-1)[0]) - value) <= 1e-6 * abs(value)


def _sole_consumer(im: _Importer, name: str, op_type: str) -> tuple[int, Any] | None:
    users = im.consumers.get(name, [])
    if len(users) != 1 or im.users[name] != 1 or im.graph.node[users[0]].op_type != op_type:
        return None
    return users[0], im.graph.node[users[0]]


def _erf_gelu(im: _Importer, node: Any) -> list[ir.Value] | None:
    """``x * (1 + erf(x / sqrt 2)) * 0.5`` (torch's GELU below opset 20) as
    one ``nn.gelu``: Div (or Mul by 1/sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5."""
    x, c = node.input
    if not (node.op_type == "Div" and _near(im, c, math.sqrt(2)) or
            node.op_type == "Mul" and _near(im, c, math.sqrt(0.5))) or im.is_const(x):
        return None
    chain, name = [], node.output[0]
    for op_type in ("Erf", "Add", "Mul", "Mul"):
        found = _sole_consumer(im, name, op_type)
        if found is None:
            return None
        chain.append(found)
        name = found[1].output[0]
    (_, erf), (_, add), (_, mul_x), (_, half) = chain
    others = [[n for n in add.input if n != erf.output[0]], [n for n in mul_x.input if n != add.output[0]],
              [n for n in half.input if n != mul_x.output[0]]]
    if any(len(o) != 1 for o in others) or not _near(im, others[0][0], 1.0) or others[1][0] != x \
            or not _near(im, others[2][0], 0.5):
        return None
    im.skip.update(i for i, _ in chain)
    out = nn.GeluOp(im.value(x)).result
    im.values[half.output[0]] = out
    return [None]


@_rule("Add", "Sub", "Mul", "Div")
def _binary(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if node.op_type in ("Div", "Mul") and (fused := _erf_gelu(im, node)) is not None:
        return fused
    op = _BINARY[node.op_type]
    lhs, rhs = node.input[0], node.input[1]
    if node.op_type == "Add" and im.is_const(lhs) and not im.is_const(rhs):
        lhs, rhs = rhs, lhs  # commutative: the tensor goes first
    if node.op_type == "Mul" and im.is_const(lhs) and not im.is_const(rhs):
        lhs, rhs = rhs, lhs
    x = im.value(lhs)
    if im.is_const(rhs) and im.const(rhs).size == 1 and im.const(rhs).ndim <= len(_shape(x)) \
            and not (rhs in im.initializers and im.const(rhs).ndim > 0):
        c = im.const(rhs)
        if c.dtype.kind in "iub" and _is_float(x):
            c = c.astype(np.float64)
        return [op(x, scalar=_scalar_attr(c)).result]
    return [op(x, other=im.value(rhs)).result]


def _unary(op_class: type) -> Rule:
    def convert(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
        return [op_class(im.value(node.input[0])).result]
    return convert


for _name, _op in {"Relu": nn.ReluOp, "Sigmoid": nn.SigmoidOp, "Tanh": nn.TanhOp,
                   "Neg": nn.NegOp}.items():
    _RULES[_name] = _unary(_op)


@_rule("Identity")
def _identity(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    return [im.value(node.input[0])]


@_rule("Dropout")
def _dropout(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if len(node.output) > 1 and node.output[1]:
        raise _Unsupported("dropout mask")
    training = im.optional_const(node, 2)
    if training is not None and bool(training):
        raise _Unsupported("training-mode dropout")
    return [im.value(node.input[0])]


@_rule("Pow")
def _pow(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    exponent = im.const(node.input[1])
    if exponent.size != 1 or not _is_float(x):
        raise _Unsupported("a tensor exponent")
    return [nn.PowOp(x, float(exponent.reshape(-1)[0])).result]


@_rule("Sqrt")
def _sqrt(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    if not _is_float(x):
        raise _Unsupported("an integer square root")
    return [nn.PowOp(x, 0.5).result]


@_rule("IsNaN")
def _is_nan(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value | None]:
    """``Where(IsNaN(p), c, p)`` (the NaN guard of exported attention) as
    ``nn.nan_to_num`` replacing NaN only."""
    p = node.input[0]
    found = _sole_consumer(im, node.output[0], "Where")
    if found is None:
        raise _Unsupported("an IsNaN that is not a NaN guard")
    where_index, where = found
    cond, c, other = where.input
    if cond != node.output[0] or other != p or not im.is_const(c) or im.const(c).size != 1 \
            or im.const(c).ndim > len(_shape(im.value(p))) or not _is_float(im.value(p)):
        raise _Unsupported("an IsNaN that is not a NaN guard")
    im.skip.add(where_index)
    inf = float("inf")
    im.values[where.output[0]] = nn.NanToNumOp(im.value(p), nan=float(im.const(c).reshape(-1)[0]),
                                               posinf=inf, neginf=-inf).result
    return [None]


@_rule("Gelu")
def _gelu(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    return [nn.GeluOp(im.value(node.input[0]), approximate=_decode(a.get("approximate", "none"))).result]


@_rule("Softmax")
def _softmax(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    return [nn.SoftmaxOp(im.value(node.input[0]), a.get("axis", -1), half_to_float=False).result]


@_rule("Clip")
def _clip(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    lo, hi = im.optional_const(node, 1), im.optional_const(node, 2)
    if lo is None and hi is None:
        return [x]
    if lo is not None and hi is not None:
        return [nn.HardtanhOp(x, min_val=float(lo), max_val=float(hi)).result]
    kw = {"min": float(lo)} if lo is not None else {"max": float(hi)}
    return [nn.ClampOp(x, **kw).result]


def _hardsigmoid(x: ir.Value, alpha: float, beta: float) -> ir.Value:
    # clamp(alpha x + beta, 0, 1) = hardtanh(x + beta/alpha, 0, 1/alpha) * alpha
    f64 = ir.F64Type.get()
    shifted = nn.AddOp(x, scalar=ir.FloatAttr.get(f64, beta / alpha)).result
    clipped = nn.HardtanhOp(shifted, min_val=0.0, max_val=1.0 / alpha).result
    return nn.DivOp(clipped, scalar=ir.FloatAttr.get(f64, 1.0 / alpha)).result


@_rule("HardSigmoid")
def _hard_sigmoid(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    alpha, beta = a.get("alpha", 0.2), a.get("beta", 0.5)
    if alpha <= 0:
        raise _Unsupported("non-positive alpha")
    return [_hardsigmoid(im.value(node.input[0]), alpha, beta)]


@_rule("HardSwish")
def _hard_swish(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    return [nn.MulOp(x, other=_hardsigmoid(x, 1.0 / 6.0, 0.5)).result]


def _conv_padding(im: _Importer, a: dict[str, Any], x: ir.Value, kernel: list[int],
                  strides: list[int], dilations: list[int]) -> tuple[ir.Value, list[int]]:
    """Symmetric padding for the op, an explicit pad op in front otherwise."""
    n = len(kernel)
    auto = _decode(a.get("auto_pad", "NOTSET"))
    spatial = _shape(x)[2:]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        begins, ends = [], []
        for size, k, s, d in zip(spatial, kernel, strides, dilations):
            out = -(-size // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
            small = total // 2
            begins.append(small if auto == "SAME_UPPER" else total - small)
            ends.append(total - begins[-1])
    elif auto == "VALID":
        begins, ends = [0] * n, [0] * n
    else:
        pads = list(a.get("pads", [0] * (2 * n)))
        begins, ends = pads[:n], pads[n:]
    if begins == ends:
        return x, begins
    pad: list[int] = []
    for b, e in reversed(list(zip(begins, ends))):
        pad += [b, e]
    return nn.ConstantPadNdOp(x, pad, value=0.0).result, [0] * n


@_rule("Conv")
def _conv(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    w = im.value(node.input[1])
    b = im.tensor(node, 2)
    kernel = _shape(w)[2:]
    n = len(kernel)
    strides = list(a.get("strides", [1] * n))
    dilations = list(a.get("dilations", [1] * n))
    x, padding = _conv_padding(im, a, x, kernel, strides, dilations)
    return [nn.ConvolutionOp(x, w, strides, padding, dilations, bias=b, transposed=False,
                             output_padding=[0] * n, groups=a.get("group", 1)).result]


@_rule("Gemm")
def _gemm(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0:
        raise _Unsupported("transposed A or alpha")
    x = im.value(node.input[0])
    name = node.input[1]
    w = im.value(name) if a.get("transB", 0) else im.transposed_param(name)
    bias = None
    if len(node.input) > 2 and node.input[2]:
        if a.get("beta", 1.0) != 1.0:
            raise _Unsupported("beta")
        c = im.const(node.input[2]) if im.is_const(node.input[2]) else None
        if c is None or c.ndim != 1 or c.shape[0] != _shape(w)[0]:
            raise _Unsupported("a bias that is not a vector")
        bias = im.value(node.input[2])
    return [nn.LinearOp(x, w, bias=bias).result]


@_rule("MatMul")
def _matmul(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    name = node.input[1]
    if im.is_const(name) and im.const(name).ndim == 2 and len(_shape(x)) >= 2 \
            and im.const(name).dtype.kind == "f":
        w = im.transposed_param(name)
        bias = None
        # MatMul + Add(bias vector) as one linear layer, as torch's nn.Linear.
        out = node.output[0]
        nxt = index + 1
        if im.users[out] == 1 and nxt < len(im.graph.node):
            add = im.graph.node[nxt]
            if add.op_type == "Add" and out in add.input:
                other = add.input[1] if add.input[0] == out else add.input[0]
                if other in im.initializers and im.const(other).shape == (_shape(w)[0],):
                    bias = im.value(other)
                    im.skip.add(nxt)
                    result = nn.LinearOp(x, w, bias=bias).result
                    im.values[add.output[0]] = result
                    return [result]
        return [nn.LinearOp(x, w, bias=bias).result]
    return [nn.MatmulOp(x, im.value(name)).result]


@_rule("BatchNormalization")
def _batch_norm(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if a.get("training_mode", 0) or any(o for o in node.output[1:]):
        raise _Unsupported("training mode")
    x, scale, b, mean, var = (im.value(n) for n in node.input[:5])
    op = nn.BatchNormOp(x, scale, b, mean, var, momentum=float(a.get("momentum", 0.9)),
                        eps=float(a.get("epsilon", 1e-5)))
    return [op.results[0]]


@_rule("LayerNormalization")
def _layer_norm(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if any(o for o in node.output[1:]):
        raise _Unsupported("saved statistics")
    x = im.value(node.input[0])
    shape = _shape(x)
    axis = a.get("axis", -1) % len(shape)
    weight, bias = im.tensor(node, 1), im.tensor(node, 2)
    return [nn.LayerNormOp(x, shape[axis:], weight=weight, bias=bias,
                           eps=float(a.get("epsilon", 1e-5))).result]


def _pool_params(a: dict[str, Any], n: int) -> tuple[list[int], list[int], list[int]]:
    kernel = list(a["kernel_shape"])
    strides = list(a.get("strides", [1] * n))
    pads = list(a.get("pads", [0] * (2 * n)))
    if _decode(a.get("auto_pad", "NOTSET")) not in ("NOTSET", "VALID") or pads[:n] != pads[n:]:
        raise _Unsupported("asymmetric or automatic pooling padding")
    return kernel, strides, pads[:n]


@_rule("MaxPool")
def _max_pool(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    if len(_shape(x)) != 4 or (len(node.output) > 1 and node.output[1]) or a.get("storage_order", 0):
        raise _Unsupported("not a 2-d max pooling")
    kernel, strides, pads = _pool_params(a, 2)
    op = nn.MaxPool2dOp(x, kernel, stride=strides, padding=pads,
                        dilation=list(a.get("dilations", [1, 1])), ceil_mode=bool(a.get("ceil_mode", 0)))
    return [op.results[0]]


@_rule("AveragePool")
def _avg_pool(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    if len(_shape(x)) != 4 or list(a.get("dilations", [1, 1])) != [1, 1]:
        raise _Unsupported("not a 2-d average pooling")
    kernel, strides, pads = _pool_params(a, 2)
    return [nn.AvgPool2dOp(x, kernel, stride=strides, padding=pads,
                           ceil_mode=bool(a.get("ceil_mode", 0)),
                           count_include_pad=bool(a.get("count_include_pad", 0))).result]


@_rule("GlobalAveragePool")
def _global_avg_pool(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    if len(_shape(x)) != 4:
        raise _Unsupported("not 2-d")
    return [nn.AdaptiveAvgPool2dOp(x, [1, 1]).result]


def _axes(im: _Importer, node: Any, a: dict[str, Any], position: int) -> list[int] | None:
    """Axes given as attribute (older opsets) or as input ``position``."""
    if "axes" in a:
        return list(a["axes"])
    arr = im.optional_const(node, position)
    return None if arr is None else [int(v) for v in arr.reshape(-1)]


@_rule("ReduceMean")
def _reduce_mean(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    rank = len(_shape(x))
    axes = _axes(im, node, a, 1)
    if not axes:
        if a.get("noop_with_empty_axes", 0):
            return [x]
        axes = list(range(rank))
    if not _is_float(x):
        raise _Unsupported("integer mean")
    return [nn.MeanOp(x, dim=[d % rank for d in axes], keepdim=bool(a.get("keepdims", 1))).result]


@_rule("Flatten")
def _flatten(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = _shape(x)
    axis = a.get("axis", 1) % (len(shape) + 1) if shape else 0
    return [_view(x, [math.prod(shape[:axis]), math.prod(shape[axis:])])]


@_rule("Reshape")
def _reshape(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    target = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    shape = _shape(x)
    if not a.get("allowzero", 0):
        target = [shape[i] if t == 0 else t for i, t in enumerate(target)]
    if target.count(-1) == 1:
        known = math.prod(t for t in target if t != -1)
        target[target.index(-1)] = math.prod(shape) // known if known else 0
    return [_view(x, target)]


@_rule("Squeeze")
def _squeeze(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = _shape(x)
    axes = _axes(im, node, a, 1)
    drop = {d % len(shape) for d in axes} if axes else {i for i, s in enumerate(shape) if s == 1}
    if any(shape[d] != 1 for d in drop):
        raise OnnxImportError(f"Squeeze node '{node.name}' squeezes a dimension of size > 1")
    return [_view(x, [s for i, s in enumerate(shape) if i not in drop])]


@_rule("Unsqueeze")
def _unsqueeze(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = _shape(x)
    axes = _axes(im, node, a, 1) or []
    rank = len(shape) + len(axes)
    new = sorted(d % rank for d in axes)
    out, it = [], iter(shape)
    for i in range(rank):
        out.append(1 if i in new else next(it))
    return [_view(x, out)]


@_rule("Transpose")
def _transpose(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    perm = list(a.get("perm", reversed(range(len(_shape(x))))))
    if perm == list(range(len(perm))):
        return [x]
    return [nn.PermuteOp(x, perm).result]


@_rule("Concat")
def _concat(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    tensors = [im.value(n) for n in node.input if n]
    return [nn.CatOp(tensors, dim=a["axis"]).result]


@_rule("Split")
def _split(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = _shape(x)
    axis = a.get("axis", 0) % len(shape)
    sizes = a.get("split")
    if sizes is None and len(node.input) > 1 and node.input[1]:
        sizes = [int(v) for v in im.const(node.input[1])]
    if sizes is None:
        parts = a.get("num_outputs", len(node.output))
        chunk = -(-shape[axis] // parts)
        sizes = [min(chunk, shape[axis] - i * chunk) for i in range(parts)]
    return list(nn.SplitWithSizesOp(x, list(sizes), dim=axis).results)


@_rule("Slice")
def _slice(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    shape = _shape(x)
    starts = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    ends = [int(v) for v in im.const(node.input[2]).reshape(-1)]
    axes = _axes(im, node, {}, 3) or list(range(len(starts)))
    steps = [int(v) for v in im.optional_const(node, 4).reshape(-1)] \
        if im.optional_const(node, 4) is not None else [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        if step <= 0:
            raise _Unsupported("a negative slice step")
        axis %= len(shape)
        size = shape[axis]
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, 0), size)
        if start == 0 and end == size and step == 1:
            continue
        kw: dict[str, Any] = {"dim": axis, "step": step}
        if start:
            kw["start"] = start
        if end != size:
            kw["end"] = end
        x = nn.SliceOp(x, **kw).result
    return [x]


@_rule("Gather")
def _gather(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    data_name, idx_name = node.input[0], node.input[1]
    axis = a.get("axis", 0)
    if not im.is_const(idx_name):
        # A table lookup: nn.embedding (rows of a weight by integer ids).
        weight = im.value(data_name)
        if axis != 0 or len(_shape(weight)) != 2 or not _is_float(weight):
            raise _Unsupported("a gather by computed indices")
        return [nn.EmbeddingOp(weight, im.value(idx_name)).result]
    x = im.value(data_name)
    shape = _shape(x)
    axis %= len(shape)
    idx = im.const(idx_name).astype(np.int64)
    idx = np.where(idx < 0, idx + shape[axis], idx)
    if idx.ndim == 0:
        return [nn.SelectOp(x, axis, int(idx)).result]
    flat = idx.reshape(-1)
    with ir.Location.name(idx_name):
        table = nn.ConstantOp(_dense(flat)).result
    out = nn.IndexSelectOp(x, axis, table).result
    if idx.ndim == 1:
        return [out]
    return [_view(out, shape[:axis] + list(idx.shape) + shape[axis + 1:])]


@_rule("Expand")
def _expand(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    target = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    size = list(np.broadcast_shapes(tuple(_shape(x)), tuple(target)))
    if size == _shape(x):
        return [x]
    return [nn.ExpandOp(x, size).result]


@_rule("Pad")
def _pad(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    if _decode(a.get("mode", "constant")) != "constant":
        raise _Unsupported("non-constant padding")
    x = im.value(node.input[0])
    rank = len(_shape(x))
    pads = [int(v) for v in im.const(node.input[1]).reshape(-1)]
    value = im.optional_const(node, 2)
    axes = _axes(im, node, {}, 3) or list(range(rank))
    n = len(axes)
    if len(pads) != 2 * n:
        raise OnnxImportError(f"Pad '{node.name}' has {len(pads)} pads for {n} axes (expected {2 * n})")
    per = {ax % rank: (before, after) for ax, before, after in zip(axes, pads[:n], pads[n:])}
    pad: list[int] = []
    for d in reversed(range(rank)):
        pad += list(per.get(d, (0, 0)))
    while pad[-2:] == [0, 0] and len(pad) > 2:
        pad = pad[:-2]
    fill = float(value.reshape(-1)[0]) if value is not None and value.size else 0.0
    return [nn.ConstantPadNdOp(x, pad, value=fill).result]


@_rule("Cast")
def _cast(im: _Importer, node: Any, a: dict[str, Any], index: int) -> list[ir.Value]:
    x = im.value(node.input[0])
    to = im.types.get(a["to"])
    if to is None or to[0]() != ir.RankedTensorType(x.type).element_type:
        raise _Unsupported("a conversion")
    return [x]


# -- entry point -----------------------------------------------------------------

def import_model(model: Any, input_shapes: Mapping[str, Sequence[int]] | None = None,
                 strict: bool = False, context: ir.Context | None = None
                 ) -> tuple[ir.Module, ImportReport, dict[str, np.ndarray]]:
    """Imports ``model`` (an ``onnx.ModelProto`` or a file path).

    ``input_shapes`` gives static sizes to inputs whose shapes are dynamic.
    Returns the verified module, a report (operators kept generic, folded
    nodes) and the weights keyed by their ``nn.param`` names. Raises
    OnnxImportError (one line) on bad input and UnsupportedOperatorError in
    strict mode, naming every operator without an ``nn`` op.
    """
    if isinstance(model, (str, os.PathLike)):
        model = load_model(model)
    importer = _Importer(model, dict(input_shapes or {}))
    context = context or raptor.Context()
    with context, ir.Location.unknown():
        try:
            module = importer.run(strict)
        except ir.MLIRError as e:
            msgs = "; ".join(f"{d.location}: {d.message}" for d in e.error_diagnostics)
            raise OnnxImportError(f"the ONNX graph does not convert: {msgs or e}") from None
        if not module.operation.verify():
            raise OnnxImportError("imported module does not verify")
    return module, importer.report, importer.weights
