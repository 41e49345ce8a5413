// The time rule weighs a step of copies against the input each copy must
// then be brought: on a target whose MVMs are fast (128 ADCs, a 1 ns
// crossbar, 8-bit DAC) and whose links carry a byte per cycle, a 3x3
// convolution of 8 rows (one copy: 11.2 us; nine outputs, so its last row
// tile is not packed) takes 2 copies of 4 rows.
// A third copy would shorten the longest from 4 rows to 3, saving an
// eighth of 11.2 us, 1.4 us, less than bringing it its 5 input rows of
// 64 bytes over such links; without the input's price every row would get
// its copy.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/fast-mvm-slow-links.json replicate=time replication-budget=1" | FileCheck %s

// CHECK:      spatial.task "conv#0" {{.*}}rows = array<i64: 0, 4>
// CHECK-NEXT: spatial.task "conv#0@1" {{.*}}rows = array<i64: 4, 8>
// CHECK-NOT:  spatial.task

func.func @main(%in: tensor<1x2x8x8xf32> {nn.input = "x"}) -> tensor<1x9x8x8xf32> {
  %w = nn.constant dense<0.5> : tensor<9x2x3x3xf32>
  %0 = nn.convolution %in, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<9x2x3x3xf32>) -> tensor<1x9x8x8xf32> loc("conv")
  return %0 : tensor<1x9x8x8xf32>
}
