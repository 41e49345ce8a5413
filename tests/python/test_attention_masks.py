"""Models fed an ``attention_mask`` beside their token ids, end to end
(BERT, Falcon's multi-query attention, Llama's grouped queries, OPT's
positions and Bloom's ALiBi counted along the mask, DeBERTa's mask of
query-key pairs, MPT's mask made reals and cast back to booleans).

transformers reads the mask as booleans (``attention_mask.bool()``) and
passes the attention a boolean mask (padding, and a causal triangle in
decoders); ONNX exports turn it into ``where(mask, 0, -inf)`` before the
softmax and a NaN guard after it. Raptor states both as lookups of the
mask (a table of its two values) and arithmetic: the programs are checked
against torch and onnxruntime on masks with padding on the right, on the
left (a decoder's first queries then keep no key: torch's zero rows) and
with nothing kept at all.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import transformers

from raptor import quant, sources

from pim_helpers import compile_source

LENGTH = 8
VOCABULARY = 50
#: Masks of one sequence: right padding, left padding, nothing kept, all kept.
MASKS = {
    "right": [1, 1, 1, 1, 1, 1, 0, 0],
    "left": [0, 0, 0, 1, 1, 1, 1, 1],
    "none": [0] * LENGTH,
    "all": [1] * LENGTH,
}


class LastHiddenState(torch.nn.Module):
    """A transformers model called with ids and a mask, its last hidden
    state (the output every family has)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def _bert() -> torch.nn.Module:
    config = transformers.BertConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=16)
    return transformers.BertModel(config, add_pooling_layer=False)


def _llama() -> torch.nn.Module:
    config = transformers.LlamaConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=1, intermediate_size=64,
                                      max_position_embeddings=16, use_cache=False)
    return transformers.LlamaModel(config)


def _falcon() -> torch.nn.Module:
    """Multi-query attention: one key and value head for every query head
    (torch's attention broadcasts it, without enable_gqa)."""
    config = transformers.FalconConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=2,
                                       num_attention_heads=2, use_cache=False)
    return transformers.FalconModel(config)


def _mpt() -> torch.nn.Module:
    """Its additive mask of reals (0 or the most negative float) cast back
    to booleans for a masked_fill, beside ALiBi."""
    config = transformers.MptConfig(vocab_size=VOCABULARY, d_model=32, n_layers=2, n_heads=2, max_seq_len=16,
                                    use_cache=False)
    return transformers.MptModel(config)


def _opt() -> torch.nn.Module:
    """Positions numbered along the mask: cumsum(mask) * mask - 1, then its
    table's offset of 2 (padding reads row 1)."""
    config = transformers.OPTConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=2, ffn_dim=64,
                                    num_attention_heads=2, max_position_embeddings=16, word_embed_proj_dim=32,
                                    use_cache=False)
    return transformers.OPTModel(config)


def _bloom() -> torch.nn.Module:
    """ALiBi: each head's slope times positions counted along the mask,
    (cumsum(mask) - 1) * mask, read as reals."""
    config = transformers.BloomConfig(vocab_size=VOCABULARY, hidden_size=32, n_layer=2, n_head=2, use_cache=False)
    return transformers.BloomModel(config)


def _deberta() -> torch.nn.Module:
    """The mask read as numbers (the embeddings times it) and as the pairs
    m_i m_j of queries and keys (a query that is padding attends to every
    key alike); DeBERTa-v3's relative attention."""
    config = transformers.DebertaV2Config(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=2,
                                          num_attention_heads=2, intermediate_size=64, max_position_embeddings=16,
                                          relative_attention=True, pos_att_type=["p2c", "c2p"], position_buckets=4,
                                          max_relative_positions=16, position_biased_input=False,
                                          norm_rel_ebd="layer_norm", share_att_key=True)
    return transformers.DebertaV2Model(config)


MODELS = {"bert": _bert, "bloom": _bloom, "deberta": _deberta, "falcon": _falcon, "llama": _llama, "mpt": _mpt, "opt": _opt}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[torch.nn.Module, Path, Path]]:
    """Each model (seeded weights) and its .pt2 and ONNX files."""
    out = {}
    for name, build in MODELS.items():
        torch.manual_seed(7)
        model = LastHiddenState(build().eval()).eval()
        directory = tmp_path_factory.mktemp(name)
        ids = torch.zeros(1, LENGTH, dtype=torch.long)
        mask = torch.ones(1, LENGTH, dtype=torch.long)
        torch.export.save(torch.export.export(model, (ids, mask)), directory / "m.pt2")
        torch.onnx.export(model, (ids, mask), str(directory / "m.onnx"), input_names=["input_ids", "attention_mask"],
                          dynamo=False, opset_version=17)
        out[name] = (model, directory / "m.pt2", directory / "m.onnx")
    return out


