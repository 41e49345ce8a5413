#!/usr/bin/env python3
"""Benchmark: which models import with no generic op, from torch.export and ONNX.

For each model (built here with random weights, never downloaded) it
exports with ``torch.export``, imports the program in strict mode, then
exports the same model with ``torch.onnx.export`` and imports the ONNX file
in strict mode. It records the nn ops, the generic ops (a strict failure
names them; they are counted by a non-strict import), the import time, and
checks the imported output shapes against eager torch (torch) and against
onnxruntime (ONNX). Writes a Markdown table and JSON:

    python bench/import_coverage.py [--models resnet18,swin_t] [--skip-onnx]
        [--markdown docs/frontend-coverage.md] [--json docs/frontend-coverage.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import torch
import torchvision

import raptor
from raptor._io import write_atomically
from raptor.frontend import onnx as onnx_frontend
from raptor.frontend.torch import ImportOptions, UnsupportedOperatorError, import_program
from raptor.zoo import decomposition_table

ROOT = Path(__file__).resolve().parent.parent
#: torch.onnx.export's TorchScript exporter's default opset (GELU as Erf).
OPSET = 17


def _vision(name: str, size: int = 224) -> Callable[[], tuple[torch.nn.Module, tuple]]:
    def build() -> tuple[torch.nn.Module, tuple]:
        return getattr(torchvision.models, name)(weights=None), (torch.randn(1, 3, size, size),)
    return build


def _video(name: str) -> Callable[[], tuple[torch.nn.Module, tuple]]:
    """A torchvision video classifier on a clip of 8 frames of 112 x 112."""
    def build() -> tuple[torch.nn.Module, tuple]:
        return getattr(torchvision.models.video, name)(weights=None), (torch.randn(1, 3, 8, 112, 112),)
    return build


class _FromIds(torch.nn.Module):
    """A transformers model given only token ids: one of its outputs."""

    def __init__(self, model: torch.nn.Module, output: str) -> None:
        super().__init__()
        self.model, self.output = model, output

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return getattr(self.model(input_ids=ids), self.output)


def _bert() -> tuple[torch.nn.Module, tuple]:
    import transformers

    config = transformers.BertConfig(num_hidden_layers=4, attn_implementation="eager")
    model = transformers.BertModel(config, add_pooling_layer=True)
    return _FromIds(model, "pooler_output"), (torch.randint(0, config.vocab_size, (1, 32)),)


def _esm() -> tuple[torch.nn.Module, tuple]:
    """ESM-2's token dropout computes on the ids: the mask token's
    embedding zeroed, the mask tokens counted (ESM-2's vocabulary of 33)."""
    import transformers

    config = transformers.EsmConfig(vocab_size=33, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                                    intermediate_size=256, max_position_embeddings=64, pad_token_id=1,
                                    mask_token_id=32, token_dropout=True, position_embedding_type="rotary")
    model = transformers.EsmModel(config, add_pooling_layer=False)
    return _FromIds(model, "last_hidden_state"), (torch.randint(0, config.vocab_size, (1, 32)),)


def _decoder(kind: str) -> Callable[[], tuple[torch.nn.Module, tuple]]:
    def build() -> tuple[torch.nn.Module, tuple]:
        import transformers

        if kind == "gpt2":
            config = transformers.GPT2Config(n_layer=2, n_embd=256, n_head=4, use_cache=False)
            model = transformers.GPT2Model(config)
        else:
            config = transformers.LlamaConfig(
                vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2, use_cache=False)
            model = transformers.LlamaModel(config)

        class Decoder(torch.nn.Module):
            #: The TorchScript ONNX exporter cannot export transformers'
            #: packed-sequence check (aten::diff) that runs without a mask.
            explicit_mask = False

            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, ids: torch.Tensor) -> torch.Tensor:
                mask = torch.ones_like(ids) if self.explicit_mask else None
                return self.model(input_ids=ids, attention_mask=mask, use_cache=False).last_hidden_state

        return Decoder(), (torch.randint(0, config.vocab_size, (1, 32)),)
    return build


