"""Model arguments of the ``raptor`` command: a zoo name, a ``.pt2`` file
(``torch.export.save``), an ``.onnx`` file (onnxruntime is its reference)
or IR (an ``.mlir`` file with its ``.safetensors``). Every command that
takes a model resolves it here, so that each kind is read, imported and
reported on in one way.

    from raptor import sources
    model = sources.load("resnet18.pt2")       # or "shufflenet_v2", "model.mlir"
    model.module, model.weights, model.reference(x)
    model = sources.load("m.onnx", input_shapes={"x": [1, 3, 224, 224]}, strict=True, weights_as="arrays")
    model.tensors, model.report.generic         # what `raptor import` writes and says
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, Optional

import numpy as np
from mlir import ir

import raptor

from . import weights as weights_io
from . import zoo
from ._io import UserError, parse_module, read_text, signals_held

__all__ = ["ImportReport", "Model", "Reference", "WeightsAs", "load", "onnxruntime_session"]

#: How :func:`load` hands over the weights: as a file (``Model.weights``),
#: as arrays (``Model.tensors``) or not at all (None: the graph alone).
WeightsAs = Optional[Literal["file", "arrays"]]

#: The model itself (eager torch, onnxruntime) on its inputs, given in the
#: program's order: every output, in the order of the program's (a tuple's
#: elements, a transformers output class's fields that are set).
Reference = Callable[..., list[np.ndarray]]


@dataclass(frozen=True)
class ImportReport:
    """What importing a model file (or exporting a zoo model) did."""

    #: Operators kept as the generic ``nn.aten`` op, by name.
    generic: Counter[str]
    #: torch: the patterns recognised (RMSNorm, rotary embeddings, ...).
    rewrites: Counter[str] = field(default_factory=Counter)
    #: ONNX: the model's default operator set and the constant nodes folded.
    opset: int | None = None
    folded: int | None = None

    @property
    def notes(self) -> str:
        """The frontend's own figures in one phrase, for progress lines."""
        if self.opset is not None:
            return f"opset {self.opset}, {self.folded} constant nodes folded"
        return f"recognised: {dict(+self.rewrites) or 'none'}"


@dataclass
class Model:
    """A model ready for the compiler."""

    module: ir.Module
    #: The safetensors file of its nn.param weights (None: it has none, or
    #: they were asked for as arrays or not at all).
    weights: Path | None
    #: What the model argument named (for messages and the manifest).
    source: str
    #: The model itself on an input: eager torch, or onnxruntime for an
    #: ONNX file (None when only IR is known).
    reference: Reference | None = None
    #: Temporary files to delete when done.
    temporary: list[Path] = field(default_factory=list)
    #: The weights by nn.param name, when asked for as arrays.
    tensors: dict[str, np.ndarray] | None = None
    #: What the import did (None for IR: a bundled graph or an .mlir file).
    report: ImportReport | None = None

    @property
    def reference_name(self) -> str:
        """What :attr:`reference` runs: onnxruntime for an ONNX file, else torch."""
        return "onnxruntime" if self.source.endswith(".onnx") else "torch"

    def cleanup(self) -> None:
        """Deletes the temporary files (an imported model's weights file)."""
        for path in self.temporary:
            path.unlink(missing_ok=True)


