"""Token-id inputs: models that take integer ids (BERT, RoBERTa, ESM, GPT-2,
Llama, T5's encoder, GPT-J, Falcon, a small classifier) compile with the
embedding table in global memory, each id fetching its row with an ld the
program addresses itself (sld, smuli, saddi); RoBERTa's position ids are
computed from its padding at run time (nn.token_positions). Checked against
eager torch and onnxruntime (float32), the integer reference (int8, bit for
bit when integer-only), transformers' own position ids, and from the
command line: random ids inside the vocabulary, ids outside it refused in
one line, int8 calibration files of ids."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import raptor
from mlir import ir
from raptor import pim, quant, sources
from raptor.quant import interpreter

from pim_helpers import compile_source, int8_ids_program_agrees

VOCABULARY, LENGTH = 97, 12
ROBERTA_PAD = 1
#: Ids with RoBERTa's padding at the end, inside, first and everywhere.
PADDED = np.array([[5, 9, 7, 8, 33, 9, 3, 2, 60, 1, 1, 1], [1, 4, 4, 1, 1, 96, 0, 1, 2, 3, 1, 7],
                   [0] * 6 + [1] * 6, [1] * LENGTH])


class TokenClassifier(torch.nn.Module):
    """Ids -> embedding -> linear -> ReLU: every operator has an
    integer-only lowering, so the int8 program runs on the ISA alone."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = torch.nn.Embedding(VOCABULARY, 16)
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(self.embed(ids)))


class LastHidden(torch.nn.Module):
    """A transformers model fed token ids, returning its last hidden state."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids).last_hidden_state


def _bert() -> torch.nn.Module:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32)
    config._attn_implementation = "sdpa"
    return LastHidden(BertModel(config))


def _roberta() -> torch.nn.Module:
    """RoBERTa numbers its positions past its padding at run time
    (``cumsum(ids != pad)``) and gathers its token types by them."""
    from transformers import RobertaConfig, RobertaModel

    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=32, pad_token_id=ROBERTA_PAD)
    config._attn_implementation = "sdpa"
    return LastHidden(RobertaModel(config))


def _esm() -> torch.nn.Module:
    """ESM (a protein model): RoBERTa's positions, a GELU written with erf,
    rotary tables computed from a persistent buffer (the compiler's cos and
    sin)."""
    from transformers import EsmConfig, EsmModel

    torch.manual_seed(0)
    config = EsmConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=64, max_position_embeddings=32, pad_token_id=ROBERTA_PAD,
                       position_embedding_type="rotary")
    config._attn_implementation = "sdpa"
    return LastHidden(EsmModel(config))


class PositionsClassifier(torch.nn.Module):
    """Ids -> word plus position embeddings (positions from the padding, as
    transformers computes them) -> linear -> ReLU: integer-only in int8."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.words = torch.nn.Embedding(VOCABULARY, 16)
        self.places = torch.nn.Embedding(LENGTH + ROBERTA_PAD + 1, 16)
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        from transformers.models.roberta.modeling_roberta import RobertaEmbeddings

        positions = RobertaEmbeddings.create_position_ids_from_input_ids(ids, ROBERTA_PAD)
        return torch.relu(self.fc(self.words(ids) + self.places(positions)))


def _llama() -> torch.nn.Module:
    from transformers import LlamaConfig, LlamaModel

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCABULARY, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0, use_cache=False)
    config._attn_implementation = "sdpa"
    return LastHidden(LlamaModel(config))


def _gpt2() -> torch.nn.Module:
    """GPT-2 views its ids (``input_ids.view(-1, length)``) and cubes in its GELU."""
    from transformers import GPT2Config, GPT2Model

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=VOCABULARY, n_embd=32, n_layer=1, n_head=2, n_positions=32, bos_token_id=1,
                        eos_token_id=2)
    config._attn_implementation = "sdpa"
    return LastHidden(GPT2Model(config))


def _t5() -> torch.nn.Module:
    """T5's encoder: a per-head relative-position bias (an embedding of
    bucketed positions, selected by ``where``) added to every head's scores."""
    from transformers import T5Config, T5EncoderModel

    torch.manual_seed(0)
    config = T5Config(vocab_size=VOCABULARY, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_heads=4)
    return LastHidden(T5EncoderModel(config))


def _gptj() -> torch.nn.Module:
    """GPT-J, eager attention: its causal mask is a where by a constant
    buffer, and its rotary sin and cos are a split of a constant table."""
    from transformers import GPTJConfig, GPTJModel

    torch.manual_seed(0)
    config = GPTJConfig(vocab_size=VOCABULARY, n_embd=32, n_layer=1, n_head=4, rotary_dim=4, n_positions=32)
    config._attn_implementation = "eager"
    return LastHidden(GPTJModel(config))


