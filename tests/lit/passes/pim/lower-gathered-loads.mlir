// A sparse view of global memory is loaded run by run: each copy of the
// ReLU (replicate=time, follow-rows, on the 4-core test chip) reads its 6
// rows of the channel-major 3 x 24 x 24 input, one ld of 6 x 24 floats
// (576 bytes) per channel, not one ld over the 2 x 576 + 6 x 24 floats
// from its first row of channel 0 to its last of channel 2 (5184 bytes).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/tiny.json replicate=time replication-budget=1" --raptor-schedule-spatial=transfers=rendezvous --raptor-lower-to-pim | FileCheck %s

// CHECK:     pim.io @in_x "input" name "x" at 0 : tensor<1x3x24x24xf32> layout #layout.layout<(24,24,3,1):(1,24,576,1728)>
// CHECK-NOT: size 5184
// Copy 0 (rows 0-5): the channels' planes start 576 floats (2304 bytes)
// apart in global memory (the address's low word, r1) and land one after
// the other in local memory.
// CHECK:     pim.core 0
// CHECK:       pim.sldi r1, 0
// CHECK-NEXT:  pim.sldi [[A:r[0-9]+]], [[L:[0-9]+]]
// CHECK-NEXT:  pim.ld [[A]], r0 size 576
// CHECK-NEXT:  pim.sldi r1, 2304
// CHECK-NEXT:  pim.sldi [[B:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:  pim.ld [[B]], r0 size 576
// CHECK-NEXT:  pim.sldi r1, 4608
// CHECK-NEXT:  pim.sldi [[C:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:  pim.ld [[C]], r0 size 576
// CHECK-NOT:   pim.ld
// CHECK:     pim.core 1
// CHECK-NOT: size 5184

func.func @main(%x: tensor<1x3x24x24xf32> {nn.input = "x"}) -> tensor<1x4x24x24xf32> {
  %w = nn.constant dense<0.5> : tensor<4x3x3x3xf32>
  %0 = nn.relu %x : tensor<1x3x24x24xf32> loc("relu")
  %1 = nn.convolution %0, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x24x24xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x24x24xf32> loc("conv")
  return %1 : tensor<1x4x24x24xf32>
}
