"""Mixture-of-experts language models (transformers' Mixtral, Qwen2-MoE,
Qwen3-MoE, OLMoE, GraniteMoE) through the whole flow after
``raptor.frontend.experts.dense_experts``: the comparison-free top-k against
``torch.topk``, the rewritten models against the routed originals in eager
torch, their programs against the originals (float32), the quantized
reference bit for bit (int8), and the one-line error, naming the rewrite,
for a model exported without it."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from raptor import sources
from raptor.frontend.experts import dense_experts, topk_without_comparisons

from pim_helpers import compile_source, int8_ids_program_agrees

transformers = pytest.importorskip("transformers")

VOCABULARY, LENGTH = 100, 8
COMMON = dict(vocab_size=VOCABULARY, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=64)
#: name -> (config class, model class, the configuration's expert fields).
FAMILIES = {
    "mixtral": ("MixtralConfig", "MixtralForCausalLM",
                dict(intermediate_size=64, num_local_experts=4, num_experts_per_tok=2)),
    # A shared expert beside the routed ones, gated by a sigmoid; routing
    # weights not renormalized over the chosen experts.
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM",
                  dict(intermediate_size=64, moe_intermediate_size=32, shared_expert_intermediate_size=48,
                       num_experts=6, num_experts_per_tok=2)),
    "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM",
                  dict(intermediate_size=64, moe_intermediate_size=32, num_experts=6, num_experts_per_tok=3,
                       norm_topk_prob=True, head_dim=8)),
    "olmoe": ("OlmoeConfig", "OlmoeForCausalLM", dict(intermediate_size=32, num_experts=5, num_experts_per_tok=2)),
    "granitemoe": ("GraniteMoeConfig", "GraniteMoeForCausalLM",
                   dict(intermediate_size=32, num_local_experts=4, num_experts_per_tok=2)),
    # Transposed expert matrices with biases, gate and up interleaved, a
    # clamped gate; softmax over the chosen experts only.
    "gpt_oss": ("GptOssConfig", "GptOssForCausalLM",
                dict(intermediate_size=32, num_local_experts=4, num_experts_per_tok=2, head_dim=8,
                     layer_types=["full_attention"] * 2)),
}


class Logits(torch.nn.Module):
    """A causal language model fed token ids, returning its logits."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits


def _model(name: str) -> torch.nn.Module:
    config_class, model_class, experts = FAMILIES[name]
    torch.manual_seed(0)
    config = getattr(transformers, config_class)(**COMMON, **experts)
    model = getattr(transformers, model_class)(config).eval()
    with torch.no_grad():  # biases (zero at initialization) that count
        for name, parameter in model.named_parameters():
            if name.endswith("_bias"):
                parameter.normal_(std=0.1)
    return Logits(model)


def _ids(seed: int) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).integers(0, VOCABULARY, (1, LENGTH)))


@pytest.fixture(scope="module")
def mixtral(tmp_path_factory: pytest.TempPathFactory) -> tuple[torch.nn.Module, Path]:
    """The routed original and the rewritten model's export, as
    docs/frontend.md shows it: the transformers model itself, returning its
    output class, with `use_cache=False` as a keyword."""
    original = _model("mixtral")
    path = tmp_path_factory.mktemp("mixtral") / "mixtral.pt2"
    dense = dense_experts(copy.deepcopy(original.model))
    torch.export.save(torch.export.export(dense, (_ids(0),), kwargs={"use_cache": False}), path)
    return original, path


@pytest.mark.parametrize("shape,dim,k", [((7, 6), -1, 2), ((3, 5, 4), 1, 3), ((2, 9), 1, 9), ((4, 3, 8), 0, 1),
                                         ((6, 64), -1, 8)])
def test_topk_without_comparisons_is_torch_topk(shape: tuple[int, ...], dim: int, k: int) -> None:
    """Values and positions of torch.topk (positions as float32), for rows
    of distinct values spanning several orders of magnitude and signs, k up
    to the whole row (every value taken out in turn)."""
    generator = torch.Generator().manual_seed(len(shape) * 100 + k)
    x = torch.randn(shape, generator=generator) * torch.exp(3 * torch.randn(shape, generator=generator))
    values, positions = topk_without_comparisons(x, k, dim)
    want_values, want_positions = torch.topk(x, k, dim)
    assert torch.equal(values, want_values)
    assert positions.dtype == torch.float32 and torch.equal(positions, want_positions.float())


def test_topk_without_comparisons_separates_nearest_values() -> None:
    """Values one float32 step apart (near 1 and near 2**-100) are told
    apart: the step function is exact down to the smallest normal float."""
    for base in (1.0, 2.0 ** -100):
        nearest = float(np.nextafter(np.float32(base), np.float32(2 * base)))
        x = torch.tensor([[base, nearest, -base, 0.0]], dtype=torch.float32)
        values, positions = topk_without_comparisons(x, 2)
        assert values.tolist() == [[nearest, base]] and positions.tolist() == [[1.0, 0.0]]


