// A matrix taller than a crossbar whose last row tile fits it p times: the
// full tiles run per output position, the last tile once per p positions
// (spatial::packedPositions). K = 9 x 2 = 18 rows on 8 x 8 crossbars: row
// tiles [0, 8), [8, 16) and the tail [16, 18), 2 rows by N = 3 outputs,
// p = min(8 / 2, 8 / 3) = 2, which divides the 4 positions of a row.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// The tail tile holds the matrix's rows 16 and 17 (weight[n][0][2][2] = 1,
// weight[n][1][2][2] = n + 2) twice, reversed: outputs 0-2 (the first
// position's) read inputs 2-3, where the first window's tail lies.
// CHECK:      pim.weight @[[T:.*]] dense<{{\[}}[0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 3.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 4.000000e+00], [1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<6x4xf32>
// CHECK:      pim.group 0 crossbars 1 weight @[[W:.*]] matrix #layout.layout<((2,3,3),3):((9,1,3),18)> rows [0, 8] cols [0, 3]
// CHECK-NEXT: pim.group 1 crossbars 1 weight @[[W]] matrix #layout.layout<((2,3,3),3):((9,1,3),18)> rows [8, 16] cols [0, 3]
// CHECK-NEXT: pim.group 2 crossbars 1 weight @[[T]] matrix #layout.layout<(4,6):(1,4)> rows [0, 4] cols [0, 6]
// After the padded input's copy: the window and output walks, the im2col
// buffer at B, its second row tile 32 bytes on, its tail 64, the sums.
// CHECK:      pim.lmv
// CHECK-NEXT: }
// CHECK-NEXT: pim.sldi {{r[0-9]+}}, 0
// CHECK-NEXT: pim.sldi {{r[0-9]+}}, {{[0-9]+}}
// CHECK-NEXT: pim.sldi [[B:r[0-9]+]], [[#BASE:]]
// CHECK-NEXT: pim.sldi [[B1:r[0-9]+]], [[#BASE+32]]
// CHECK-NEXT: pim.sldi [[B2:r[0-9]+]], [[#BASE+64]]
// CHECK-NEXT: pim.sldi [[TMP:r[0-9]+]], {{[0-9]+}}
// Rows, then pairs of positions (16 bytes of padded input, 24 of output).
// CHECK:      pim.repeat 4 [[[WIN:r[0-9]+]] += 48, [[OUT:r[0-9]+]] += 48] {
// CHECK-NEXT:   pim.repeat 2 [[[WIN]] += 16, [[OUT]] += 24] {
// The first window goes 2 elements (8 bytes) up; its full tiles run at once,
// the first writing the position's 3 outputs, the second added.
// CHECK-NEXT:     pim.saddi [[S:r[0-9]+]], [[B]], 8
// CHECK-NEXT:     pim.repeat 3 [[[S]] += 24, [[WIN]] += 48]
// CHECK-NEXT:       pim.lmv [[S]], [[WIN]] len 24
// CHECK-NEXT:     }
// CHECK-NEXT:     pim.saddi [[I0:r[0-9]+]], [[B]], 8
// CHECK-NEXT:     pim.mvmul [[OUT]], [[I0]], group 0 mbiw 8
// CHECK-NEXT:     pim.saddi [[I1:r[0-9]+]], [[B1]], 8
// CHECK-NEXT:     pim.mvmul [[TMP]], [[I1]], group 1 mbiw 8
// CHECK-NEXT:     pim.vvadd [[OUT]], [[OUT]], [[TMP]] len 3 : f32
// The second window (8 bytes of input on) below it, over the first's full
// part; its outputs 12 bytes on.
// CHECK-NEXT:     pim.saddi [[W2:r[0-9]+]], [[WIN]], 8
// CHECK-NEXT:     pim.repeat 3 [[[B]] += 24, [[W2]] += 48]
// CHECK-NEXT:       pim.lmv [[B]], [[W2]] len 24
// CHECK-NEXT:     }
// CHECK-NEXT:     pim.saddi [[O2:r[0-9]+]], [[OUT]], 12
// CHECK-NEXT:     pim.mvmul [[O2]], [[B]], group 0 mbiw 8
// CHECK-NEXT:     pim.mvmul [[TMP]], [[B1]], group 1 mbiw 8
// CHECK-NEXT:     pim.vvadd [[O2]], [[O2]], [[TMP]] len 3 : f32
// One MVM of the tail for both positions, added over their 6 outputs.
// CHECK-NEXT:     pim.mvmul [[TMP]], [[B2]], group 2 mbiw 8
// CHECK-NEXT:     pim.vvadd [[OUT]], [[OUT]], [[TMP]] len 6 : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @main(%x: tensor<1x2x4x4xf32> {nn.input = "x"}) -> tensor<1x3x4x4xf32> {
  %w = nn.constant dense<[[[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 2.0]]], [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 3.0]]], [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 4.0]]]]> : tensor<3x2x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32> loc("conv")
  return %0 : tensor<1x3x4x4xf32>
}