def onnxruntime_session(model: str | bytes) -> Any:
    """An onnxruntime CPU session of ``model`` (a path or the serialized
    model) that runs the graph as written: onnxruntime's graph rewrites are
    not all exact (1.31 folds a Pad of 0 into a following MaxPool, whose
    own padding is -inf, so BiT's stem reads negative maxima where the model
    pads with 0), and a reference must be the model's meaning, not a
    rewrite of it."""
    try:
        import onnxruntime
    except ImportError as e:
        raise UserError(f"checking against onnxruntime needs it installed ({e.name} is missing)") from None
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def load(source: str, weights: str | None = None, context: ir.Context | None = None,
         progress: Callable[[str], None] | None = None, *, strict: bool = False,
         input_shapes: Mapping[str, Sequence[int]] | None = None, export: bool = False,
         weights_as: WeightsAs = "file") -> Model:
    """Resolves a model argument; raises UserError with a one-line reason.

    A zoo name is its bundled graph with fixed-seed weights or, with
    ``export``, the model built and exported with torch (as ``raptor
    import`` does). A ``.pt2`` or ``.onnx`` file is imported; ``strict``
    makes an operator without a typed ``nn`` op an error, ``input_shapes``
    gives static sizes to an ONNX model's dynamic inputs (None: the caller
    has no way to give them, and a failed import says to use ``raptor
    import --input-shape`` first). An ``.mlir`` file, ``-`` (stdin) or any
    other existing file is read as IR; ``weights`` overrides its weights
    file (default: the ``.safetensors`` beside it) or a zoo graph's.

    ``weights_as`` chooses how the weights come: ``"file"`` as
    ``Model.weights`` (an imported model's in a temporary file that
    ``cleanup`` removes), ``"arrays"`` as ``Model.tensors``, None not at
    all (nothing read or written beyond the graph; a zoo graph then needs
    no torch). ``progress`` receives each step as a phrase ("loading m.pt2").
    """
    if weights_as not in ("file", "arrays", None):
        raise ValueError(f"weights_as is 'file', 'arrays' or None, not {weights_as!r}")
    say = progress or (lambda _: None)
    context = context or raptor.Context()
    path = Path(source)
    if source in zoo.NAMES and not export:
        return _bundled(source, weights, context, say, weights_as)
    if source in zoo.NAMES:
        module, tensors, report = _export_zoo(source, strict, context, say)
        reference = _zoo_reference(source)
    elif path.suffix in (".pt2", ".onnx"):
        if not path.is_file():
            raise UserError(f"cannot read '{source}': no such file")
        if path.suffix == ".pt2":
            module, tensors, report, reference = _import_pt2(source, strict, context, say)
        else:
            module, tensors, report, reference = _import_onnx(source, strict, input_shapes, context, say)
    elif path.suffix == ".mlir" or source == "-" or path.is_file():  # IR, whatever the file's name
        return _parse_ir(source, weights, context, weights_as)
    else:
        names = ", ".join(zoo.NAMES)
        raise UserError(f"unknown model '{source}': expected a zoo name ({names}), a .pt2, .onnx or .mlir file")
    model = Model(module, None, source, reference, report=report)
    if weights_as == "arrays":
        model.tensors = tensors
    elif weights_as == "file":
        fd, tmp = tempfile.mkstemp(prefix="raptor-", suffix=".safetensors")
        os.close(fd)
        model.weights = Path(tmp)
        model.temporary.append(model.weights)
        try:
            weights_io.save(model.weights, tensors)
        except BaseException:
            model.cleanup()
            raise
    return model


def _bundled(name: str, weights: str | None, context: ir.Context, say: Callable[[str], None],
             weights_as: WeightsAs) -> Model:
    """A zoo model's bundled graph (no torch needed for the graph alone)."""
    say(f"{name}: bundled graph, fixed-seed weights")
    module = zoo.load_graph(name, context)
    file = None if weights_as is None else Path(weights) if weights else zoo.weights_file(name)
    return _with_file(Model(module, None, name, _zoo_reference(name)), file, weights_as)


def _parse_ir(source: str, weights: str | None, context: ir.Context, weights_as: WeightsAs) -> Model:
    """IR text and the weights file it names (given, or beside it)."""
    module = parse_module(read_text(source), source, context)
    if weights_as is None:
        return Model(module, None, source)
    file = Path(weights) if weights else (weights_io.beside(source) if source != "-" else None)
    if file is not None and not file.is_file():
        if weights_io.param_names(module):
            raise UserError(f"'{source}' names weights but '{file}' does not exist "
                            "(give --weights FILE.safetensors)")
        file = None
    return _with_file(Model(module, None, source), file, weights_as)


def _with_file(model: Model, file: Path | None, weights_as: WeightsAs) -> Model:
    """``model`` with its weights from ``file`` (None: it has none)."""
    if weights_as == "file":
        model.weights = file
    elif weights_as == "arrays":
        model.tensors = weights_io.load(file) if file is not None else {}
    return model


