"""Import a ``torch.export.ExportedProgram`` into an ``nn`` module.

    import raptor
    from raptor.frontend.torch import import_program
    module = import_program(exported_program)

The graph is taken at aten granularity after the decompositions of
``raptor.zoo.decomposition_table()``. Weights (parameters and persistent
buffers) become function arguments marked ``nn.param`` (shape and dtype
only); data the graph derives from constants becomes ``nn.constant``;
RMSNorm, rotary embeddings, KV-head fan-out (and, on request, a KV-cache
update) are recognised as single ops. Every other aten operator without a
dedicated ``nn`` op is kept as ``nn.aten`` unless ``strict`` is set.
"""

from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from mlir import ir
from mlir.dialects import func
from torch import fx
from torch.export.graph_signature import InputKind

import raptor

from ..dialects import nn
from ._attributes import scalar_attribute
from ._attention_biases import run_time_attention_biases
from ._constant_gathers import constant_gathers
from ._real_dfts import real_dfts
from . import _converters as conv
from . import _fx_rewrites as rw
from . import _token_arithmetic as token_arithmetic

__all__ = ["ExportError", "ImportOptions", "ImportReport", "UnsupportedOperatorError",
           "import_module", "import_program"]

_DTYPES = {
    torch.float32: ir.F32Type.get, torch.float16: ir.F16Type.get,
    torch.bfloat16: ir.BF16Type.get, torch.float64: ir.F64Type.get,
    torch.int64: lambda: ir.IntegerType.get_signless(64),
    torch.int32: lambda: ir.IntegerType.get_signless(32),
    torch.int16: lambda: ir.IntegerType.get_signless(16),
    torch.int8: lambda: ir.IntegerType.get_signless(8),
    torch.uint8: lambda: ir.IntegerType.get_unsigned(8),
    torch.bool: lambda: ir.IntegerType.get_signless(1),
}


class UnsupportedOperatorError(ValueError):
    """Raised in strict mode when an operator has no dedicated ``nn`` op."""


class ExportError(ValueError):
    """torch.export (or its decomposition) failed on the model; one line."""


@dataclass
class ImportOptions:
    """What the importer recognises and how strictly it converts."""

    #: Fail on operators that would become the generic ``nn.aten`` op.
    strict: bool = False
    #: Recognise RMSNorm subgraphs as ``nn.rms_norm``.
    fuse_rms_norm: bool = True
    #: Recognise ``x*cos + rotate_half(x)*sin`` as ``nn.rotary_embedding``.
    fuse_rotary_embeddings: bool = True
    #: Recognise Llama's repeat_kv as ``nn.fan_out``.
    fuse_fan_out: bool = True
    #: Insert ``nn.kv_cache`` in front of attention keys and values.
    insert_kv_cache: bool = False
    #: Replace constant lower-triangular attention masks by ``is_causal``.
    fold_causal_masks: bool = True
    #: Name of the emitted function.
    function_name: str = "main"


@dataclass
class ImportReport:
    """What the import did (pattern counts, generic operators)."""

    rewrites: Counter[str] = field(default_factory=Counter)
    generic: Counter[str] = field(default_factory=Counter)


def _element_type(dtype: torch.dtype) -> ir.Type:
    if dtype not in _DTYPES:
        raise UnsupportedOperatorError(f"unsupported tensor dtype {dtype}")
    return _DTYPES[dtype]()


def _tensor_type(val: Any) -> ir.Type:
    return ir.RankedTensorType.get([int(d) for d in val.shape], _element_type(val.dtype))


def _result_types(node: fx.Node) -> list[ir.Type]:
    val = node.meta.get("val")
    if isinstance(val, (list, tuple)):
        return [_tensor_type(v) for v in val]
    return [] if val is None else [_tensor_type(val)]


def _constant_attr(tensor: torch.Tensor) -> ir.Attribute:
    tensor = tensor.detach().cpu().contiguous()
    array = tensor.numpy() if tensor.dtype != torch.bfloat16 else tensor.float().numpy()
    if tensor.dtype == torch.bool:
        array = np.packbits(array, bitorder="little")
        return ir.DenseElementsAttr.get(array, type=ir.IntegerType.get_signless(1),
                                        shape=list(tensor.shape))
    # (np.ascontiguousarray would make a 0-d tensor 1-d: GPT-Neo's lifted
    # scalar mask value became tensor<1xf32> under a clone of tensor<f32>.)
    return ir.DenseElementsAttr.get(np.array(array, order="C"), type=_element_type(tensor.dtype))