def _falcon() -> torch.nn.Module:
    """Falcon: multi-query attention, one key and value head broadcast over
    the query's four."""
    from transformers import FalconConfig, FalconModel

    torch.manual_seed(0)
    config = FalconConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                          use_cache=False)
    config._attn_implementation = "sdpa"
    return LastHidden(FalconModel(config))


MODELS = {"classifier": TokenClassifier, "positions": PositionsClassifier, "bert": _bert, "roberta": _roberta,
          "esm": _esm, "gpt2": _gpt2, "llama": _llama, "t5": _t5, "gptj": _gptj, "falcon": _falcon}
#: Those the TorchScript ONNX exporter takes (Llama's mask needs aten::diff).
ONNX = ("classifier", "positions", "bert", "roberta", "gpt2", "t5")
#: Those whose int8 program is integer-only (every operator has an integer lowering).
INTEGER_ONLY = ("classifier", "positions")


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[torch.nn.Module, Path, Path]]:
    """Each model in eval mode with its .pt2 and (ONNX: TorchScript) .onnx files."""
    root = tmp_path_factory.mktemp("token-ids")
    ids = torch.randint(0, VOCABULARY, (1, LENGTH), generator=torch.Generator().manual_seed(1))
    out = {}
    for name, build in MODELS.items():
        model = build().eval()
        pt2, onnx_file = root / f"{name}.pt2", root / f"{name}.onnx"
        torch.export.save(torch.export.export(model, (ids,)), pt2)
        if name in ONNX:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                torch.onnx.export(model, (ids,), onnx_file, dynamo=False, opset_version=17,
                                  input_names=["input_ids"])
        out[name] = (model, pt2, onnx_file)
    return out


def _ids(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, VOCABULARY, (1, LENGTH))


def _raptor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "raptor", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_float32_programs_equal_torch_and_onnxruntime(saved, tmp_path: Path, name: str) -> None:
    model, pt2, onnx_file = saved[name]
    ids = _ids(2)
    with torch.no_grad():
        want = model(torch.from_numpy(ids)).numpy()
    scale = float(np.abs(want).max())
    program = compile_source(pt2, tmp_path / "pt2")
    assert program.vocabularies == {next(iter(program.inputs))[0]: VOCABULARY}
    (got,) = program.simulate(ids).outputs.values()
    assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * scale
    if name not in ONNX:
        return
    session = sources.onnxruntime_session(str(onnx_file))
    (runtime,) = session.run(None, {"input_ids": ids})
    (from_onnx,) = compile_source(onnx_file, tmp_path / "onnx").simulate(ids).outputs.values()
    assert np.abs(from_onnx - runtime).max() <= 2e-6 * scale


@pytest.mark.parametrize("name", sorted(MODELS))
def test_int8_programs_compute_the_integer_reference(saved, tmp_path: Path, name: str) -> None:
    model, pt2, _ = saved[name]
    ids = _ids(3)
    # (The calibration draws its random ids inside the vocabulary: torch's
    # embedding raises on any other.)
    # Bit for bit: on the ISA alone, or with float32 between the codecs
    # (norms, softmax), which the reference computes as the programs do.
    program = int8_ids_program_agrees(pt2, tmp_path / "int8", model, ids)
    assert (program.manifest["program"]["arithmetic"] == "integer") == (name in INTEGER_ONLY)


