// Grouped convolutions are the block-diagonal embedding of their groups:
// only tiles that can hold a nonzero weight get crossbars (two of four
// here). Depthwise convolutions run on the vector unit: per kernel tap one
// multiply per output row (the tap's weights laid out along the row), then
// an add over the whole output; the bias is one add. Its cost: 9 taps x 4
// rows x 14 ns (16-element multiplies) + 9 x 35 ns (64-element adds) = 819.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial | FileCheck %s --check-prefix=GRAPH
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// GRAPH: spatial.task "grouped#0" {{.*}}col_tiles = array<i64: 0, 2>{{.*}}row_tiles = array<i64: 0, 2>{{.*}}tiles = 2 : i64
// GRAPH: spatial.task "depthwise#0" bytes [] {core = {{[0-9]+}} : i64, cost_ns = 819 : i64, last = true, op = "nn.convolution", position = {{[0-9]+}} : i64, predicted_start_ns = {{[0-9]+}} : i64, slot = 0 : i64, source = 4 : i64, start_ns = 0 : i64}

// The embedded weight is 16 x 16 (zeros off the diagonal blocks).
// CHECK:      pim.weight @[[W:.*]] dense<"0x0000003F{{.*}}"> : tensor<16x16x1x1xf32>
// CHECK:      pim.group 0 crossbars 1 weight @[[W]] matrix #layout.layout<((16,1,1),16):((1,1,1),16)> rows [0, 8] cols [0, 8]
// CHECK-NEXT: pim.group 1 crossbars 1 weight @[[W]] matrix #layout.layout<((16,1,1),16):((1,1,1),16)> rows [8, 16] cols [8, 16]
// Both tiles are first contributions: written in place, nothing added.
// CHECK:      pim.repeat 2 [[[WIN:r[0-9]+]] += 128, [[O0:r[0-9]+]] += 128, [[O1:r[0-9]+]] += 128]
// CHECK-NEXT:   pim.repeat 2 [[[WIN]] += 64, [[O0]] += 64, [[O1]] += 64]
// CHECK-NEXT:     pim.lmv [[S:r[0-9]+]], [[WIN]] len 64
// CHECK-NEXT:     pim.mvmul [[O0]], [[S]], group 0 mbiw 8
// CHECK-NEXT:     pim.mvmul [[O1]], {{r[0-9]+}}, group 1 mbiw 8
// CHECK-NEXT:   }
// CHECK-NEXT: }

// Depthwise: no group, nine taps of one multiply per output row (C x OW =
// 16 elements) each, eight of them added to the first.
// CHECK:      pim.core 1
// CHECK-NOT:  pim.group
// CHECK-NOT:  pim.mvmul
// CHECK-COUNT-9: pim.vvmul {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 16 : f32
// CHECK:      pim.vvadd [[R:r[0-9]+]], [[R]], {{r[0-9]+}} len 64 : f32
// CHECK:      pim.st r0, [[R]] size 256

func.func @main(%x: tensor<1x16x2x2xf32> {nn.input = "x"}, %d: tensor<1x4x4x4xf32> {nn.input = "d"}) -> (tensor<1x16x2x2xf32>, tensor<1x4x4x4xf32>) {
  %w = nn.constant dense<0.5> : tensor<16x8x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x16x2x2xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x2x2xf32> loc("grouped")
  %wd = nn.constant dense<0.125> : tensor<4x1x3x3xf32>
  %bd = nn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = nn.convolution %d, %wd, %bd {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32> loc("depthwise")
  return %0, %1 : tensor<1x16x2x2xf32>, tensor<1x4x4x4xf32>
}