def _param_attr(value: Any) -> ir.Attribute | None:
    """A non-tensor aten argument as an attribute (None when it has no form)."""
    if isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return ir.StringAttr.get(str(value))
    return scalar_attribute(value)


class _Emitter:
    def __init__(self, ep: torch.export.ExportedProgram, options: ImportOptions) -> None:
        self.ep = ep
        self.options = options
        self.report = ImportReport()
        self.first_generic: dict[str, str] = {}
        self.values: dict[fx.Node, list[ir.Value]] = {}

    # -- graph preparation -------------------------------------------------
    def prepare(self) -> fx.Graph:
        graph = fx.Graph()
        mapping: dict[fx.Node, fx.Node] = {}
        out = graph.graph_copy(self.ep.graph, mapping)
        graph.output(out)
        self.placeholder_kind = {}
        # Found through the copy's mapping: the copy may rename placeholders
        # (an input called "input" shadows a builtin and becomes "input_1").
        originals = {n.name: n for n in self.ep.graph.nodes if n.op == "placeholder"}
        for spec in self.ep.graph_signature.input_specs:
            self.placeholder_kind[mapping[originals[spec.arg.name]]] = spec
        o = self.options
        rw.drop_assertions(graph)
        if found := rw.data_dependent_shape(graph):
            raise UnsupportedOperatorError(found)
        # Counted only when they apply (the report lists recognised patterns).
        for name, rewrite in (("as_strided_view", rw.as_strided_views), ("addmm", rw.decompose_addmm),
                              ("shape_only_fill", rw.shape_only_fills), ("sum_as_mean", rw.sums_as_means),
                              ("erf_gelu", rw.fuse_erf_gelus), ("slice_scatter", rw.slice_scatters),
                              ("alias", rw.drop_aliases), ("copy", rw.copies),
                              ("scalar_minus_tensor", rw.scalar_minus_tensors),
                              ("max_values", rw.maxima_without_indices),
                              ("repeat", rw.repeats_as_concatenations)):
            if count := rewrite(graph):
                self.report.rewrites[name] += count
        if o.fuse_rms_norm:
            self.report.rewrites["rms_norm"] += rw.fuse_rms_norm(graph)
        if o.fuse_rotary_embeddings:
            self.report.rewrites["rotary_embedding"] += rw.fuse_rotary_embeddings(graph)
        if o.fuse_fan_out:
            self.report.rewrites["fan_out"] += rw.fuse_fan_out(graph)
        graph.eliminate_dead_code()
        if o.insert_kv_cache:
            self.report.rewrites["kv_cache"] += rw.insert_kv_cache(graph)
        self.constant = rw.constant_nodes(graph, [
            n for n, spec in self.placeholder_kind.items() if self._is_constant_input(spec)])
        self.evaluated: dict[fx.Node, Any] = {
            n: self._input_data(self.placeholder_kind[n]) for n in self.constant if n.op == "placeholder"}
        if o.fold_causal_masks:
            self.report.rewrites["causal_mask"] += rw.fold_causal_masks(
                graph, self.constant, self.evaluated)
        if count := run_time_attention_biases(graph, self.constant):
            self.report.rewrites["run_time_attention_bias"] += count
        if count := real_dfts(graph, self.constant, self.evaluated):
            self.report.rewrites["real_dft"] += count
        if count := constant_gathers(graph, self.constant, self.evaluated):
            self.report.rewrites["constant_gather"] += count
        if count := rw.constant_multi_index_slices(graph, self.constant, self.evaluated):
            self.report.rewrites["constant_multi_index"] += count
        compile_time = rw.constant_nodes(graph, [
            n for n, spec in self.placeholder_kind.items() if spec.kind != InputKind.USER_INPUT])
        if count := rw.constant_index_slices(graph, self.constant, self.evaluated, compile_time):
            self.report.rewrites["constant_index"] += count
        if count := rw.bounds_by_constants(graph, self.constant, self.evaluated):
            self.report.rewrites["bound_by_constant"] += count
        if count := rw.indexed_dimensions_first(graph):
            self.report.rewrites["indexed_dimension_first"] += count
        graph.eliminate_dead_code()
        self.constant &= set(graph.nodes)
        return graph

    @staticmethod
    def _is_constant_input(spec: Any) -> bool:
        return spec.kind == InputKind.CONSTANT_TENSOR or (
            spec.kind == InputKind.BUFFER and not spec.persistent)

    def _input_data(self, spec: Any) -> torch.Tensor:
        if spec.target in self.ep.constants:
            return self.ep.constants[spec.target]
        return self.ep.state_dict[spec.target]

    # -- emission ------------------------------------------------------------
    def emit(self, graph: fx.Graph) -> ir.Module:
        placeholders = [n for n in graph.nodes if n.op == "placeholder" and n.users]
        args = [n for n in placeholders if n not in self.constant]
        # User inputs first, then weights, each in graph order.
        args.sort(key=lambda n: self.placeholder_kind[n].kind != InputKind.USER_INPUT)
        output = next(n for n in graph.nodes if n.op == "output")
        results = [r for r in fx.node.map_aggregate(output.args[0], lambda x: x)
                   ] if isinstance(output.args[0], (list, tuple)) else [output.args[0]]
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(self.options.function_name,
                             ([_tensor_type(n.meta["val"]) for n in args],
                              [_tensor_type(r.meta["val"]) for r in results]))
            arg_attrs = []
            for n in args:
                spec = self.placeholder_kind[n]
                if spec.kind == InputKind.USER_INPUT:
                    arg_attrs.append(ir.DictAttr.get({"nn.input": ir.StringAttr.get(n.name)}))
                else:
                    arg_attrs.append(ir.DictAttr.get({"nn.param": ir.StringAttr.get(spec.target)}))
            fn.arg_attrs = ir.ArrayAttr.get(arg_attrs)
            block = fn.add_entry_block()
            for n, value in zip(args, block.arguments):
                self.values[n] = [value]
            with ir.InsertionPoint(block):
                for node in graph.nodes:
                    if node.op != "call_function" or node in self.values:
                        continue
                    if node in self.constant:
                        continue  # emitted on first use by a non-constant node
                    self._emit_node(node)
                func.ReturnOp([self._value(r) for r in results])
        return module

    def _value(self, node: Any) -> ir.Value:
        if node in self.constant and node not in self.values:
            if node.op == "call_function" and node.target in rw.LAYOUT_TARGETS:
                # A view of a constant stays a view op, so that several views
                # of one table (RoPE's per-layer cos/sin) share one constant.
                self._emit_node(node)
            else:
                tensor = rw.evaluate(node, self.evaluated)
                # A split of a constant (GPT-J's sin and cos halves) is
                # several tensors, one constant each.
                tensors = list(tensor) if isinstance(tensor, (list, tuple)) else [tensor]
                with ir.Location.name(node.name):
                    self.values[node] = [nn.ConstantOp(_constant_attr(t)).result for t in tensors]
        if node.op == "call_function" and node.target is operator.getitem:
            src, index = node.args
            return self._values(src)[index]
        return self._values(node)[0]

    def _values(self, node: fx.Node) -> list[ir.Value]:
        if node not in self.values:
            self._value(node)
        return self.values[node]

    def _emit_node(self, node: fx.Node) -> None:
        if node.target is operator.getitem:
            return  # resolved when used
        types = _result_types(node)
        kwargs = self._normalise(node)
        rule = conv.RULES.get(node.target)
        op = None
        with ir.Location.name(node.name):
            if rule is not None and (rule.accepts is None or rule.accepts(node)):
                op = self._build(rule, kwargs, types)
            if op is None:
                op = self._generic(node, kwargs, types)
        self.values[node] = list(op.results)

    def _normalise(self, node: fx.Node) -> dict[str, Any]:
        names = conv.schema_arguments(node.target)
        kwargs: dict[str, Any] = {}
        for i, (name, default) in enumerate(names):
            if i < len(node.args):
                kwargs[name] = node.args[i]
            elif name in node.kwargs:
                kwargs[name] = node.kwargs[name]
            else:
                kwargs[name] = default
        return kwargs

    def _build(self, rule: conv.Rule, kwargs: dict[str, Any], types: list[ir.Type]) -> Any:
        kw: dict[str, Any] = {}
        for name, value in kwargs.items():
            new = rule.rename.get(name, name)
            if new is None:
                continue
            if isinstance(value, fx.Node):
                value = self._value(value)
            elif isinstance(value, (list, tuple)) and value and all(
                    isinstance(v, fx.Node) for v in value):
                value = [self._value(v) for v in value]
            kw["self_" if new == "self" else new] = value
        if rule.adapt is not None:
            kw = rule.adapt(kw, types)
            if kw is None:
                return None
        kw = {k: v for k, v in kw.items() if v is not None or k in ("bias",)}
        return rule.op(**kw, results=types) if _takes_results(rule.op) else rule.op(**kw)

    def _generic(self, node: fx.Node, kwargs: dict[str, Any], types: list[ir.Type]) -> Any:
        name = conv.target_name(node.target)
        # Strict mode names the first node of an operator the import's
        # folds (token-id arithmetic) leave generic: import_program decides.
        self.first_generic.setdefault(name, node.name)
        self.report.generic[name] += 1
        operands, ports, params = [], [], {}
        for arg, value in kwargs.items():
            if isinstance(value, fx.Node):
                operands.append(self._value(value))
                ports.append(arg)
            elif isinstance(value, (list, tuple)) and any(isinstance(v, fx.Node) for v in value):
                for i, v in enumerate(value):
                    if isinstance(v, fx.Node):
                        operands.append(self._value(v))
                        ports.append(f"{arg}[{i}]")
            elif value is not None and (attr := _param_attr(value)) is not None:
                params[arg] = attr
        return nn.AtenOp(types, name, operands,
                         input_ports=ir.ArrayAttr.get([ir.StringAttr.get(p) for p in ports]),
                         params=ir.DictAttr.get(params) if params else None)