MODELS: dict[str, Callable[[], tuple[torch.nn.Module, tuple]]] = {
    "resnet18": _vision("resnet18"),
    "mobilenet_v2": _vision("mobilenet_v2"),
    "mobilenet_v3_small": _vision("mobilenet_v3_small"),
    "efficientnet_b0": _vision("efficientnet_b0"),
    "squeezenet1_0": _vision("squeezenet1_0"),
    "mnasnet0_5": _vision("mnasnet0_5"),
    "regnet_y_400mf": _vision("regnet_y_400mf"),
    "densenet121": _vision("densenet121"),
    "convnext_tiny": _vision("convnext_tiny"),
    "vit_b_16": _vision("vit_b_16"),
    "swin_t": _vision("swin_t"),
    "r3d_18": _video("r3d_18"),
    "r2plus1d_18": _video("r2plus1d_18"),
    "bert": _bert,
    "esm": _esm,
    "gpt2": _decoder("gpt2"),
    "llama": _decoder("llama"),
}


def _ops(module) -> tuple[int, Counter[str]]:
    summary = raptor.graph_summary(module)["functions"][0]
    return summary["num_ops"], Counter(summary["generic_ops"])


def _shapes(module) -> list[list[int]]:
    from mlir import ir

    fn = next(op for op in module.body.operations if op.operation.name == "func.func")
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    return [list(ir.RankedTensorType(t).shape) for t in ftype.results]


def _torch_row(model: torch.nn.Module, inputs: tuple, directory: Path) -> dict:
    """Through a .pt2 file, as ``raptor import MODEL.pt2`` reads it."""
    with torch.no_grad():
        expected = model(*inputs)
        start = time.perf_counter()
        torch.export.save(torch.export.export(model, inputs, strict=False), directory / "model.pt2")
        export_s = time.perf_counter() - start
    ep = torch.export.load(directory / "model.pt2").run_decompositions(decomposition_table())
    start = time.perf_counter()
    try:
        module, _ = import_program(ep, ImportOptions(strict=True))
        strict = "ok"
    except UnsupportedOperatorError as e:
        strict = str(e)
        module, _ = import_program(ep, ImportOptions(strict=False))
    import_s = time.perf_counter() - start
    ops, generic = _ops(module)
    outs = expected if isinstance(expected, (tuple, list)) else (expected,)
    shapes_ok = _shapes(module) == [list(o.shape) for o in outs]
    return {"ops": ops, "generic": dict(generic), "strict": strict, "export_s": round(export_s, 2),
            "import_s": round(import_s, 2), "shapes_match_torch": shapes_ok}


def _onnx_row(model: torch.nn.Module, inputs: tuple, directory: Path) -> dict:
    """Through an .onnx file, as ``raptor import MODEL.onnx`` reads it."""
    import onnxruntime

    path = directory / "model.onnx"
    if hasattr(model, "explicit_mask"):
        model.explicit_mask = True
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, path, dynamo=False, opset_version=OPSET,
                          input_names=[f"input{i}" for i in range(len(inputs))])
    export_s = time.perf_counter() - start
    start = time.perf_counter()
    proto = onnx_frontend.load_model(path)
    try:
        module, _, _ = onnx_frontend.import_model(proto, strict=True)
        strict = "ok"
    except onnx_frontend.UnsupportedOperatorError as e:
        strict = str(e)
        module, _, _ = onnx_frontend.import_model(proto, strict=False)
    import_s = time.perf_counter() - start
    ops, generic = _ops(module)
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)}
    outs = session.run(None, feeds)
    shapes_ok = _shapes(module) == [list(o.shape) for o in outs]
    return {"ops": ops, "generic": dict(generic), "strict": strict, "export_s": round(export_s, 2),
            "import_s": round(import_s, 2), "shapes_match_onnxruntime": shapes_ok}