@pytest.mark.parametrize("row", [[1.0, 3.0, 0.0, 3.0], [2.0, 2.0, 2.0, 2.0], [0.0, -1.0, 0.0, -1.0, 0.0]])
def test_ties_are_taken_in_order_of_position(row: list[float]) -> None:
    """Equal values (quantized router logits can tie) come out one at a
    time, the lower position first (torch.topk leaves the order among equal
    values unspecified: its values are the oracle, the positions a stable
    sort's)."""
    x = torch.tensor([row])
    order = sorted(range(len(row)), key=lambda i: (-row[i], i))
    for k in range(1, len(row) + 1):
        values, positions = topk_without_comparisons(x, k)
        assert torch.equal(values, torch.topk(x, k).values), k
        assert positions.tolist() == [[float(i) for i in order[:k]]], k


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_rewritten_model_computes_the_routed_one(name: str) -> None:
    """Every expert on every token, weighed by its routing weight, equals
    transformers' routed computation (to float rounding) on several inputs;
    the routing matters: every token sent to the first k experts, equally
    weighed, gives another output."""
    original = _model(name)
    dense = dense_experts(copy.deepcopy(original))
    with torch.no_grad():
        for seed in range(3):
            want, got = original(_ids(seed)), dense(_ids(seed))
            assert torch.allclose(got, want, rtol=0, atol=1e-6 * float(want.abs().max()))
        # The probe: the same experts, routed otherwise.
        def first_experts(forward):
            def routed(hidden_states, top_k_index, top_k_weights):
                k = top_k_index.shape[-1]
                return forward(hidden_states, top_k_index * 0 + torch.arange(k), torch.ones_like(top_k_weights) / k)
            return routed

        for module in dense.modules():
            if hasattr(module, "num_experts") and hasattr(module, "down_proj"):
                module.forward = first_experts(module.forward)
        assert not torch.allclose(dense(_ids(0)), original(_ids(0)), rtol=0, atol=1e-3)


def test_a_mixtral_program_computes_the_routed_model(mixtral, tmp_path: Path) -> None:
    """float32: the program's logits equal the routed original's within
    float32 rounding, on inputs other than the export's; with a pipeline
    too."""
    original, path = mixtral
    ids = _ids(5).numpy()
    with torch.no_grad():
        want = original(torch.from_numpy(ids)).numpy()
    for name, options in (("f32", {}), ("p4", {"pipeline": 4})):
        (got,) = compile_source(path, tmp_path / name, **options).simulate(ids).outputs.values()
        assert got.shape == want.shape and np.abs(got - want).max() <= 2e-6 * np.abs(want).max(), name


def test_a_gpt_oss_program_computes_the_routed_model(tmp_path: Path) -> None:
    """float32, the transposed, biased, interleaved experts of gpt-oss."""
    original = _model("gpt_oss")
    path = tmp_path / "gpt_oss.pt2"
    torch.export.save(torch.export.export(dense_experts(copy.deepcopy(original)), (_ids(0),)), path)
    ids = _ids(7).numpy()
    with torch.no_grad():
        want = original(torch.from_numpy(ids)).numpy()
    (got,) = compile_source(path, tmp_path / "out").simulate(ids).outputs.values()
    assert np.abs(got - want).max() <= 2e-6 * np.abs(want).max()


def test_an_int8_mixtral_program_computes_the_quantized_reference(mixtral, tmp_path: Path) -> None:
    """int8 (float32 between the codecs: the router's choice stays float):
    bit for bit the quantized reference, close to the routed original."""
    original, path = mixtral
    int8_ids_program_agrees(path, tmp_path / "int8", original, _ids(6).numpy())


