// A layer norm of a constant is computed by the compiler
// (passes/nn/ConstantEvaluator.cpp) as torch's layer_norm does it: the
// biased variance, the mean of the squared deviations over the normalized
// elements. [1, 3, 1, 3] has mean 2 and variance (1 + 1 + 1 + 1) / 4 = 1,
// so with eps 0 it normalizes to [-1, 1, -1, 1] (the unbiased variance 4/3
// would give +-0.866: a hand-made C++ mutant of 2026-12-06,
// docs/mutation.md). The normalized constant is the linear layer's bias.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK:       pim.data @{{.*}} at {{[0-9]+}} dense<[-1.000000e+00, 1.000000e+00, -1.000000e+00, 1.000000e+00]> : tensor<4xf32>

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x4xf32> {
  %w = nn.constant dense<0.5> : tensor<4x4xf32>
  %c = nn.constant dense<[1.0, 3.0, 1.0, 3.0]> : tensor<4xf32>
  %b = nn.layer_norm %c {normalized_shape = array<i64: 4>, eps = 0.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<1x4xf32> loc("fc")
  return %0 : tensor<1x4xf32>
}
