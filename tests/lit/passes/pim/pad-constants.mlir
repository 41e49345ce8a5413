// A constant padding of a constant is computed by the compiler
// (passes/nn/ConstantEvaluator.cpp): a transposed convolution's kernel is
// padded with zeros to whole phases (frontend/_transposed_convolution.py).
// The 1x2 constant [[1, 2]] padded by one before the last dimension and
// two after, and one row after the first, with value 0.5, is
// [[0.5, 1, 2, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5]]: the bias of a
// linear layer of 10 outputs, viewed flat.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK:       pim.data @{{.*}} at {{[0-9]+}} dense<[5.000000e-01, 1.000000e+00, 2.000000e+00, 5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01]> : tensor<10xf32>

func.func @main(%x: tensor<1x2xf32> {nn.input = "x"}) -> tensor<1x10xf32> {
  %w = nn.constant dense<0.25> : tensor<10x2xf32>
  %c = nn.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %p = nn.constant_pad_nd %c {pad = array<i64: 1, 2, 0, 1>, value = 5.000000e-01 : f64} : (tensor<1x2xf32>) -> tensor<2x5xf32>
  %b = nn.view %p {size = array<i64: 10>} : (tensor<2x5xf32>) -> tensor<10xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x2xf32>, tensor<10x2xf32>, tensor<10xf32>) -> tensor<1x10xf32> loc("fc")
  return %0 : tensor<1x10xf32>
}
