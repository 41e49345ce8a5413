// nn.last_token in int32 vector instructions: the padding mask as for
// nn.token_positions, times the positions 0..3 (a constant), the row's
// maximum in two shifted maxima (a copy of the first 1, then 2, elements
// and a vvmax of the other 3, then 2), then per sequence the row at that
// position copied by an lmv from the address sld/smuli/saddi compute in r1:
// element 3 of each row of maxima, rows of 2 floats (8 bytes) from the
// input's address plus 32 bytes per sequence.
// (The sequences' last-element addresses 16 bytes apart, their rows 32.)
// RUN: %raptor-opt %s -split-input-file --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.io @in_ids "input" name "ids" at {{[0-9]+}} : tensor<2x4xi32> layout #layout.layout<(4,2):(1,4)> {vocabulary = 5 : i64}
// CHECK:       pim.vrelu [[D:r[0-9]+]], [[D]] len 8 : i32
// CHECK-NEXT:  pim.vvsub [[D]], {{r[0-9]+}}, [[D]] len 8 : i32
// CHECK-NEXT:  pim.sldi {{r[0-9]+}}, {{[0-9]+}}
// CHECK-NEXT:  pim.vvmul [[D]], [[D]], {{r[0-9]+}} len 8 : i32
// CHECK-NEXT:  pim.lmv {{r[0-9]+}}, [[D]] len 4
// CHECK:       pim.vvmax {{r[0-9]+}}, {{r[0-9]+}}, [[D]] len 3 : i32
// CHECK:       pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 4
// CHECK:       pim.vvmax {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 3 : i32
// CHECK:       pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 8
// CHECK:       pim.vvmax {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 2 : i32
// CHECK:       pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 8
// CHECK:       pim.vvmax {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 2 : i32
// CHECK-NEXT:  pim.sldi [[I0:r[0-9]+]], [[#LAST:]]
// CHECK-NEXT:  pim.sld r1, [[I0]]
// CHECK-NEXT:  pim.smuli r1, r1, 8
// CHECK-NEXT:  pim.saddi r1, r1, [[#ROWS:]]
// CHECK-NEXT:  pim.sldi [[O:r[0-9]+]], [[#OUT:]]
// CHECK-NEXT:  pim.lmv [[O]], r1 len 8
// CHECK-NEXT:  pim.sldi [[I1:r[0-9]+]], [[#LAST+16]]
// CHECK-NEXT:  pim.sld r1, [[I1]]
// CHECK-NEXT:  pim.smuli r1, r1, 8
// CHECK-NEXT:  pim.saddi r1, r1, [[#ROWS+32]]
// CHECK-NEXT:  pim.sldi [[O1:r[0-9]+]], [[#OUT+8]]
// CHECK-NEXT:  pim.lmv [[O1]], r1 len 8
// CHECK:       pim.st r0, [[O]] size 16
func.func @main(%ids: tensor<2x4xi64> {nn.input = "ids"}) -> tensor<2x2xf32> {
  %words = nn.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]]> : tensor<5x2xf32>
  %w = nn.embedding %words, %ids : (tensor<5x2xf32>, tensor<2x4xi64>) -> tensor<2x4x2xf32>
  %r = nn.relu %w : tensor<2x4x2xf32>
  %last = nn.last_token %r, %ids {padding_idx = 0 : i64} : (tensor<2x4x2xf32>, tensor<2x4xi64>) -> tensor<2x2xf32>
  return %last : tensor<2x2xf32>
}

// -----

// Counted (MBart's decoder start token): the mask's row sums by shifted
// additions (vvadd where the last-token form takes vvmax, no product with
// the positions), less one, relu (0 for a row of padding), then the rows
// copied as above.
// CHECK-LABEL: pim.chip @main_chip
// CHECK:       pim.vrelu [[D:r[0-9]+]], [[D]] len 8 : i32
// CHECK-NEXT:  pim.vvsub [[D]], [[ONE:r[0-9]+]], [[D]] len 8 : i32
// CHECK-NOT:   pim.vvmul
// CHECK-NOT:   pim.vvmax
// CHECK:       pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, [[D]] len 3 : i32
// CHECK:       pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 2 : i32
// CHECK:       pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 2 : i32
// CHECK-NEXT:  pim.sldi [[S:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:  pim.sldi [[ONE2:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:  pim.vvsub [[S]], [[S]], [[ONE2]] len 8 : i32
// CHECK-NEXT:  pim.vrelu [[S]], [[S]] len 8 : i32
// CHECK-NEXT:  pim.sldi {{r[0-9]+}}, {{[0-9]+}}
// CHECK-NEXT:  pim.sld r1, {{r[0-9]+}}
// CHECK-NEXT:  pim.smuli r1, r1, 8
func.func @main(%ids: tensor<2x4xi64> {nn.input = "ids"}) -> tensor<2x2xf32> {
  %words = nn.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]]> : tensor<5x2xf32>
  %w = nn.embedding %words, %ids : (tensor<5x2xf32>, tensor<2x4xi64>) -> tensor<2x4x2xf32>
  %r = nn.relu %w : tensor<2x4x2xf32>
  %last = nn.last_token %r, %ids {padding_idx = 0 : i64, counted} : (tensor<2x4x2xf32>, tensor<2x4xi64>) -> tensor<2x2xf32>
  return %last : tensor<2x2xf32>
}
