// Packing is bounded by both sides of the crossbar: on 8-row, 4-column
// crossbars a 2 x 3 matrix fits 4 times by its rows but once by its
// columns (4 / 3), so it is placed once and each position has its MVM; a
// 2 x 2 matrix fits twice (8 / 2 rows, 4 / 2 columns) and is packed.
// RUN: %raptor-opt %s --split-input-file --raptor-build-compute-graph=target=%S/Inputs/narrow.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @three_chip
// CHECK:      pim.group 0 crossbars 1 weight @{{.*}} matrix #layout.layout<((2,1,1),3):((1,1,1),2)> rows [0, 2] cols [0, 3]
// CHECK:      pim.repeat 4 [{{r[0-9]+}} += 32, {{r[0-9]+}} += 48] {
// CHECK-NEXT:   pim.repeat 4 [{{r[0-9]+}} += 8, {{r[0-9]+}} += 12] {
func.func @three(%x: tensor<1x2x4x4xf32> {nn.input = "x"}) -> tensor<1x3x4x4xf32> {
  %w = nn.constant dense<1.0> : tensor<3x2x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> loc("conv")
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// CHECK-LABEL: pim.chip @two_chip
// CHECK:      pim.group 0 crossbars 1 weight @{{.*}} matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
// CHECK:      pim.repeat 4 [{{r[0-9]+}} += 32, {{r[0-9]+}} += 32] {
// CHECK-NEXT:   pim.repeat 2 [{{r[0-9]+}} += 16, {{r[0-9]+}} += 16] {
func.func @two(%x: tensor<1x2x4x4xf32> {nn.input = "x"}) -> tensor<1x2x4x4xf32> {
  %w = nn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  return %0 : tensor<1x2x4x4xf32>
}
