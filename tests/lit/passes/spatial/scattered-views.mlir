// A channel shuffle (the map's channels split in two groups, the groups
// swapped with the channels, merged back) is a view no strides express: the
// lowering keeps it as a nested layout of the channels-last map, and its
// readers that need flat data copy it element by element. The compute
// graph prices those copies where they happen: 16 elements at 9 ns each
// (a 4-byte lmv on the tiny chip) on the convolution that reads the
// shuffled map and on the sum mixing it with a flat map (16 one-element
// adds), none on the views or the ReLU, which keeps its input's order.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/../pim/Inputs/tiny.json | FileCheck %s
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/../pim/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s --check-prefix=LOWERED

// CHECK:      spatial.task "conv#0" {{.*}}cost_ns = [[#CONV:]] : i64
// CHECK-NEXT: spatial.task "groups#0" {{.*}}cost_ns = 0 : i64
// CHECK-NEXT: spatial.task "swap#0" {{.*}}op = "nn.permute"
// CHECK-NEXT: spatial.task "contiguous#0" {{.*}}op = "nn.clone"
// CHECK-NEXT: spatial.task "shuffled#0" {{.*}}cost_ns = 0 : i64
// CHECK-NEXT: spatial.task "relu#0" {{.*}}cost_ns = 13 : i64
// The MVMs and gathers of "conv#0" plus 16 x 9 ns.
// CHECK-NEXT: spatial.task "reader#0" {{.*}}cost_ns = [[#CONV+144]] : i64
// 14 ns of adds plus 16 x 9 ns.
// CHECK-NEXT: spatial.task "mixed#0" {{.*}}cost_ns = 158 : i64

// LOWERED:      pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 16 : f32
// LOWERED:      pim.repeat 4
// LOWERED-NEXT:   pim.repeat 2
// LOWERED-NEXT:     pim.repeat 2
// LOWERED-NEXT:       pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 4
// LOWERED:      pim.mvmul
// LOWERED:      pim.repeat 4
// LOWERED-NEXT:   pim.repeat 2
// LOWERED-NEXT:     pim.repeat 2
// LOWERED-NEXT:       pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 1 : f32

func.func @forward(%x: tensor<1x4x2x2xf32> {nn.input = "x"}) -> tensor<1x4x2x2xf32> {
  %w = nn.constant dense<0.5> : tensor<4x4x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32> loc("conv")
  %1 = nn.view %0 {size = array<i64: 1, 2, 2, 2, 2>} : (tensor<1x4x2x2xf32>) -> tensor<1x2x2x2x2xf32> loc("groups")
  %2 = nn.permute %1 {dims = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32> loc("swap")
  %3 = nn.clone %2 : tensor<1x2x2x2x2xf32> loc("contiguous")
  %4 = nn.view %3 {size = array<i64: 1, 4, 2, 2>} : (tensor<1x2x2x2x2xf32>) -> tensor<1x4x2x2xf32> loc("shuffled")
  %5 = nn.relu %4 : tensor<1x4x2x2xf32> loc("relu")
  %6 = nn.convolution %5, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32> loc("reader")
  %7 = nn.add %6, %5 : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> loc("mixed")
  return %7 : tensor<1x4x2x2xf32>
}
