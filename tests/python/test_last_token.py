"""Sequence classifiers that score the last token that is not padding
(transformers' GPT-2, LLaMA, Mistral, Qwen2... *ForSequenceClassification
with a padding token): ``logits[arange(B), argmax(arange(L) * (ids != pad))]``
(from ONNX: the flattened scores gathered at argmax + L arange(B))
becomes ``nn.last_token`` at import, which the PIM lowering computes with
integer vector instructions and a row copy at an address it computes.
Checked against eager torch on ids padded at the end, inside, not at all
and everywhere (the first position then, as argmax), a batch of two, and
the integer reference at int8."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import quant, sources

from pim_helpers import compile_source

VOCABULARY, LENGTH, PAD = 97, 8, 0
#: Padding at the end, inside and at the end, nowhere, everywhere, and one
#: real token first.
PADDED = np.array([[5, 9, 7, 8, 0, 0, 0, 0], [4, 0, 4, 9, 0, 6, 0, 0], [5, 9, 7, 8, 33, 9, 3, 2],
                   [0] * LENGTH, [7] + [0] * (LENGTH - 1)])


class Logits(torch.nn.Module):
    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids).logits


def _classifier(kind: str) -> torch.nn.Module:
    import transformers as T

    torch.manual_seed(0)
    if kind == "gpt2":
        config = T.GPT2Config(vocab_size=VOCABULARY, n_embd=32, n_layer=1, n_head=2, pad_token_id=PAD, num_labels=3,
                              bos_token_id=1, eos_token_id=2)
        return Logits(T.GPT2ForSequenceClassification(config)).eval()
    config = T.LlamaConfig(vocab_size=VOCABULARY, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                           num_attention_heads=2, num_key_value_heads=1, pad_token_id=PAD, num_labels=3,
                           bos_token_id=1, eos_token_id=2)
    return Logits(T.LlamaForSequenceClassification(config)).eval()


def _onnx(model: torch.nn.Module, ids: np.ndarray, path: Path) -> Path:
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.from_numpy(ids),), path, dynamo=False, opset_version=17,
                          input_names=["input_ids"])
    return path


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], tuple[torch.nn.Module, Path]]:
    out = {}
    for kind, batch in (("gpt2", 1), ("llama", 1), ("gpt2", 2)):
        model = _classifier(kind)
        pt2 = tmp_path_factory.mktemp("classifiers") / f"{kind}_{batch}.pt2"
        torch.export.save(torch.export.export(model, (torch.from_numpy(PADDED[:batch]),)), pt2)
        out[kind, batch] = model, pt2
    return out


def _torch(model: torch.nn.Module, ids: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return model(torch.from_numpy(ids)).numpy()


def test_the_pick_imports_as_one_operator(saved) -> None:
    _, pt2 = saved["gpt2", 1]
    module = sources.load(str(pt2), strict=True, weights_as=None).module
    text = str(module)
    assert "nn.last_token" in text and "padding_idx = 0" in text
    assert "argmax" not in text and "nn.index" not in text


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_float32_programs_pick_the_last_real_token_as_torch(saved, tmp_path: Path, kind: str) -> None:
    model, pt2 = saved[kind, 1]
    program = compile_source(pt2, tmp_path / "out")
    picked = set()
    for row in PADDED:
        ids = row[None, :]
        want = _torch(model, ids)
        (got,) = program.simulate(ids).outputs.values()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()), err_msg=str(row))
        picked.add(int((np.arange(LENGTH) * (row != PAD)).argmax()))
    assert picked == {3, 5, 7, 0}  # the rows pick different positions


def test_a_batch_of_two_picks_per_sequence(saved, tmp_path: Path) -> None:
    model, pt2 = saved["gpt2", 2]
    program = compile_source(pt2, tmp_path / "out")
    for ids in (PADDED[:2], PADDED[2:4], PADDED[[4, 1]]):
        want = _torch(model, ids)
        (got,) = program.simulate(ids).outputs.values()
        assert got.shape == want.shape == (2, 3)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))


@pytest.mark.parametrize("batch", [1, 2])
def test_the_onnx_exporters_flat_gather_picks_as_onnxruntime(saved, tmp_path: Path, batch: int) -> None:
    """The ONNX exporter gathers the flattened scores at argmax + L
    arange(B): the same operator, against onnxruntime."""

    model, _ = saved["gpt2", batch]
    path = _onnx(model, PADDED[:batch], tmp_path / "cls.onnx")
    assert "nn.last_token" in str(sources.load(str(path), strict=True, weights_as=None).module)
    program = compile_source(path, tmp_path / "out")
    session = sources.onnxruntime_session(str(path))
    for ids in (PADDED[:batch], PADDED[3:3 + batch], PADDED[[4, 1]][:batch]):
        (want,) = session.run(None, {"input_ids": ids})
        (got,) = program.simulate(ids).outputs.values()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))


def test_int8_programs_compute_the_integer_reference(saved, tmp_path: Path) -> None:
    model, pt2 = saved["gpt2", 1]
    program = compile_source(pt2, tmp_path / "int8", precision="int8")
    module = sources.load(str(tmp_path / "int8" / "reports" / "quantized_model.mlir"), weights_as=None).module
    imported = sources.load(str(pt2), weights_as="arrays")
    for row in PADDED[:2]:
        ids = row[None, :]
        (got,) = program.simulate(ids).outputs.values()
        (reference,) = quant.reference(module, {program.inputs[0][0]: ids.astype(np.float32)}, imported.tensors)
        assert np.array_equal(got, reference)
        want = _torch(model, ids)
        assert np.abs(got - want).max() <= 0.1 * float(np.abs(want).max())