def test_the_command_line_reads_transformers_outputs_and_keywords(mixtral, tmp_path: Path) -> None:
    """`raptor compile` and `raptor simulate --check` in a process that has
    not imported transformers: the program's output class is registered by
    importing the module that defines it (the file names it), and the
    reference is called with the exported keyword (`use_cache=False`)."""
    _, path = mixtral
    out = tmp_path / "out"
    for args in (["compile", str(path), "-o", str(out)], ["simulate", str(out), "--check", "--json"]):
        run = subprocess.run([sys.executable, "-m", "raptor", *args], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
    check = json.loads(run.stdout)
    assert check["reference"] == "torch" and check["max_error_relative"] < 2e-6


def test_an_output_type_without_its_library_is_one_line(mixtral, tmp_path: Path) -> None:
    """Where transformers cannot be imported, the file that returns one of
    its output classes is refused in one line saying so."""
    _, path = mixtral
    script = ("import sys; sys.modules['transformers'] = None; from raptor.cli import main; "
              f"sys.exit(main(['compile', {str(path)!r}, '-o', {str(tmp_path / 'out')!r}, '-q']))")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and run.stderr.count("\n") == 1, run.stderr
    assert (f"'{path}' returns an output type of transformers.modeling_outputs, and transformers is not "
            "installed: install it, or export a model whose forward returns tensors") in run.stderr
    assert not (tmp_path / "out").exists()


def test_only_listed_libraries_are_imported_for_output_types() -> None:
    """The module a file's output type names is imported only for the
    libraries listed (a file cannot make Raptor import anything else)."""
    found = sources._unregistered_output_module
    log = "NotImplementedError: Deserializing {} in pytree is not registered."
    assert found([log.format("transformers.modeling_outputs.MoeCausalLMOutputWithPast")]) == \
        "transformers.modeling_outputs"
    assert found([log.format("os.system.Anything")]) is None
    assert found(["an unrelated warning"]) is None


def test_a_routed_export_is_refused_naming_the_rewrite(tmp_path: Path) -> None:
    """Exported without the rewrite, the model calls transformers' grouped
    product; `raptor compile` (a process without transformers) stops in one
    line that names the way out."""
    path = tmp_path / "routed.pt2"
    torch.export.save(torch.export.export(_model("mixtral"), (_ids(0),)), path)
    run = subprocess.run([sys.executable, "-m", "raptor", "compile", str(path), "-o", str(tmp_path / "out"), "-q"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and run.stderr.count("\n") == 1, run.stderr
    assert "transformers.grouped_mm_fallback" in run.stderr
    assert "raptor.frontend.experts.dense_experts(model)" in run.stderr
    assert not (tmp_path / "out").exists()
    # In a process that has loaded the operator (the one that exported the
    # model), the same way out, before any other operator is named.
    import transformers.integrations.moe  # noqa: F401  (defines the operator)

    with pytest.raises(sources.UserError, match=r"grouped_mm_fallback.default, which its library defines .*"
                                                r"dense_experts\(model\)"):
        sources.load(str(path), strict=True)


class _Config:
    _experts_implementation = "eager"


def _ungated_block(gathers: bool) -> torch.nn.Module:
    """A mixture of experts without gates (up, ReLU, down: Nemotron-H's
    kind), its experts the loop over routed tokens transformers' eager
    implementation is; the router a softmax and top-2, or (``gathers``)
    taking the weights by the chosen positions as group routers do."""
    from transformers.integrations.moe import use_experts_implementation

    @use_experts_implementation(has_gate=False)
    class Experts(torch.nn.Module):
        def __init__(self, config: _Config) -> None:
            super().__init__()
            self.num_experts = 5
            self.up_proj = torch.nn.Parameter(torch.randn(5, 12, 8) / 3)
            self.down_proj = torch.nn.Parameter(torch.randn(5, 8, 12) / 3)
            self.act_fn = torch.nn.ReLU()

        def forward(self, hidden_states: torch.Tensor, top_k_index: torch.Tensor,
                    top_k_weights: torch.Tensor) -> torch.Tensor:
            out = torch.zeros_like(hidden_states)
            for token in range(hidden_states.shape[0]):
                for choice in range(top_k_index.shape[1]):
                    e = int(top_k_index[token, choice])
                    h = self.act_fn(self.up_proj[e] @ hidden_states[token])
                    out[token] += top_k_weights[token, choice] * (self.down_proj[e] @ h)
            return out

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.router = torch.nn.Linear(8, 5, bias=False)
            self.experts = Experts(_Config())

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            scores = torch.softmax(self.router(x), dim=-1)
            weights, index = torch.topk(scores, 2, dim=-1)
            if gathers:
                weights = scores.gather(1, index)
            return self.experts(x, index, weights)

    torch.manual_seed(3)
    return torch.nn.Sequential(Block())


def test_ungated_experts_compute_the_routed_ones() -> None:
    """Experts without a gate (an up projection and an activation) against
    the loop over routed tokens; the layer rewritten inside a model, and
    as the model itself (its own top-k then without comparisons too: the
    export holds no aten.topk)."""
    routed = _ungated_block(gathers=False)
    x = torch.randn(9, 8)
    with torch.no_grad():
        want = routed(x)
        for dense in (dense_experts(copy.deepcopy(routed)), dense_experts(copy.deepcopy(routed[0]))):
            assert torch.allclose(dense(x), want, rtol=0, atol=1e-6 * float(want.abs().max()))
            graph = torch.export.export(dense, (x,)).run_decompositions().graph
            assert not [n for n in graph.nodes if "topk" in str(n.target)]


def test_the_rewrite_refuses_what_it_does_not_cover() -> None:
    """A model without experts layers, and torch.topk of the smallest
    values inside one, raise with a message."""
    with pytest.raises(ValueError, match="no transformers mixture-of-experts layer"):
        dense_experts(torch.nn.Linear(3, 4))
    model = _model("mixtral")
    dense_experts(model)
    block = next(m for m in model.modules() if getattr(m, "_raptor_dense", False))
    gate = block.gate
    gate.forward = lambda h: (None, *torch.topk(h[..., :4], 2, largest=False))
    with pytest.raises(NotImplementedError, match="largest=False"):
        block(torch.randn(1, LENGTH, 32))
    with pytest.raises(NotImplementedError, match=r"indexes by the chosen experts' positions \(gather\)"):
        dense_experts(_ungated_block(gathers=True))(torch.randn(3, 8))