def _inputs(mask: str) -> dict[str, np.ndarray]:
    ids = np.random.default_rng(5).integers(0, VOCABULARY, (1, LENGTH))
    return {"input_ids": ids, "attention_mask": np.array([MASKS[mask]], dtype=np.int64)}


def _torch(model: torch.nn.Module, inputs: dict[str, np.ndarray]) -> np.ndarray:
    with torch.no_grad():
        return model(*(torch.from_numpy(inputs[n]) for n in ("input_ids", "attention_mask"))).numpy()


def _close(got: np.ndarray, want: np.ndarray, bound: float = 2e-6) -> None:
    assert got.shape == want.shape and np.isfinite(got).all()
    # (DeBERTa's output is all zeros where the mask is: its embeddings times it.)
    assert np.abs(got - want).max() <= bound * max(float(np.abs(want).max()), 1.0)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_float32_programs_equal_torch_on_every_mask(saved, tmp_path: Path, name: str) -> None:
    model, pt2, _ = saved[name]
    program = compile_source(pt2, tmp_path / "p")
    # The mask is an input of two values: the calibration and --check draw it so.
    assert program.vocabularies == {"input_ids": VOCABULARY, "attention_mask": 2}
    outputs = {}
    for mask in MASKS:
        inputs = _inputs(mask)
        (got,) = program.simulate(inputs).outputs.values()
        want = _torch(model, inputs)
        _close(got, want)
        outputs[mask] = got
    # The mask reaches the attention: padding changes the kept positions'
    # outputs. (Torch's zero rows, where a query keeps no key: "none", and
    # the decoder's first queries under "left", which a uniform softmax
    # over dropped keys would not give.)
    assert not np.allclose(outputs["left"][0, 3:], outputs["all"][0, 3:], atol=1e-4)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_onnx_programs_equal_onnxruntime(saved, tmp_path: Path, name: str) -> None:
    _, _, onnx_file = saved[name]
    session = sources.onnxruntime_session(str(onnx_file))
    program = compile_source(onnx_file, tmp_path / "p")
    for mask in MASKS:
        inputs = _inputs(mask)
        (got,) = program.simulate(inputs).outputs.values()
        (want,) = session.run(None, inputs)
        _close(got, want)


@pytest.mark.parametrize("name", ["bert", "deberta", "opt"])
def test_int8_program_computes_the_integer_reference(saved, tmp_path: Path, name: str) -> None:
    model, pt2, _ = saved[name]
    program = compile_source(pt2, tmp_path / "p", precision="int8")
    module = sources.load(str(tmp_path / "p" / "reports" / "quantized_model.mlir"), weights_as=None).module
    tensors = sources.load(str(pt2), weights_as="arrays").tensors
    for mask in ("right", "left", "none"):
        inputs = _inputs(mask)
        (got,) = program.simulate(inputs).outputs.values()
        (reference,) = quant.reference(module, {n: a.astype(np.float32) for n, a in inputs.items()}, tensors)
        assert np.array_equal(got, reference)
        want = _torch(model, inputs)
        if not want.any():  # (DeBERTa with nothing kept)
            assert not got.any()
            continue
        cosine = float(got.ravel() @ want.ravel() / (np.linalg.norm(got) * np.linalg.norm(want)))
        assert cosine >= 0.99, cosine


def test_pipelined_program_equals_torch(saved, tmp_path: Path) -> None:
    model, pt2, _ = saved["llama"]
    program = compile_source(pt2, tmp_path / "p", pipeline=2)
    inputs = _inputs("left")
    (got,) = program.simulate(inputs).outputs.values()
    _close(got, _torch(model, inputs))


class IntegerScale(torch.nn.Module):
    """An integer input read as a number, not as booleans: its values are
    not limited to two, so it is no mask."""

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return x * scale.float()


def test_an_integer_input_read_as_numbers_stops_in_one_line(tmp_path: Path) -> None:
    """The one line names the operator and the integer input it computes
    on, and says what Raptor reads integer inputs as; from ONNX too."""
    example = (torch.randn(1, 4), torch.ones(1, 4, dtype=torch.long))
    torch.export.save(torch.export.export(IntegerScale(), example), tmp_path / "m.pt2")
    torch.onnx.export(IntegerScale(), example, str(tmp_path / "m.onnx"), input_names=["x", "scale"], dynamo=False,
                      opset_version=17)
    for source, operator in (("m.pt2", "aten._to_copy"), ("m.onnx", "Cast")):
        with pytest.raises(Exception, match=operator) as caught:
            compile_source(tmp_path / source, tmp_path / source.replace(".", "_"))
        message = str(caught.value)
        assert "\n" not in message
        assert "the integer input 'scale'" in message and "a mask of 0s and 1s" in message, message