class _Collected(logging.Handler):
    """A library logger's warnings, kept instead of printed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        trace = logging.Formatter().formatException(record.exc_info) if record.exc_info else ""
        self.messages.append(f"{record.getMessage()}\n{trace}")


def _unregistered_operator(messages: Sequence[str]) -> str | None:
    """The operator (``namespace.name.overload``) torch could not resolve
    while deserializing an exported program, if its log names one: a
    custom operator whose library is not loaded."""
    for message in messages:
        if found := re.search(r"failed to resolve torch\.ops\.([\w.]+) to an operator", message):
            return found.group(1)
    return None


#: Libraries whose output types (transformers' ``ModelOutput`` classes) an
#: exported program may name, registered with torch's pytree only when the
#: library is imported: imported to read such a file, and no other.
_PYTREE_LIBRARIES = ("transformers",)


def _unregistered_output_module(messages: Sequence[str]) -> str | None:
    """The module (of a library in :data:`_PYTREE_LIBRARIES`) defining the
    output type torch could not rebuild while deserializing, if its log
    names one (importing the module registers the type)."""
    for message in messages:
        if found := re.search(r"Deserializing ([\w.]+) in pytree is not registered", message):
            module = found.group(1).rpartition(".")[0]
            return module if module.split(".")[0] in _PYTREE_LIBRARIES else None
    return None


def _custom_operator_error(source: str, operator: str, defined: str) -> UserError:
    """A custom operator Raptor has no lowering for, in one line; for
    transformers' (the routed experts' grouped product) the way out."""
    hint = (" (transformers' routed mixture-of-experts layers: export the model after "
            "raptor.frontend.experts.dense_experts(model))" if operator.startswith("transformers.") else "")
    return UserError(f"'{source}' calls the custom operator {operator}, which {defined} and Raptor cannot "
                     f"lower{hint}")


def _one_line(e: BaseException) -> str:
    """An exception of a frontend's dependency (torch, onnx) as one line.
    The type is named, except for a failed assertion of the dependency's
    own checks (torch's archive reader asserts on a damaged file), whose
    name would read as a crash of Raptor's."""
    text = " ".join(str(e).split())[:300]
    if isinstance(e, AssertionError) and text:
        return text
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


# -- torch ---------------------------------------------------------------------

#: What the torch importer gives: (module, weights by nn.param name, report).
_Imported = tuple[ir.Module, dict[str, np.ndarray], ImportReport]


# torch's C++ calls back into Python (the dispatcher, the exporter's
# tracing): a KeyboardInterrupt raised inside such a callback is thrown
# through C++ frames that cannot pass it on, and the process aborts
# ("terminate called after throwing an instance of
# 'pybind11::error_already_set'"). So torch's work runs with SIGINT and
# SIGTERM held, one call at a time: a signal is delivered when the call
# returns, as a KeyboardInterrupt the command turns into exit 130.


def _torch_frontend() -> ModuleType:
    try:
        with signals_held():
            from .frontend import torch as frontend
    except ImportError as e:
        raise UserError(f"the torch frontend needs the 'torch' extra ({e.name} is missing)") from None
    return frontend


def _zoo_reference(name: str) -> Reference:
    """Eager torch on the zoo model ``name`` (built when first called)."""
    def reference(x: np.ndarray) -> list[np.ndarray]:
        try:
            import torch
        except ImportError as e:
            raise UserError(f"this needs the 'torch' extra ({e.name} is missing)") from None
        with signals_held():
            return [zoo.reference_output(name, torch.from_numpy(x)).numpy()]

    return reference


def _import_program(ep: Any, source: str, options: Any, context: ir.Context) -> _Imported:
    """An exported program (decomposed) as (module, weights, report)."""
    frontend = _torch_frontend()
    try:
        with signals_held():
            module, report = frontend.import_program(ep, options, context)
    except (frontend.UnsupportedOperatorError, frontend.ExportError) as e:
        raise UserError(f"{source}: {e}") from None
    except ir.MLIRError as e:  # an operator whose nn op refuses what torch exported
        diagnostics = e.error_diagnostics
        detail = f"{diagnostics[0].location}: {diagnostics[0].message}" if diagnostics else _one_line(e)
        raise UserError(f"{source}: the nn graph does not verify: {detail}") from None
    tensors = weights_io.from_exported_program(ep, module)
    return module, tensors, ImportReport(report.generic, rewrites=report.rewrites)


def _export_zoo(name: str, strict: bool, context: ir.Context, say: Callable[[str], None]) -> _Imported:
    frontend = _torch_frontend()
    say(f"building and exporting {name} with torch.export")
    with signals_held():
        ep = zoo.export(name)
    say("importing into the nn dialect")
    return _import_program(ep, name, frontend.ImportOptions(strict=strict, **zoo.import_options(name)), context)


def _import_pt2(source: str, strict: bool, context: ir.Context,
                say: Callable[[str], None]) -> tuple[ir.Module, dict[str, np.ndarray], ImportReport, Reference]:
    """A torch.export.save file: (module, weights, report, reference)."""
    frontend = _torch_frontend()
    with signals_held():
        import torch

    say(f"loading {source}")
    # torch logs why a file does not deserialize (with a traceback) and
    # raises a bare "error when deserializing": the log is kept, not printed.
    export_log, collected = logging.getLogger("torch.export"), _Collected()
    level, propagate, handlers = export_log.level, export_log.propagate, export_log.handlers
    export_log.setLevel(logging.WARNING)
    export_log.propagate = False
    export_log.handlers = [collected]

    def load() -> tuple[Any, Any]:
        with signals_held():
            ep = torch.export.load(source)
            # The reference: the program as saved, before the decompositions
            # (a damaged archive can load and fail only here).
            return ep, ep.module()

    try:
        try:
            ep, eager = load()
        except Exception:
            # A model returning transformers' output classes (`.logits`
            # and the rest) loads once transformers has registered them.
            if not (module := _unregistered_output_module(collected.messages)):
                raise
            library = module.split(".")[0]
            say(f"importing {module}: {source} returns one of its output types")
            for name in (library, module):  # (the library first: not installed, or the module missing)
                try:
                    with signals_held():
                        importlib.import_module(name)
                except ImportError as e:
                    why = f"{library} is not installed" if name == library else f"{module} does not import ({e})"
                    raise UserError(f"'{source}' returns an output type of {module}, and {why}: install it, or "
                                    f"export a model whose forward returns tensors") from None
            collected.messages.clear()
            ep, eager = load()
    except UserError:
        raise
    except Exception as e:
        if operator := _unregistered_operator(collected.messages):
            raise _custom_operator_error(source, operator, "no loaded library defines") from None
        raise UserError(f"'{source}' is not a torch.export file: {_one_line(e)}") from None
    finally:
        export_log.handlers = handlers
        export_log.setLevel(level)
        export_log.propagate = propagate
    # (With the library loaded, as in a session that exported the model.)
    for node in ep.graph.nodes:
        if node.op == "call_function" and str(node.target).startswith("transformers."):
            raise _custom_operator_error(source, str(node.target), "its library defines")
    try:
        with signals_held():
            decomposed = ep.run_decompositions(zoo.decomposition_table())
    except Exception as e:  # torch raises many kinds here
        raise UserError(f"{source}: torch could not decompose the exported program: {_one_line(e)}") from None
    say("importing into the nn dialect")
    module, tensors, report = _import_program(decomposed, source, frontend.ImportOptions(strict=strict), context)

    # The program as saved takes its inputs as exported: each tensor in its
    # own dtype (token ids reach the host as float32, as the simulator takes
    # them), the arguments exported as constants (`use_cache=False`) again,
    # positional and keyword arguments as the export received them.
    constant = torch.export.graph_signature.ConstantArgument
    user_args = [spec.arg for spec in ep.graph_signature.input_specs
                 if spec.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    dtypes = {n.name: n.meta["val"].dtype for n in ep.graph.nodes
              if n.op == "placeholder" and isinstance(n.meta.get("val"), torch.Tensor)}
    tensor_names = [arg.name for arg in user_args if not isinstance(arg, constant)]

    def reference(*xs: np.ndarray) -> list[np.ndarray]:
        if len(xs) != len(tensor_names):
            raise UserError(f"'{source}' takes {len(tensor_names)} input(s), {len(xs)} given")
        given = dict(zip(tensor_names, xs))
        leaves = [arg.value if isinstance(arg, constant) else
                  torch.from_numpy(np.ascontiguousarray(given[arg.name])).to(dtypes.get(arg.name, torch.float32))
                  for arg in user_args]
        args, kwargs = torch.utils._pytree.tree_unflatten(leaves, ep.call_spec.in_spec)
        with torch.no_grad(), signals_held():
            out = eager(*args, **kwargs)
        # The outputs flattened as the exported graph's are.
        return [leaf.detach().numpy() for leaf in torch.utils._pytree.tree_leaves(out)]

    return module, tensors, report, reference


# -- ONNX ----------------------------------------------------------------------

def _import_onnx(source: str, strict: bool, input_shapes: Mapping[str, Sequence[int]] | None,
                 context: ir.Context, say: Callable[[str], None]
                 ) -> tuple[ir.Module, dict[str, np.ndarray], ImportReport, Reference]:
    """An ONNX file: (module, weights, report, reference)."""
    try:
        import onnx  # noqa: F401  (the frontend imports it only once it runs)

        from .frontend import onnx as frontend
    except ImportError as e:
        raise UserError(f"the ONNX frontend needs the 'onnx' package ({e.name} is missing)") from None
    say(f"loading {source}")
    try:
        proto = frontend.load_model(source)
    except frontend.OnnxImportError as e:
        raise UserError(str(e)) from None
    say("importing into the nn dialect")
    try:
        module, report, tensors = frontend.import_model(proto, input_shapes, strict=strict, context=context)
    except frontend.DynamicShapeError as e:
        if input_shapes is not None:
            raise UserError(f"{source}: {e}") from None
        # Only `raptor import` takes --input-shape: the other commands say how to use it.
        raise UserError(f"{source}: input '{e.input}' has a dynamic shape: import it with static sizes first, "
                        f"`raptor import {source} --input-shape {e.input}={e.sizes} -o model.mlir`") from None
    except frontend.OnnxImportError as e:
        raise UserError(f"{source}: {e}") from None

    def reference(*xs: np.ndarray) -> list[np.ndarray]:
        session = onnxruntime_session(source)
        feeds = session.get_inputs()
        if len(xs) != len(feeds):
            raise UserError(f"'{source}' takes {len(feeds)} input(s), {len(xs)} given")
        integers = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}  # token ids
        return list(session.run(None, {feed.name: x.astype(integers[feed.type]) if feed.type in integers else x
                                       for feed, x in zip(feeds, xs)}))

    return module, tensors, ImportReport(report.generic, opset=report.opset, folded=report.folded), reference
