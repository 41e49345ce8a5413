"""Model definitions for the Raptor zoo (random weights, offline)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

__all__ = ["MODELS", "ModelSpec", "SingleTensorWrapper", "estimate_batch_norms"]

#: Seed used before constructing every model, so weights are reproducible.
SEED = 0
#: Version of the weight recipe (part of cached file names): 2 estimates
#: batch-norm statistics on random inputs.
RECIPE = 2


@dataclass(frozen=True)
class ModelSpec:
    """Description of one zoo model.

    Attributes:
        name: Key in :data:`MODELS`.
        description: Human readable one-line description.
        build: Zero-argument factory returning the model in eval mode with
            seeded random weights.  ``forward`` takes one tensor of shape
            ``example_input_shape`` (float32) and returns one tensor.
        example_input_shape: Shape of the single float32 input tensor.
    """

    name: str
    description: str
    build: Callable[[], nn.Module]
    example_input_shape: tuple[int, ...]


class SingleTensorWrapper(nn.Module):
    """Adapts a HuggingFace model to ``forward(tensor) -> tensor``.

    Args:
        model: The wrapped model.
        input_kwarg: Keyword under which the input tensor is passed
            (e.g. ``"pixel_values"`` or ``"inputs_embeds"``).
        extra_kwargs: Further constant keyword arguments for every call.

    Returns ``last_hidden_state`` of the model output.
    """

    def __init__(
        self,
        model: nn.Module,
        input_kwarg: str,
        extra_kwargs: dict[str, object] | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.input_kwarg = input_kwarg
        self.extra_kwargs: dict[str, object] = dict(extra_kwargs or {})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.model(**{self.input_kwarg: x}, **self.extra_kwargs)
        return out.last_hidden_state


def estimate_batch_norms(model: nn.Module, shape: tuple[int, ...], batch: int = 4) -> None:
    """Batch-norm statistics measured on seeded random inputs.

    With torchvision's initialization and default statistics (mean 0,
    variance 1) activations shrink layer after layer: a ResNet or
    ShuffleNetV2 then answers the same to every input, which makes accuracy
    measurements (int8 against float32) meaningless. Estimating the
    statistics as training would (one pass of ``batch`` inputs, cumulative
    averages) keeps every layer normalized and the output input-dependent.
    """
    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None
    g = torch.Generator().manual_seed(SEED)
    model.train()
    with torch.no_grad():
        model(torch.randn((batch, *shape[1:]), generator=g))
    for m in norms:
        m.momentum = 0.1


def _finish(model: nn.Module) -> nn.Module:
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def build_shufflenet_v2() -> nn.Module:
    """torchvision ShuffleNetV2 x1.0, 1000 classes, random weights."""
    import torchvision

    torch.manual_seed(SEED)
    model = torchvision.models.shufflenet_v2_x1_0(weights=None)
    estimate_batch_norms(model, (1, 3, 224, 224))
    return _finish(model)


def build_unet() -> nn.Module:
    """segmentation_models_pytorch U-Net with a ResNet-34 encoder, 1 class."""
    import segmentation_models_pytorch as smp

    torch.manual_seed(SEED)
    model = smp.Unet("resnet34", encoder_weights=None, classes=1)
    estimate_batch_norms(model, (1, 3, 512, 512), batch=2)
    return _finish(model)


def build_siglip() -> nn.Module:
    """SmolVLM2-256M vision tower (SigLIP ViT-B/16 at 512x512, no head)."""
    from transformers import SiglipVisionConfig, SiglipVisionModel

    config = SiglipVisionConfig(
        hidden_size=768,
        intermediate_size=3072,
        num_hidden_layers=12,
        num_attention_heads=12,
        num_channels=3,
        image_size=512,
        patch_size=16,
        hidden_act="gelu_pytorch_tanh",
        layer_norm_eps=1e-6,
        attention_dropout=0.0,
        vision_use_head=False,
    )
    config._attn_implementation = "sdpa"
    torch.manual_seed(SEED)
    model = SiglipVisionModel(config)
    return _finish(SingleTensorWrapper(model, "pixel_values"))


def build_smollm2() -> nn.Module:
    """SmolVLM2-256M text model (SmolLM2-135M-style Llama, 30 layers, GQA 9/3).

    Fed with ``inputs_embeds``; the (unused) token embedding table is still
    part of the module but is not used by the exported graph.
    """
    from transformers import LlamaConfig, LlamaModel

    config = LlamaConfig(
        vocab_size=49280,
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        head_dim=64,
        hidden_act="silu",
        max_position_embeddings=8192,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 100000.0},
        attention_bias=False,
        attention_dropout=0.0,
        mlp_bias=False,
        tie_word_embeddings=False,
        use_cache=False,
        pad_token_id=2,
        bos_token_id=1,
        eos_token_id=2,
    )
    config._attn_implementation = "sdpa"
    torch.manual_seed(SEED)
    model = LlamaModel(config)
    return _finish(SingleTensorWrapper(model, "inputs_embeds", {"use_cache": False}))


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="shufflenet_v2",
            description="ShuffleNetV2 x1.0 image classifier (torchvision)",
            build=build_shufflenet_v2,
            example_input_shape=(1, 3, 224, 224),
        ),
        ModelSpec(
            name="unet",
            description="U-Net, ResNet-34 encoder, 1-class segmentation (smp)",
            build=build_unet,
            example_input_shape=(1, 3, 512, 512),
        ),
        ModelSpec(
            name="siglip",
            description="SmolVLM2-256M SigLIP vision encoder, 512x512, sdpa",
            build=build_siglip,
            example_input_shape=(1, 3, 512, 512),
        ),
        ModelSpec(
            name="smollm2",
            description="SmolVLM2-256M Llama text decoder on inputs_embeds, sdpa",
            build=build_smollm2,
            example_input_shape=(1, 128, 576),
        ),
    )
}