def _generic_text(row: dict) -> str:
    if "error" in row:
        return "error: " + row["error"]
    if not row["generic"]:
        return "0"
    total = sum(row["generic"].values())
    return f"{total} ({', '.join(f'{k} {v}' for k, v in sorted(row['generic'].items()))})"


def _markdown(rows: dict, skip_onnx: bool) -> str:
    lines = [
        "# Frontend coverage",
        "",
        "Models built with random weights (`weights=None`, transformers configurations), "
        "saved with `torch.export.save` and imported from the `.pt2` file in strict mode, and "
        f"exported with `torch.onnx.export` (TorchScript exporter, opset {OPSET}) and imported "
        "from the `.onnx` file in strict mode. *ops*: nn ops of the imported "
        "graph; *generic*: ops kept as `nn.aten` by a non-strict import (0 means the "
        "strict import succeeded); *import*: seconds to the verified nn module, from the "
        "loaded and decomposed program (torch) or from the file (ONNX), export excluded; "
        "*shapes*: the imported graph's output shapes equal eager torch's "
        "(torch) or onnxruntime's (ONNX). Regenerate with `python bench/import_coverage.py`.",
        "",
        "| model | torch ops | torch generic | torch import (s) | shapes | ONNX ops | ONNX generic "
        "| ONNX import (s) | shapes |",
        "| --- | ---: | --- | ---: | --- | ---: | --- | ---: | --- |",
    ]
    for name, row in rows.items():
        t, o = row["torch"], row.get("onnx")
        cells = [name]
        if "error" in t:
            cells += ["-", _generic_text(t), "-", "-"]
        else:
            cells += [str(t["ops"]), _generic_text(t), f"{t['import_s']:.2f}",
                      "yes" if t["shapes_match_torch"] else "NO"]
        if skip_onnx or o is None:
            cells += ["-"] * 4
        elif "error" in o:
            cells += ["-", _generic_text(o), "-", "-"]
        else:
            cells += [str(o["ops"]), _generic_text(o), f"{o['import_s']:.2f}",
                      "yes" if o["shapes_match_onnxruntime"] else "NO"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Machine: {platform.machine()}, torch {torch.__version__}, "
              f"torchvision {torchvision.__version__}.", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated subset of: " + ", ".join(MODELS))
    parser.add_argument("--skip-onnx", action="store_true", help="torch.export imports only")
    parser.add_argument("--markdown", metavar="FILE",
                        help="also write the results as Markdown here (e.g. docs/frontend-coverage.md)")
    parser.add_argument("--json", metavar="FILE",
                        help="also write the results as JSON here (e.g. docs/frontend-coverage.json)")
    args = parser.parse_args()
    names = args.models.split(",") if args.models else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown models: {', '.join(unknown)}")
    rows: dict[str, dict] = {}
    for name in names:
        torch.manual_seed(0)
        model, inputs = MODELS[name]()
        model.eval()
        print(f"[{name}] torch.export ...", file=sys.stderr)
        row: dict = {}
        with tempfile.TemporaryDirectory() as tmp:
            try:
                row["torch"] = _torch_row(model, inputs, Path(tmp))
            except Exception as e:  # a model torch cannot export: recorded, not fatal
                row["torch"] = {"error": f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"}
            if not args.skip_onnx:
                print(f"[{name}] ONNX ...", file=sys.stderr)
                try:
                    row["onnx"] = _onnx_row(model, inputs, Path(tmp))
                except Exception as e:
                    row["onnx"] = {"error": f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"}
        rows[name] = row
        print(f"[{name}] {json.dumps(row)}", file=sys.stderr)
    if args.markdown:
        write_atomically(args.markdown, _markdown(rows, args.skip_onnx))
    if args.json:
        write_atomically(args.json, json.dumps(rows, indent=2) + "\n")
    print(_markdown(rows, args.skip_onnx))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
