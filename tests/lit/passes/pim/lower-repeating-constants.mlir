// A constant broadcast along a kernel's run repeats: the channels' biases
// of a channels-last map, materialized for one 512-element add, repeat
// every 8 floats. It is loaded from global memory once per period of at
// least 256 bytes and doubled by local copies (256, 512, 1024 bytes), not
// loaded whole: global memory's one controller serves every core.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK:      pim.data @[[C:.*]] at [[AT:[0-9]+]] dense<"0x0000803F00000040
// CHECK:      pim.mvmul
// CHECK:      pim.sldi r1, [[AT]]
// CHECK-NEXT: pim.sldi [[B:r[0-9]+]], [[LOCAL:[0-9]+]]
// CHECK-NEXT: pim.ld [[B]], r0 size 256
// CHECK-NEXT: pim.sldi [[D1:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.lmv [[D1]], [[B]] len 256
// CHECK-NEXT: pim.sldi [[D2:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.lmv [[D2]], [[B]] len 512
// CHECK-NEXT: pim.sldi [[D3:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.lmv [[D3]], [[B]] len 1024
// CHECK-NOT:  pim.ld
// CHECK:      pim.vvadd {{r[0-9]+}}, {{r[0-9]+}}, [[B]] len 512 : f32
func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}) -> tensor<1x8x8x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8x1x1xf32>
  %b = nn.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]]]> : tensor<1x8x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32> loc("conv")
  %1 = nn.add %0, %b : (tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x8x8xf32> loc("bias")
  return %1 : tensor<1x8x8x8xf32>
}
