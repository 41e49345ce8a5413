"""Hand-made mutant of raptor.frontend (fifth round): an ONNX
InstanceNormalization's epsilon reaches the normalisation (left out, the
layer norm's own default 1e-5 is ONNX's default too, so only a model that
sets another epsilon tells them apart). Expected values from onnxruntime."""

from __future__ import annotations

import numpy as np
from onnx import helper

from test_defaults_onnx import _init
from test_onnx_frontend import _check, _model, _tensor


def test_instance_normalization_uses_its_epsilon() -> None:
    rng = np.random.default_rng(5)
    init = [_init("s", rng.standard_normal(3).astype(np.float32)), _init("b", rng.standard_normal(3).astype(np.float32))]
    node = helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=0.05)
    model = _model([node], [_tensor("x", [1, 3, 4, 5])], [_tensor("y", [1, 3, 4, 5])], init)
    # Channels of variance about 0.01: an epsilon of 0.05 against 1e-5 changes every output severalfold.
    x = (0.1 * rng.standard_normal((1, 3, 4, 5))).astype(np.float32)
    _check(model.SerializeToString(), x, rtol=1e-4)
