"""Integer functions of token ids (passes/nn/TokenTables.h, run by both
importers): models that
compute on their ids besides embedding them run the whole flow. BART's and
T5's decoder ids (the ids shifted right behind a start token, -100 replaced
by the padding), Marian's (the same shift given as decoder ids), MBart's
(its start token the id at the count of ids that are not padding, less
one: a row picked at run time), M2M100's (decoder positions numbered from
the decoder ids), ESM's
token dropout (the mask token's embedding zeroed and counted) and Canine's
hashed character ids (``(ids + 1) * prime % buckets``) become lookups in
tables the compiler computes; Yoso's acos is a polynomial. Random weights, transformers configurations,
float32 against eager torch, int8 against the integer reference; a function
that reaches outside its table stops in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from mlir import ir

from raptor import sources

from pim_helpers import compile_source, int8_ids_program_agrees
from test_token_ids import LastHidden

VOCABULARY, LENGTH, PAD, START, MASK = 97, 12, 1, 2, 3


class Decoded(torch.nn.Module):
    """An encoder-decoder given only ids: the decoder's last hidden state."""

    def __init__(self, model: torch.nn.Module, shift: bool = False) -> None:
        super().__init__()
        self.model, self.shift = model, shift

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        if self.shift:  # (Marian's forward takes its decoder ids given)
            from transformers.models.marian.modeling_marian import shift_tokens_right

            decoder = shift_tokens_right(input_ids, PAD, START)
            return self.model(input_ids=input_ids, decoder_input_ids=decoder).last_hidden_state
        return self.model(input_ids=input_ids).last_hidden_state


class Shifted(torch.nn.Module):
    """T5 with its own decoder ids, ``_shift_right(ids)``."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, decoder_input_ids=self.model._shift_right(input_ids)).last_hidden_state


def _seq2seq(config_class: type, model_class: type, shift: bool = False) -> torch.nn.Module:
    torch.manual_seed(0)
    config = config_class(vocab_size=VOCABULARY, d_model=32, encoder_layers=1, decoder_layers=1,
                          encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                          decoder_ffn_dim=64, max_position_embeddings=32, pad_token_id=PAD,
                          decoder_start_token_id=START, eos_token_id=START, bos_token_id=0)
    return Decoded(model_class(config), shift)


def _bart() -> torch.nn.Module:
    from transformers import BartConfig, BartModel

    return _seq2seq(BartConfig, BartModel)


def _marian() -> torch.nn.Module:
    from transformers import MarianConfig, MarianModel

    return _seq2seq(MarianConfig, MarianModel, shift=True)


def _mbart() -> torch.nn.Module:
    """MBart's decoder ids start with the id at the count of ids that are
    not padding less one (its language id, before right padding), gathered
    at run time: nn.last_token, counted. SPECIAL has padding inside too,
    where the count and the last id that is not padding differ."""
    from transformers import MBartConfig, MBartModel

    return _seq2seq(MBartConfig, MBartModel)


def _m2m100() -> torch.nn.Module:
    """M2M100 (NLLB's architecture) numbers its decoder's positions from
    its decoder ids, the ids shifted right (RoBERTa's numbering past the
    padding), and reads them from a sinusoidal table by index_select: the
    ids' own positions shifted, with the offset raised by the start token."""
    from transformers import M2M100Config, M2M100Model

    return _seq2seq(M2M100Config, M2M100Model, shift=True)


def _t5() -> torch.nn.Module:
    from transformers import T5Config, T5Model

    torch.manual_seed(0)
    config = T5Config(vocab_size=VOCABULARY, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_heads=4,
                      decoder_start_token_id=0, pad_token_id=0)
    return Shifted(T5Model(config))


def _esm() -> torch.nn.Module:
    """ESM-2's token dropout: the mask token's embedding zeroed, the others
    scaled by the share of mask tokens (counted at run time)."""
    from transformers import EsmConfig, EsmModel

    torch.manual_seed(0)
    config = EsmConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=64, max_position_embeddings=32, pad_token_id=PAD, mask_token_id=MASK,
                       token_dropout=True, position_embedding_type="rotary")
    config._attn_implementation = "sdpa"
    return LastHidden(EsmModel(config))


def _canine() -> torch.nn.Module:
    """Canine hashes character ids into buckets of two tables; its ids
    index those (0..buckets-1)."""
    from transformers import CanineConfig, CanineModel

    torch.manual_seed(0)
    config = CanineConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                          num_hash_functions=2, num_hash_buckets=VOCABULARY, downsampling_rate=2,
                          local_transformer_stride=4, max_position_embeddings=64)
    return LastHidden(CanineModel(config))


def _yoso() -> torch.nn.Module:
    """Yoso's attention by expected collisions: ``(1 - acos(q k^T) / pi) ** 9``
    of normalized queries and keys (acos as a polynomial, the power by
    squaring); no arithmetic on its ids."""
    from transformers import YosoConfig, YosoModel

    torch.manual_seed(0)
    config = YosoConfig(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=40)
    return LastHidden(YosoModel(config))


MODELS = {"bart": _bart, "mbart": _mbart, "marian": _marian, "m2m100": _m2m100, "t5": _t5, "esm": _esm, "canine": _canine, "yoso": _yoso}
#: Ids with the padding, the start and the mask token, and random ones.
SPECIAL = np.array([[0, 5, MASK, 9, 7, PAD, MASK, 96, START, 60, PAD, PAD]])


