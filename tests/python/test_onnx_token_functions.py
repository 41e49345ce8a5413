"""Functions of token ids in ONNX exports (passes/nn/TokenTables.h): BART's,
Marian's and T5's decoder ids (the ids shifted right by ScatterND) and ESM's
token dropout as the ONNX exporter gives it (``Equal`` of the ids with the
mask token, a ``Where`` on the embeddings, ``Cast`` and ``ReduceSum`` to
count the mask tokens) imports strictly and runs the whole flow: float32
against onnxruntime and eager torch, int8 against the integer reference,
on ids holding the mask token (so that the lookups' tables matter) and on
random ones. Its feed-forward GELU (``(x * 0.5) * (1 + erf(x / sqrt 2))``,
the halving first) is one ``nn.gelu``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import quant, sources

from pim_helpers import compile_source
from test_token_functions import MASK, MODELS, SPECIAL, VOCABULARY, _ids


@pytest.fixture(scope="module")
def esm(tmp_path_factory: pytest.TempPathFactory) -> tuple[torch.nn.Module, Path]:
    path = tmp_path_factory.mktemp("onnx-esm") / "esm.onnx"
    model = MODELS["esm"]().eval()
    with torch.no_grad():
        torch.onnx.export(model, (torch.from_numpy(_ids(1)),), str(path), input_names=["input_ids"], dynamo=False,
                          opset_version=17)
    return model, path


def test_the_export_computes_on_its_ids_and_imports_without_generic_ops(esm) -> None:
    import onnx

    _, path = esm
    ops = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert {"Equal", "Where", "ReduceSum", "Erf"} <= ops  # what the rewrites have to take
    imported = sources.load(str(path), strict=True)
    try:
        text = str(imported.module)
    finally:
        imported.cleanup()
    assert "nn.aten" not in text and "nn.where" not in text
    assert text.count("nn.gelu") == 1
    # Two tables of the vocabulary's rows: [id != MASK] for the select, [id == MASK] for the count.
    assert text.count("nn.embedding %") == 3  # the words', and the two tables'
    assert text.count(f"(tensor<{VOCABULARY}x1xf32>, tensor<1x12xi64>)") == 2


def test_float32_program_equals_onnxruntime_and_torch(esm, tmp_path: Path) -> None:
    model, path = esm
    program = compile_source(path, tmp_path / "f32")
    session = sources.onnxruntime_session(str(path))
    assert (SPECIAL == MASK).sum() == 2
    for ids in (SPECIAL, _ids(2)):
        (want,) = session.run(None, {"input_ids": ids.astype(np.int64)})
        with torch.no_grad():
            eager = model(torch.from_numpy(ids)).numpy()
        np.testing.assert_allclose(want, eager, rtol=1e-5, atol=1e-5)
        (got,) = program.simulate(ids).outputs.values()
        assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max()), ids


def test_the_mask_token_changes_the_output_as_onnxruntime_says(esm, tmp_path: Path) -> None:
    """Without the lookups' tables the two inputs below would give the
    same first row; with them, the mask tokens elsewhere scale every row."""
    _, path = esm
    program = compile_source(path, tmp_path / "f32")
    session = sources.onnxruntime_session(str(path))
    plain = SPECIAL.copy()
    plain[plain == MASK] = 4
    outputs = []
    for ids in (SPECIAL, plain):
        (want,) = session.run(None, {"input_ids": ids.astype(np.int64)})
        (got,) = program.simulate(ids).outputs.values()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))
        outputs.append(got)
    assert np.abs(outputs[0][0, 0] - outputs[1][0, 0]).max() > 1e-3


def test_int8_program_computes_the_integer_reference(esm, tmp_path: Path) -> None:
    model, path = esm
    program = compile_source(path, tmp_path / "int8", precision="int8")
    (got,) = program.simulate(SPECIAL).outputs.values()
    module = sources.load(str(tmp_path / "int8" / "reports" / "quantized_model.mlir"), weights_as=None).module
    imported = sources.load(str(path), weights_as="arrays")
    try:
        (reference,) = quant.reference(module, {"input_ids": SPECIAL.astype(np.float32)}, imported.tensors)
    finally:
        imported.cleanup()
    assert np.array_equal(got, reference)
    with torch.no_grad():
        want = model(torch.from_numpy(SPECIAL)).numpy()
    cosine = float(got.ravel() @ want.ravel() / (np.linalg.norm(got) * np.linalg.norm(want)))
    assert cosine >= 0.99, cosine


@pytest.mark.parametrize("halving_first", [True, False])
def test_an_erf_gelu_halving_its_input_first_is_one_gelu(halving_first: bool) -> None:
    """``(x * 0.5) * (1 + erf(x / sqrt 2))`` in either node order, against
    onnxruntime; a halving read by another node too is not fused."""
    import math

    from onnx import helper

    from raptor.frontend.onnx import UnsupportedOperatorError, import_model

    from test_defaults_onnx import _init
    from test_onnx_frontend import _check, _model, _op_names, _tensor

    init = [_init("half", np.array(0.5, np.float32)), _init("root2", np.array(math.sqrt(2), np.float32)),
            _init("one", np.array(1.0, np.float32))]
    halve = helper.make_node("Mul", ["x", "half"], ["h"])
    erf = [helper.make_node("Div", ["x", "root2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
           helper.make_node("Add", ["e", "one"], ["a"])]
    nodes = [halve, *erf] if halving_first else [*erf, halve]
    x = np.random.default_rng(7).standard_normal((2, 5)).astype(np.float32)
    fused = _model(nodes + [helper.make_node("Mul", ["h", "a"], ["y"])], [_tensor("x", [2, 5])],
                   [_tensor("y", [2, 5])], init)
    module = _check(fused.SerializeToString(), x, expect={"nn.gelu"})
    assert "nn.mul" not in _op_names(module)
    # The halved input is also an output: not a GELU (its Erf stays, which a strict import names).
    shared = _model(nodes + [helper.make_node("Mul", ["h", "a"], ["y"])], [_tensor("x", [2, 5])],
                    [_tensor("y", [2, 5]), _tensor("h", [2, 5])], init)
    with pytest.raises(UnsupportedOperatorError, match=r"Erf \(1"):
        import_model(shared, strict=True)


@pytest.mark.parametrize("name", ["bart", "marian", "t5"])
def test_decoder_ids_shifted_by_scatters_run_from_onnx(tmp_path: Path, name: str) -> None:
    """An encoder-decoder given only ids shifts them right into its decoder
    ids; the ONNX exporter writes the shift as two ``ScatterND`` and
    ``-100`` replaced by the padding as ``Equal`` and ``Where``: the
    decoder's embedding becomes the start token's row and a slice of the
    ids' lookup. BART's and Marian's decoders also guard their causal
    softmax against NaN (``Where(IsNaN(p), 0, p)``), which guards nothing
    there. Float32 against onnxruntime and eager torch, on ids holding the
    padding, start and mask tokens and on random ones."""
    import onnx

    path = tmp_path / f"{name}.onnx"
    model = MODELS[name]().eval()
    with torch.no_grad():
        torch.onnx.export(model, (torch.from_numpy(_ids(1)),), str(path), input_names=["input_ids"], dynamo=False,
                          opset_version=17)
    assert "ScatterND" in {n.op_type for n in onnx.load(str(path)).graph.node}
    imported = sources.load(str(path), strict=True)
    try:
        assert "nn.aten" not in str(imported.module)
    finally:
        imported.cleanup()
    program = compile_source(path, tmp_path / "f32")
    session = sources.onnxruntime_session(str(path))
    for ids in (SPECIAL, _ids(2)):
        (want,) = session.run(None, {"input_ids": ids.astype(np.int64)})
        with torch.no_grad():
            np.testing.assert_allclose(want, model(torch.from_numpy(ids)).numpy(), rtol=1e-5, atol=1e-5)
        (got,) = program.simulate(ids).outputs.values()
        assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max()), ids


def test_mbarts_start_token_gathered_at_its_count_runs_from_onnx(tmp_path: Path) -> None:
    """MBart's decoder ids start with the id at the count of ids that are
    not padding, less one: ``ReduceSum`` of the mask, ``Sub``, then a
    ``GatherElements`` at that run-time index, which imports (strictly) as
    nn.last_token, counted. Against onnxruntime on ids with padding inside
    and at the end (where the count and the last id that is not padding
    differ), on random ids, and on ids of padding alone (ONNX reads the last
    one, -1; any position is padding)."""
    import onnx

    path = tmp_path / "mbart.onnx"
    model = MODELS["mbart"]().eval()
    with torch.no_grad():
        torch.onnx.export(model, (torch.from_numpy(_ids(1)),), str(path), input_names=["input_ids"], dynamo=False,
                          opset_version=17)
    assert {"ReduceSum", "GatherElements"} <= {n.op_type for n in onnx.load(str(path)).graph.node}
    imported = sources.load(str(path), strict=True)
    try:
        text = str(imported.module)
    finally:
        imported.cleanup()
    assert "nn.aten" not in text and text.count("counted, padding_idx = 1") == 1
    program = compile_source(path, tmp_path / "f32")
    session = sources.onnxruntime_session(str(path))
    for ids in (SPECIAL, _ids(2), np.ones_like(SPECIAL)):
        (want,) = session.run(None, {"input_ids": ids.astype(np.int64)})
        (got,) = program.simulate(ids).outputs.values()
        assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max()), ids


def test_an_onnx_acos_is_the_polynomial_within_float_rounding() -> None:
    """ONNX ``Acos`` becomes the same polynomial as torch's decomposition
    (frontend/_acos.py), against onnxruntime on [-1, 1] and its ends."""
    from onnx import helper

    from test_onnx_frontend import _check, _model, _tensor

    x = np.concatenate([np.linspace(-1, 1, 2001), [0.0, -0.0, 1e-30, -1e-30, 1.0, -1.0, 0.5]]).astype(np.float32)
    model = _model([helper.make_node("Acos", ["x"], ["y"])], [_tensor("x", [x.size])], [_tensor("y", [x.size])])
    _check(model.SerializeToString(), x, expect={"nn.hardtanh", "nn.pow"}, rtol=2e-7)


def test_yoso_runs_from_onnx(tmp_path: Path) -> None:
    """Yoso's attention by expected collisions takes the acos of cosines:
    exported to ONNX (its ``Acos``), it imports strictly and its float32
    program equals onnxruntime."""
    path = tmp_path / "yoso.onnx"
    model = MODELS["yoso"]().eval()
    with torch.no_grad():
        torch.onnx.export(model, (torch.from_numpy(_ids(1)),), str(path), input_names=["input_ids"], dynamo=False,
                          opset_version=17)
    imported = sources.load(str(path), strict=True)
    imported.cleanup()
    program = compile_source(path, tmp_path / "f32")
    session = sources.onnxruntime_session(str(path))
    for ids in (SPECIAL, _ids(2)):
        (want,) = session.run(None, {"input_ids": ids.astype(np.int64)})
        (got,) = program.simulate(ids).outputs.values()
        assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max()), ids
