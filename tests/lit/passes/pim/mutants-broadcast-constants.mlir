// A bias computed at compile time by a two-dimensional broadcast (make
// mutate's survivor in ConstantEvaluator's broadcast walk, docs/mutation.md):
// [[0], [10], [20]] + [1, 2] is [[1, 2], [11, 12], [21, 22]] (numpy rules,
// by hand), flattened to the linear layer's six output features; it must
// reach global memory in that order.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[1.000000e+00, 2.000000e+00, 1.100000e+01, 1.200000e+01, 2.100000e+01, 2.200000e+01]> : tensor<6xf32>

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x6xf32> {
  %w = nn.constant dense<0.5> : tensor<6x4xf32>
  %rows = nn.constant dense<[[0.0], [10.0], [20.0]]> : tensor<3x1xf32>
  %cols = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %sum = nn.add %rows, %cols : (tensor<3x1xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %b = nn.view %sum {size = array<i64: 6>} : (tensor<3x2xf32>) -> tensor<6xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<1x6xf32> loc("fc")
  return %0 : tensor<1x6xf32>
}