def _embeddings(module) -> tuple[set[str], set[str]]:
    """What the embeddings of an imported module take as indices and as
    tables: "argument" (a function argument: the ids, a parameter) or the
    name of the defining op."""
    indices, tables = set(), set()
    for op in module.body.operations[0].regions[0].blocks[0].operations:
        if op.operation.name == "nn.embedding":
            for into, operand in ((tables, op.operands[0]), (indices, op.operands[1])):
                owner = operand.owner
                into.add(owner.name if isinstance(owner, ir.Operation) else "argument")
    return indices, tables


def _ids(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, VOCABULARY, (1, LENGTH))


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[torch.nn.Module, Path]]:
    root = tmp_path_factory.mktemp("token-functions")
    ids = torch.from_numpy(_ids(1))
    out = {}
    for name, build in MODELS.items():
        model = build().eval()
        pt2 = root / f"{name}.pt2"
        with torch.no_grad():
            torch.export.save(torch.export.export(model, (ids,)), pt2)
        out[name] = (model, pt2)
    return out


@pytest.mark.parametrize("name", sorted(MODELS))
def test_float32_programs_equal_torch(saved, tmp_path: Path, name: str) -> None:
    model, pt2 = saved[name]
    imported = sources.load(str(pt2), strict=True)
    try:
        indices, tables = _embeddings(imported.module)
    finally:
        imported.cleanup()
    # Every embedding reads the ids or rows the compiler knows (no integer
    # computation on the ids is left), from a parameter or a table the
    # compiler computes (a column table, W[f]).
    assert indices <= {"argument", "nn.constant"}, indices
    assert tables <= {"argument", "nn.constant", "nn.embedding"}, tables
    program = compile_source(pt2, tmp_path / "f32")
    assert program.vocabularies == {"input_ids": VOCABULARY}
    for ids in (SPECIAL, _ids(2)):
        with torch.no_grad():
            want = model(torch.from_numpy(ids)).numpy()
        (got,) = program.simulate(ids).outputs.values()
        assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max()), ids


@pytest.mark.parametrize("name", ["bart", "mbart", "m2m100", "esm", "canine", "yoso"])
def test_int8_programs_compute_the_integer_reference(saved, tmp_path: Path, name: str) -> None:
    model, pt2 = saved[name]
    int8_ids_program_agrees(pt2, tmp_path / "int8", model, SPECIAL, input_name="input_ids")


def test_bart_pipelined(saved, tmp_path: Path) -> None:
    model, pt2 = saved["bart"]
    program = compile_source(pt2, tmp_path / "p4", pipeline=4)
    with torch.no_grad():
        want = model(torch.from_numpy(SPECIAL)).numpy()
    (got,) = program.simulate(SPECIAL).outputs.values()
    assert np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max())


class Shifting(torch.nn.Module):
    """Ids + 5 index a table of the vocabulary's rows: ids 92..96 would
    read past its end."""

    def __init__(self) -> None:
        super().__init__()
        self.words = torch.nn.Embedding(VOCABULARY, 8)
        self.more = torch.nn.Embedding(VOCABULARY, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.words(ids) + self.more(ids + 5)


class Masked(torch.nn.Module):
    """A product by a mask of the ids, ``where`` by it with a constant, a
    count of it, an integer cast: each a lookup."""

    def __init__(self) -> None:
        super().__init__()
        self.words = torch.nn.Embedding(VOCABULARY, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.words(ids)
        keep = (ids % 7 != 0).unsqueeze(-1)
        count = (ids > 50).sum(-1).float()
        y = torch.where(keep, x, 0.5) * (ids // 10).unsqueeze(-1).to(torch.float32)
        return y + count[:, None, None]


def test_arithmetic_on_ids_as_lookups(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = Masked().eval()
    ids = torch.from_numpy(_ids(5))
    pt2 = tmp_path / "masked.pt2"
    torch.export.save(torch.export.export(model, (ids,)), pt2)
    program = compile_source(pt2, tmp_path / "masked")
    for seed in range(3):
        x = _ids(seed)
        with torch.no_grad():
            want = model(torch.from_numpy(x)).numpy()
        (got,) = program.simulate(x).outputs.values()
        assert np.abs(got - want).max() <= 2e-6 * float(np.abs(want).max())


def test_a_function_outside_its_table_stops_in_one_line(tmp_path: Path) -> None:
    ids = torch.zeros((1, LENGTH), dtype=torch.int64)
    pt2 = tmp_path / "shifting.pt2"
    torch.export.save(torch.export.export(Shifting().eval(), (ids,)), pt2)
    r = subprocess.run([sys.executable, "-m", "raptor", "compile", str(pt2), "-o", str(tmp_path / "out"), "-q"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert f"an embedding of {VOCABULARY} rows reads row {VOCABULARY + 4} computed from the token ids" in line, line
    assert not (tmp_path / "out").exists()


def test_acos_decomposition_is_torch_to_float_rounding() -> None:
    from raptor.frontend._decompositions import _acos

    x = torch.cat([torch.linspace(-1, 1, 200001), torch.tensor([0.0, -0.0, 1e-30, -1e-30, 1.0, -1.0])])
    got = _acos(x)
    assert not bool(got.isnan().any())
    assert float((got - torch.acos(x)).abs().max()) <= 5e-7
