// Compile-time values of weights through strided views (make mutate's
// survivors, docs/mutation.md): a bias that is every other element of a
// constant, from element 1, must reach global memory as [1, 3, 5]
// (elements 1, 3 and 5 of 0..9, read off by hand).
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[1.000000e+00, 3.000000e+00, 5.000000e+00]> : tensor<3xf32>
// CHECK-DAG:   pim.weight @{{.*}} dense<5.000000e-01> : tensor<3x4xf32>

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %c = nn.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>
  %b = nn.slice %c {dim = 0, start = 1, end = 6, step = 2} : (tensor<10xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}