def _takes_results(op_class: type) -> bool:
    import inspect
    return "results" in inspect.signature(op_class.__init__).parameters


def import_program(ep: torch.export.ExportedProgram, options: ImportOptions | None = None,
                   context: ir.Context | None = None) -> tuple[ir.Module, ImportReport]:
    """Imports ``ep`` as an ``nn`` module (in ``context``, or a new one).

    Returns the verified module and a report of the recognised patterns and
    the operators kept as ``nn.aten``. Raises UnsupportedOperatorError in
    strict mode when an operator has no ``nn`` op.
    """
    options = options or ImportOptions()
    for node in ep.graph.nodes:
        val = node.meta.get("val") if node.op == "placeholder" else None
        if isinstance(val, torch.Tensor) and not all(isinstance(d, int) for d in val.shape):
            raise ExportError(f"input '{node.name}' has a dynamic shape {list(val.shape)}: "
                              f"export with static shapes (no dynamic_shapes)")
    context = context or raptor.Context()
    emitter = _Emitter(ep, options)
    with context, ir.Location.unknown():
        graph = emitter.prepare()
        module = emitter.emit(graph)
        if not module.operation.verify():
            raise ValueError("imported module does not verify")
        # (always: a function of the ids may be an integer op with an nn op)
        try:
            left, positions = token_arithmetic.fold(module)
        except token_arithmetic.TokenTableError as e:
            raise UnsupportedOperatorError(str(e)) from None
        emitter.report.generic = left
        if positions:
            emitter.report.rewrites["token_positions"] += positions
        if options.strict and left:
            name = next(n for n in emitter.first_generic if n in left)
            raise UnsupportedOperatorError(
                f"{name} (node '{emitter.first_generic[name]}') has no nn op"
                f"{token_arithmetic.integer_input_note(module, [name])}; import without strict mode to keep it "
                f"as nn.aten")
    return module, emitter.report


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: " + (text[:300] + "..." if len(text) > 300 else text)


