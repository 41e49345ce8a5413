// A weight matrix that fits its crossbar p times over sits there p times
// block-diagonally, and one MVM computes p consecutive output positions of
// a row: their im2col windows side by side in its input, their outputs side
// by side, where the channels-last result keeps them (8 x 8 crossbars).
// RUN: %raptor-opt %s --split-input-file --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// A 1x1 convolution, K = 2 inputs by N = 3 outputs: p = min(8 / 2, 8 / 3)
// = 2, which divides the 4 positions of a row. The tile is the 6 x 4
// block-diagonal matrix (N rows of K as a linear layer's weight), the bias
// repeated for the two positions.
// CHECK-LABEL: pim.chip @packed_chip
// CHECK:      pim.data @[[B:.*]] at {{[0-9]+}} dense<[5.000000e-01, 1.500000e+00, 2.500000e+00, 5.000000e-01, 1.500000e+00, 2.500000e+00]> : tensor<6xf32>
// CHECK:      pim.weight @[[W:.*]] dense<{{\[}}[1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00], [3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00], [5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00], [0.000000e+00, 0.000000e+00, 3.000000e+00, 4.000000e+00], [0.000000e+00, 0.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<6x4xf32>
// CHECK:      pim.group 0 crossbars 1 weight @[[W]] matrix #layout.layout<(4,6):(1,4)> rows [0, 4] cols [0, 6]
// Rows (32 bytes of input, 48 of output apart), then pairs of positions
// (16 and 24 bytes): two window moves (the second 8 bytes on in both), one
// MVM, one bias add over both positions.
// CHECK:      pim.repeat 4 [[[WIN:r[0-9]+]] += 32, [[OUT:r[0-9]+]] += 48] {
// CHECK-NEXT:   pim.repeat 2 [[[WIN]] += 16, [[OUT]] += 24] {
// CHECK-NEXT:     pim.lmv [[S:r[0-9]+]], [[WIN]] len 8
// CHECK-NEXT:     pim.saddi [[S2:r[0-9]+]], [[S]], 8
// CHECK-NEXT:     pim.saddi [[WIN2:r[0-9]+]], [[WIN]], 8
// CHECK-NEXT:     pim.lmv [[S2]], [[WIN2]] len 8
// CHECK-NEXT:     pim.mvmul [[OUT]], [[S]], group 0 mbiw 8
// CHECK-NEXT:     pim.vvadd [[OUT]], [[OUT]], {{r[0-9]+}} len 6 : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @packed(%x: tensor<1x2x4x4xf32> {nn.input = "x"}) -> tensor<1x3x4x4xf32> {
  %w = nn.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]]]> : tensor<3x2x1x1xf32>
  %b = nn.constant dense<[0.5, 1.5, 2.5]> : tensor<3xf32>
  %0 = nn.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32> loc("conv")
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// Strided, padded, a 3 x 1 kernel: K = 3, N = 2, p = 2 of the 4 positions.
// A pair of positions starts 2 x 2 x 4 = 16 bytes after the one before in
// the padded row, its second window 8 bytes after its first.
// CHECK-LABEL: pim.chip @strided_chip
// CHECK:      pim.group 0 crossbars 1 weight @{{.*}} matrix #layout.layout<(6,4):(1,6)> rows [0, 6] cols [0, 4]
// CHECK:      pim.repeat 3 [[[WIN:r[0-9]+]] += 64, [[OUT:r[0-9]+]] += 32] {
// CHECK-NEXT:   pim.repeat 2 [[[WIN]] += 16, [[OUT]] += 16] {
// CHECK-NEXT:     pim.repeat 3 [[[S:r[0-9]+]] += 4, [[WIN]] += 32]
// CHECK-NEXT:       pim.lmv [[S]], [[WIN]] len 4
// CHECK:          pim.repeat 3
// CHECK-NEXT:       pim.lmv
// CHECK:          pim.mvmul [[OUT]], [[S]], group 0 mbiw 8
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @strided(%x: tensor<1x1x5x8xf32> {nn.input = "x"}) -> tensor<1x2x3x4xf32> {
  %w = nn.constant dense<1.0> : tensor<2x1x3x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x5x8xf32>, tensor<2x1x3x1xf32>) -> tensor<1x2x3x4xf32> loc("conv")
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// p = 2 would fit (8 / 2, 8 / 3) but does not divide the 3 positions of a
// row: the tile is the matrix once, one MVM per position.
// CHECK-LABEL: pim.chip @odd_chip
// CHECK:      pim.weight @[[W:.*]] dense<1.000000e+00> : tensor<3x2x1x1xf32>
// CHECK:      pim.group 0 crossbars 1 weight @[[W]] matrix #layout.layout<((2,1,1),3):((1,1,1),2)> rows [0, 2] cols [0, 3]
// CHECK:      pim.repeat 4 [[[WIN:r[0-9]+]] += 24, [[OUT:r[0-9]+]] += 36] {
// CHECK-NEXT:   pim.repeat 3 [[[WIN]] += 8, [[OUT]] += 12] {
// CHECK-NEXT:     pim.lmv
// CHECK-NEXT:     pim.mvmul [[OUT]], {{r[0-9]+}}, group 0 mbiw 8
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @odd(%x: tensor<1x2x4x3xf32> {nn.input = "x"}) -> tensor<1x3x4x3xf32> {
  %w = nn.constant dense<1.0> : tensor<3x2x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x3xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x3xf32> loc("conv")
  return %0 : tensor<1x3x4x3xf32>
}
