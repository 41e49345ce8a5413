// Token ids as a model input: the table stays in global memory and each id
// fetches its row with an ld whose address the program computes (sld reads
// the id, smuli scales it by the row's 12 bytes, saddi adds the table's
// address); the input is an int32 io with the table's row count as its
// vocabulary, through a view as well. An integer-only program holds the
// table in fixed point (row 1 of [0.5, 1, 1.5] at 2^4: 8, 16, 24).
// RUN: %raptor-opt %s -split-input-file --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.io @in_ids "input" name "ids" at [[IDS:[0-9]+]] : tensor<1x2xi32> layout #layout.layout<(2,1):(1,2)> {vocabulary = 4 : i64}
// CHECK-DAG:   pim.data @[[T:c[0-9]+]] at [[TABLE:[0-9]+]] dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]> : tensor<12xf32>
// CHECK:       pim.ld {{r[0-9]+}}, r0 size 8
// CHECK:       pim.sld r1, {{r[0-9]+}}
// CHECK-NEXT:  pim.smuli r1, r1, 12
// CHECK-NEXT:  pim.saddi r1, r1, [[TABLE]]
// CHECK:       pim.ld {{r[0-9]+}}, r0 size 12
// CHECK:       pim.sld r1, {{r[0-9]+}}
// CHECK-NEXT:  pim.smuli r1, r1, 12
// CHECK-NEXT:  pim.saddi r1, r1, [[TABLE]]
// CHECK:       pim.ld {{r[0-9]+}}, r0 size 12
// CHECK-NOT:   pim.sld
// CHECK:       pim.vrelu
func.func @main(%ids: tensor<1x2xi64> {nn.input = "ids"}) -> tensor<1x2x3xf32> {
  %t = nn.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %e = nn.embedding %t, %ids : (tensor<4x3xf32>, tensor<1x2xi64>) -> tensor<1x2x3xf32>
  %r = nn.relu %e : tensor<1x2x3xf32>
  return %r : tensor<1x2x3xf32>
}

// -----

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.io @in_ids "input" name "ids" at {{[0-9]+}} : tensor<2xi32> layout #layout.layout<(2):(1)> {vocabulary = 3 : i64}
// CHECK-DAG:   pim.data @{{c[0-9]+}} at {{[0-9]+}} dense<[0, 0, 0, 8, 16, 24, 0, 0, 0]> : tensor<9xi32>
func.func @main(%ids: tensor<2xi64> {nn.input = "ids"}) -> tensor<1x2x3xf32> attributes {raptor.fixed_point_bits = 4 : i64} {
  %t = nn.constant dense<[[0.0, 0.0, 0.0], [0.5, 1.0, 1.5], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %v = nn.view %ids {size = array<i64: 1, 2>} : (tensor<2xi64>) -> tensor<1x2xi64>
  %e = nn.embedding %t, %v : (tensor<3x3xf32>, tensor<1x2xi64>) -> tensor<1x2x3xf32>
  %r = nn.relu %e : tensor<1x2x3xf32>
  return %r : tensor<1x2x3xf32>
}
