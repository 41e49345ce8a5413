// A 3x3 convolution with padding on 8x8 crossbars. The input is copied into
// a zeroed, padded channels-last buffer; per output position an im2col
// gather (one local move per kernel row: KW x C = 6 contiguous elements)
// feeds three MVMs (K = 9 x 2 = 18 rows: row tiles [0,8), [8,16), [16,18))
// whose partial sums are added. Five outputs: the last tile (2 x 5) does
// not fit its crossbar twice (lower-packed-tail.mlir: three outputs do).
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// The input and output live channels-last in global memory.
// CHECK:      pim.io @in_x "input" name "x" at 0 : tensor<1x2x4x4xf32> layout #layout.layout<(4,4,2,1):(2,8,1,32)>
// CHECK:      pim.io @out0 "output" name "out0" at {{[0-9]+}} : tensor<1x5x4x4xf32> layout #layout.layout<(4,4,5,1):(5,20,1,80)>
// Matrix row k = (kh * 3 + kw) * 2 + c reads weight[n][c][kh][kw].
// CHECK:      pim.group 0 crossbars 1 weight @[[W:.*]] matrix #layout.layout<((2,3,3),5):((9,1,3),18)> rows [0, 8] cols [0, 5]
// CHECK-NEXT: pim.group 1 crossbars 1 weight @[[W]] matrix #layout.layout<((2,3,3),5):((9,1,3),18)> rows [8, 16] cols [0, 5]
// CHECK-NEXT: pim.group 2 crossbars 1 weight @[[W]] matrix #layout.layout<((2,3,3),5):((9,1,3),18)> rows [16, 18] cols [0, 5]
// The padded buffer (6 x 6 x 2 floats) is zeroed, the 4 input rows copied
// into its interior (from byte (1 x 6 + 1) x 2 x 4 = 56, 48 bytes apart).
// CHECK:      pim.lldi [[P:r[0-9]+]], 0 len 288
// CHECK:      pim.ld [[X:r[0-9]+]], r0 size 128
// CHECK:      pim.sldi [[D:r[0-9]+]], 56
// CHECK:      pim.repeat 4 [[[D]] += 48, {{r[0-9]+}} += 32] attributes {access = [#layout.layout<(4,4,2,1):(2,12,1,0)>, #layout.layout<(4,4,2,1):(2,8,1,32)>]}
// CHECK-NEXT:   pim.lmv [[D]], {{r[0-9]+}} len 32
// CHECK-NEXT: }
// Output rows (48 bytes of padded input apart), then columns (8 bytes).
// CHECK:      pim.repeat 4 [[[WIN:r[0-9]+]] += 48, [[OUT:r[0-9]+]] += 80]
// CHECK-NEXT:   pim.repeat 4 [[[WIN]] += 8, [[OUT]] += 20]
// The gather's layouts: (c, kw, kh) of the padded map (strides 1, C, Wp C)
// into the im2col vector (1, C, KW C).
// CHECK-NEXT:     pim.repeat 3 [[[S:r[0-9]+]] += 24, [[WIN]] += 48] attributes {access = [#layout.layout<(2,3,3):(1,2,6)>, #layout.layout<(2,3,3):(1,2,12)>]}
// CHECK-NEXT:       pim.lmv [[S]], [[WIN]] len 24
// CHECK-NEXT:     }
// CHECK-NEXT:     pim.mvmul [[OUT]], [[S]], group 0 mbiw 8
// CHECK-NEXT:     pim.mvmul [[T:r[0-9]+]], {{r[0-9]+}}, group 1 mbiw 8
// CHECK-NEXT:     pim.vvadd [[OUT]], [[OUT]], [[T]] len 5 : f32
// CHECK-NEXT:     pim.mvmul [[T]], {{r[0-9]+}}, group 2 mbiw 8
// CHECK-NEXT:     pim.vvadd [[OUT]], [[OUT]], [[T]] len 5 : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      pim.st r0, {{r[0-9]+}} size 320

func.func @main(%x: tensor<1x2x4x4xf32> {nn.input = "x"}) -> tensor<1x5x4x4xf32> {
  %w = nn.constant dense<0.25> : tensor<5x2x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<5x2x3x3xf32>) -> tensor<1x5x4x4xf32> loc("conv")
  return %0 : tensor<1x5x4x4xf32>
}
