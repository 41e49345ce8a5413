// Compile-time embeddings (make mutate's semantic survivors, docs/mutation.md):
// row 2 of a constant table of 0..11 (4 rows of 3) is [6, 7, 8], read off by
// hand; an index below 0 or at the table's row count is refused.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<3xf32>
func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %t = nn.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %i = nn.constant dense<[2]> : tensor<1xi64>
  %e = nn.embedding %t, %i : (tensor<4x3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %b = nn.view %e {size = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}

// -----

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %t = nn.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %i = nn.constant dense<[-1]> : tensor<1xi64>
  // expected-error @+1 {{index -1 is outside the table's 4 rows}}
  %e = nn.embedding %t, %i : (tensor<4x3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %b = nn.view %e {size = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}

// -----

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %t = nn.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %i = nn.constant dense<[4]> : tensor<1xi64>
  // expected-error @+1 {{index 4 is outside the table's 4 rows}}
  %e = nn.embedding %t, %i : (tensor<4x3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %b = nn.view %e {size = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}