def test_the_compiler_and_the_calibration_bound_the_ids_alike(saved, tmp_path: Path) -> None:
    """The lowering's vocabulary (the manifest) and quant's (the random
    calibration ids) are two implementations of one rule: they agree,
    also through a view of the ids and with two tables of different rows."""
    _, pt2, _ = saved["bert"]
    model = sources.load(str(pt2), strict=True)
    try:
        assert quant.token_vocabularies(model.module) == {"input_ids": VOCABULARY}
        program = pim.compile(model.module, tmp_path / "bert", weights=model.weights, source=str(pt2))
    finally:
        model.cleanup()
    assert pim.Program.load(tmp_path / "bert").vocabularies == {"input_ids": VOCABULARY}
    assert program is not None
    text = """
    func.func @main(%ids: tensor<6xi64> {nn.input = "ids"}) -> tensor<1x6x2xf32> {
      %a = nn.constant dense<1.0> : tensor<9x2xf32>
      %b = nn.constant dense<2.0> : tensor<5x2xf32>
      %v = nn.view %ids {size = array<i64: 1, 6>} : (tensor<6xi64>) -> tensor<1x6xi64>
      %x = nn.embedding %a, %v : (tensor<9x2xf32>, tensor<1x6xi64>) -> tensor<1x6x2xf32>
      %y = nn.embedding %b, %v : (tensor<5x2xf32>, tensor<1x6xi64>) -> tensor<1x6x2xf32>
      %s = nn.add %x, %y : (tensor<1x6x2xf32>, tensor<1x6x2xf32>) -> tensor<1x6x2xf32>
      return %s : tensor<1x6x2xf32>
    }"""
    module = ir.Module.parse(text, context=raptor.Context())
    assert quant.token_vocabularies(module) == {"ids": 5}
    pim.compile(module, tmp_path / "two")
    two = pim.Program.load(tmp_path / "two")
    assert two.vocabularies == {"ids": 5}
    (out,) = two.simulate(np.array([0, 4, 1, 3, 2, 4])).outputs.values()
    assert np.array_equal(out, np.full((1, 6, 2), 3.0, np.float32))
    inputs = quant.random_inputs(module, 8, seed=5)
    drawn = np.concatenate([i["ids"] for i in inputs])
    assert drawn.min() >= 0 and drawn.max() <= 4 and set(np.unique(drawn)) == {0, 1, 2, 3, 4}


