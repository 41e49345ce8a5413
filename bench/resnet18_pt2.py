#!/usr/bin/env python3
"""Writes torchvision's ResNet-18 with seeded random weights as a
torch.export file, the model of docs/sweep.md's worked example.

Weights from ``torch.manual_seed(0)``; the batch-norm statistics estimated
on random inputs as the zoo does (so activations keep their scale); the
input 1 x 3 x 224 x 224.

    python bench/resnet18_pt2.py [-o build/sweep/resnet18.pt2]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
import torchvision

from raptor.zoo._models import estimate_batch_norms

SIZE = 224


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default="build/sweep/resnet18.pt2", help="the .pt2 file to write")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None)
    estimate_batch_norms(model, (1, 3, SIZE, SIZE))
    model.eval()
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.stem}.tmp.pt2")  # torch.export wants the suffix
    torch.export.save(torch.export.export(model, (torch.randn(1, 3, SIZE, SIZE),)), tmp)
    tmp.replace(out)
    print(f"{out}: torchvision ResNet-18, seeded random weights, input 1x3x{SIZE}x{SIZE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
