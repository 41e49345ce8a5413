// A select of a constant is computed by the compiler
// (passes/nn/ConstantEvaluator.cpp): YOLOS takes its class token's
// position embedding as `w[:, 0]` of a weight. Of the 2x3 constant
// [[1, 2, 3], [4, 5, 6]], position 1 of the last dimension is [2, 5] and
// position -1 of the first is [4, 5, 6]; each is a linear layer's bias.
// RUN: %raptor-opt %s -split-input-file --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK:       pim.data @{{.*}} at {{[0-9]+}} dense<[2.000000e+00, 5.000000e+00]> : tensor<2xf32>

func.func @main(%x: tensor<1x2xf32> {nn.input = "x"}) -> tensor<1x2xf32> {
  %w = nn.constant dense<0.5> : tensor<2x2xf32>
  %c = nn.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = nn.select %c {dim = 1 : i64, index = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32> loc("fc")
  return %0 : tensor<1x2xf32>
}

// -----

// CHECK-LABEL: pim.chip @main_chip
// CHECK:       pim.data @{{.*}} at {{[0-9]+}} dense<[4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<3xf32>

func.func @main(%x: tensor<1x3xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x3xf32>
  %c = nn.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = nn.select %c {dim = 0 : i64, index = -1 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}
