#!/usr/bin/env python3
"""How much the zoo's random-weight networks amplify small perturbations.

Adds independent Gaussian noise of relative size r (times each tensor's
standard deviation) to the input of every convolution and linear layer of
the eager torch model, and prints the cosine similarity of the output with
the clean one; then measures the relative error int8 encodings introduce
at the observation points and in the weight codes (the perturbation int8
applies). Together they show which cosine perturbations of that size give
in these networks, independently of Raptor's programs.

    python bench/quant_noise_sensitivity.py [--models shufflenet_v2,unet] [--noise 0.003,0.006,0.012]
"""

from __future__ import annotations

import argparse

import torch

from raptor.zoo._models import MODELS


def cosine_under_noise(name: str, relative: float, trials: int = 3) -> list[float]:
    model = MODELS[name].build()
    shape = MODELS[name].example_input_shape
    g = torch.Generator().manual_seed(5)

    def perturb(_module: torch.nn.Module, args: tuple) -> tuple:
        x = args[0]
        return (x + relative * x.std() * torch.randn(x.shape, generator=g),) + args[1:]

    x = torch.randn(shape, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        clean = model(x).flatten()
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                m.register_forward_pre_hook(perturb)
        return [float(torch.nn.functional.cosine_similarity(model(x).flatten(), clean, dim=0))
                for _ in range(trials)]


def encoding_noise(name: str, policy: str = "Y") -> tuple[float, float]:
    """Median relative error (||x - decode(encode(x))|| / ||x||) of the
    activation encodings at the observation points, and of the per-channel
    weight codes, on a held-out input after calibration on 4 inputs."""
    import numpy as np

    from raptor import quant, sources
    from raptor import weights as weight_files
    from raptor.quant.interpreter import evaluate

    model = sources.load(name)
    tensors = weight_files.load(model.weights)
    quant.prepare(model.module, policy, "nonlocal-coalesced")
    cal = quant.calibrate(model.module, tensors, quant.random_inputs(model.module, 4))
    errors: list[float] = []

    def observe(subgraph: int, x: np.ndarray) -> None:
        if subgraph not in cal.scales:
            return
        s, z = np.float32(cal.scales[subgraph]), cal.zeros[subgraph]
        q = np.clip(np.rint(x * (np.float32(1) / s) + np.float32(z)), -127, 127)
        errors.append(float(np.linalg.norm(x - s * (q - z)) / max(np.linalg.norm(x), 1e-30)))

    evaluate(model.module, quant.random_inputs(model.module, 1, seed=1)[0], tensors, observe=observe)
    weight_errors = []
    for w in tensors.values():
        if w.ndim in (2, 4) and w.shape[0] > 1:
            codes, scales = quant.quantize_per_channel(w)
            approx = codes * scales.reshape((-1,) + (1,) * (w.ndim - 1))
            weight_errors.append(float(np.linalg.norm(w - approx) / max(np.linalg.norm(w), 1e-30)))
    return float(np.median(errors)), float(np.median(weight_errors))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="shufflenet_v2,unet")
    ap.add_argument("--noise", default="0.003,0.006,0.012", help="relative noise levels")
    args = ap.parse_args()
    print("| model | noise | cosine (3 draws) |\n|---|---:|---|")
    for name in args.models.split(","):
        for r in (float(v) for v in args.noise.split(",")):
            print(f"| {name} | {r:.3f} | {', '.join(f'{c:.4f}' for c in cosine_under_noise(name, r))} |")
    print("\n| model | activation encoding error (median) | weight code error (median) |\n|---|---:|---:|")
    for name in args.models.split(","):
        activations, weights = encoding_noise(name)
        print(f"| {name} | {activations:.4f} | {weights:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