def import_module(model: torch.nn.Module, example_inputs: Any, options: ImportOptions | None = None,
                  context: ir.Context | None = None, use_cache: bool = False
                  ) -> tuple[ir.Module, ImportReport, dict[str, np.ndarray]]:
    """Exports ``model`` on ``example_inputs`` (a tensor or a tuple of them)
    with ``torch.export`` (static shapes, eval mode, no gradients), applies
    Raptor's decompositions and imports the result.

    A model with a ``config.use_cache`` flag (Hugging Face decoders) is
    exported with the flag off unless ``use_cache`` is set, so that no
    KV-cache object reaches the graph. Returns the module, the import report
    and the weights (``nn.param`` name -> array, as
    :func:`raptor.weights.from_exported_program`). Raises ExportError when
    torch cannot export or decompose the model.
    """
    from raptor import weights as weights_io
    from raptor.zoo import decomposition_table

    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    config = getattr(model, "config", None)
    saved = getattr(config, "use_cache", None)
    was_training = model.training
    model.eval()
    try:
        if saved is not None and not use_cache:
            config.use_cache = False
        with torch.no_grad():
            try:
                ep = torch.export.export(model, example_inputs, strict=False)
            except Exception as e:  # torch raises many kinds here
                raise ExportError(f"torch.export failed: {_one_line(e)}") from None
            try:
                ep = ep.run_decompositions(decomposition_table())
            except Exception as e:
                raise ExportError(f"torch could not decompose the exported program: {_one_line(e)}") from None
    finally:
        if saved is not None:
            config.use_cache = saved
        model.train(was_training)
    module, report = import_program(ep, options, context)
    return module, report, weights_io.from_exported_program(ep, module)
