// nn.token_positions in int32 vector instructions: the mask 1 - relu(1 -
// |ids - pad|) (the instruction set has no comparison), the prefix sums of
// a row of 4 in two shifted additions (a copy of the first 1, then 2,
// elements and an add of the other 3, then 2), the product by the mask and
// the padding index (2) added; the embedding then reads its ids from those
// positions on the core.
// RUN: %raptor-opt %s -split-input-file --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.io @in_ids "input" name "ids" at {{[0-9]+}} : tensor<1x4xi32> layout #layout.layout<(4,1):(1,4)> {vocabulary = 5 : i64}
// CHECK:       pim.ld [[IDS:r[0-9]+]], r0 size 16
// CHECK:       pim.sldi [[PAD:r[0-9]+]], [[PADAT:[0-9]+]]
// CHECK:       pim.vvsub [[D:r[0-9]+]], [[IDS]], [[PAD]] len 4 : i32
// CHECK:       pim.vvsub [[N:r[0-9]+]], [[ONE:r[0-9]+]], [[ONE]] len 4 : i32
// CHECK-NEXT:  pim.vvsub [[N]], [[N]], [[D]] len 4 : i32
// CHECK-NEXT:  pim.vvmax [[D]], [[D]], [[N]] len 4 : i32
// CHECK-NEXT:  pim.vvsub [[D]], [[ONE]], [[D]] len 4 : i32
// CHECK-NEXT:  pim.vrelu [[D]], [[D]] len 4 : i32
// CHECK-NEXT:  pim.vvsub [[D]], [[ONE]], [[D]] len 4 : i32
// CHECK-NEXT:  pim.lmv [[N]], [[D]] len 4
// CHECK:       pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, [[D]] len 3 : i32
// CHECK:       pim.lmv [[OUT:r[0-9]+]], [[N]] len 8
// CHECK:       pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, [[N]] len 2 : i32
// CHECK-NEXT:  pim.vvmul [[OUT]], [[OUT]], [[D]] len 4 : i32
// CHECK-NEXT:  pim.sldi [[P:r[0-9]+]], [[PADAT]]
// CHECK-NEXT:  pim.vvadd [[OUT]], [[OUT]], [[P]] len 4 : i32
// CHECK-NEXT:  pim.sld r1, [[OUT]]
// CHECK-COUNT-3: pim.sld r1
func.func @main(%ids: tensor<1x4xi64> {nn.input = "ids"}) -> tensor<1x4x2xf32> {
  %words = nn.constant dense<1.0> : tensor<5x2xf32>
  %places = nn.constant dense<[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [5.0, 5.0], [6.0, 6.0]]> : tensor<7x2xf32>
  %w = nn.embedding %words, %ids : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %pos = nn.token_positions %ids {padding_idx = 2 : i64} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %p = nn.embedding %places, %pos : (tensor<7x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %s = nn.add %w, %p : (tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %s : tensor<1x4x2xf32>
}

// -----

// OPT's positions from its mask (padding 0, base 1): the product by the
// mask plus a constant of 1s, not the padding index's 0s; the embedding
// reads rows up to base + length, 5 of its 6.
// CHECK-LABEL: pim.chip @main_chip
// CHECK:       pim.sldi [[PAD:r[0-9]+]], [[PADAT:[0-9]+]]
// CHECK:       pim.vvmul [[OUT:r[0-9]+]], [[OUT]], {{r[0-9]+}} len 4 : i32
// CHECK-NEXT:  pim.sldi [[B:r[0-9]+]], [[BASEAT:[0-9]+]]
// CHECK-NOT:   pim.sldi {{r[0-9]+}}, [[PADAT]]
// CHECK-NEXT:  pim.vvadd [[OUT]], [[OUT]], [[B]] len 4 : i32
func.func @main(%ids: tensor<1x4xi64> {nn.input = "ids"}, %mask: tensor<1x4xi64> {nn.input = "mask"}) -> tensor<1x4x2xf32> {
  %words = nn.constant dense<1.0> : tensor<5x2xf32>
  %places = nn.constant dense<[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [5.0, 5.0]]> : tensor<6x2xf32>
  %w = nn.embedding %words, %ids : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %pos = nn.token_positions %mask {padding_idx = 0 : i64, base = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %p = nn.embedding %places, %pos : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %s = nn.add %w, %p : (tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %s : tensor<1x4x2xf32>
}