def test_the_command_line_draws_checks_and_refuses_ids(saved, tmp_path: Path) -> None:
    _, pt2, _ = saved["classifier"]
    out = tmp_path / "prog"
    r = _raptor("compile", str(pt2), "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr
    r = _raptor("simulate", str(out), "--check", "--json", "-q")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["random_inputs"] == ["ids"] and report["reference"] == "torch"
    assert report["max_error_relative"] <= 2e-6
    for bad, shown in (([VOCABULARY] + [0] * (LENGTH - 1), f"{VOCABULARY}"), ([0, -1] + [0] * (LENGTH - 2), "-1"),
                       ([0.5] + [0] * (LENGTH - 1), "0.5")):
        path = tmp_path / "bad.npy"
        np.save(path, np.array([bad]))
        r = _raptor("simulate", str(out), "--input", str(path))
        assert r.returncode == 1
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"is {shown}: token ids must be integers in 0..{VOCABULARY - 1}" in lines[0], lines[0]
    r = _raptor("simulate", str(out), "--timing", "--json", "-q")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["latency_ns"] > 0


def test_int8_calibration_files_hold_ids_inside_the_vocabulary(saved, tmp_path: Path) -> None:
    _, pt2, _ = saved["classifier"]
    good = tmp_path / "ids.npy"
    np.save(good, np.stack([_ids(s) for s in range(3)]))
    r = _raptor("compile", str(pt2), "-o", str(tmp_path / "int8"), "--precision", "int8", "--calibrate", str(good),
                "-q")
    assert r.returncode == 0, r.stderr
    cases = [(np.full((1, LENGTH), VOCABULARY), f"outside 0..{VOCABULARY - 1}"),
             (np.zeros((1, LENGTH), np.float32), "token ids, an integer type")]
    for data, message in cases:
        path = tmp_path / "bad.npy"
        np.save(path, data)
        r = _raptor("compile", str(pt2), "-o", str(tmp_path / "bad"), "--precision", "int8", "--calibrate",
                    str(path), "-q")
        assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert not (tmp_path / "bad").exists()


def test_the_reference_reads_boolean_splats_as_all_true() -> None:
    """MLIR's buffer protocol reads ``dense<true>`` of i1 as eight trues and
    then falses: a transformer's all-true attention mask (what BERT without
    an attention_mask has) must be all true in the reference."""
    with raptor.Context():
        attr = ir.DenseElementsAttr(ir.Attribute.parse("dense<true> : tensor<1x1x16x1xi1>"))
        values = interpreter._dense_values(attr)
        assert values.shape == (1, 1, 16, 1) and values.all()
        mixed = interpreter._dense_values(ir.DenseElementsAttr(ir.Attribute.parse("dense<[true, false]> : tensor<2xi1>")))
        assert mixed.tolist() == [True, False]


def test_the_onnx_reference_feeds_ids_as_integers_and_needs_onnxruntime(saved, monkeypatch) -> None:
    """onnxruntime takes the ids in the model's int64 (the host holds them as
    float32); without onnxruntime installed the check says what is missing
    in one line."""
    _, _, onnx_file = saved["classifier"]
    model = sources.load(str(onnx_file), strict=True)
    try:
        ids = _ids(4)
        session = sources.onnxruntime_session(str(onnx_file))
        (want,) = session.run(None, {"input_ids": ids})
        (got,) = model.reference(ids.astype(np.float32))
        assert np.array_equal(got, want)
        monkeypatch.setitem(sys.modules, "onnxruntime", None)
        with pytest.raises(pim.UserError, match="checking against onnxruntime needs it installed") as info:
            model.reference(ids.astype(np.float32))
        assert "\n" not in str(info.value)
    finally:
        model.cleanup()


@pytest.mark.parametrize("name", ["positions", "roberta"])
def test_positions_follow_the_padding_where_it_is(saved, tmp_path: Path, name: str) -> None:
    """Ids with padding at the end, inside, first and everywhere: the
    programs number the positions as the model does (float32 against eager
    torch and onnxruntime from .pt2 and ONNX; int8 against the integer
    reference, bit for bit for the integer-only classifier)."""
    model, pt2, onnx_file = saved[name]
    f32 = compile_source(pt2, tmp_path / "pt2")
    from_onnx = compile_source(onnx_file, tmp_path / "onnx")
    int8 = compile_source(pt2, tmp_path / "int8", precision="int8")
    quantized = sources.load(str(tmp_path / "int8" / "reports" / "quantized_model.mlir"), weights_as=None).module
    imported = sources.load(str(pt2), weights_as="arrays")
    session = sources.onnxruntime_session(str(onnx_file))
    for row in PADDED:
        ids = row[None, :]
        with torch.no_grad():
            want = model(torch.from_numpy(ids)).numpy()
        scale = float(np.abs(want).max())
        (got,) = f32.simulate(ids).outputs.values()
        assert np.abs(got - want).max() <= 2e-6 * scale, row
        (runtime,) = session.run(None, {"input_ids": ids})
        (got,) = from_onnx.simulate(ids).outputs.values()
        assert np.abs(got - runtime).max() <= 2e-6 * scale, row
        (got,) = int8.simulate(ids).outputs.values()
        (reference,) = quant.reference(quantized, {int8.inputs[0][0]: ids.astype(np.float32)}, imported.tensors)
        assert np.array_equal(got, reference), row  # (float32 between the codecs too)


def test_token_positions_number_as_transformers_does() -> None:
    """The interpreter's nn.token_positions (the integer reference's rule)
    against transformers' create_position_ids_from_input_ids, on random ids
    of several padding indices, cache lengths (the offset) and batches."""
    from transformers.models.roberta.modeling_roberta import RobertaEmbeddings

    rng = np.random.default_rng(7)
    for _ in range(50):
        pad, offset = int(rng.integers(0, 4)), int(rng.integers(0, 3))
        ids = torch.from_numpy(rng.integers(0, 5, (int(rng.integers(1, 4)), int(rng.integers(1, 20)))))
        want = RobertaEmbeddings.create_position_ids_from_input_ids(ids, pad, offset)
        assert torch.equal(interpreter.token_positions(ids, pad, offset), want)


def test_token_positions_from_a_mask_number_as_opt_does() -> None:
    """With a base, the interpreter's nn.token_positions of a mask of 0s
    and 1s (padding index 0, base 1) against OPT's positions: transformers'
    cumsum(mask) * mask - 1, read at its table's offset of 2."""
    from transformers.models.opt.modeling_opt import OPTLearnedPositionalEmbedding

    rng = np.random.default_rng(8)
    for _ in range(50):
        mask = torch.from_numpy(rng.integers(0, 2, (int(rng.integers(1, 4)), int(rng.integers(1, 20)))))
        want = (torch.cumsum(mask, dim=1) * mask - 1).long() + OPTLearnedPositionalEmbedding(4, 1).offset
        assert torch.equal(interpreter.token_positions(mask, 0, 0, base=1), want)


def test_a_sequence_longer_than_the_positions_stops_in_one_line(tmp_path: Path) -> None:
    """RoBERTa's positions reach pad + length: a sequence of 40 ids does not
    fit 32 positions, which the compile says in one line."""
    ids = torch.zeros((1, 40), dtype=torch.int64)
    pt2 = tmp_path / "long.pt2"
    torch.export.save(torch.export.export(_roberta().eval(), (ids,)), pt2)
    r = _raptor("compile", str(pt2), "-o", str(tmp_path / "long"), "-q")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.endswith("reads positions up to 41 from a table of 32 rows (a sequence longer than the model's "
                         "positions)"), line
    assert not (tmp_path / "long").exists()
