// Copies of a convolution lane (replicate=time on the 4-core test chip):
// each computes its range of output rows and brings only the input rows
// its windows read (the padded rows [row0, row1 + 2) of a 3x3 window),
// here straight from the model input in global memory. A channels-last
// input row is 6 x 2 floats = 48 bytes.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/tiny.json replicate=time replication-budget=1" --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK:      spatial.task "conv#0" {{.*}}core = [[C0:[0-9]+]] : i64{{.*}}rows = array<i64: 0, 1>
// CHECK-NEXT: spatial.task "conv#0@1" {{.*}}core = [[C1:[0-9]+]] : i64{{.*}}rows = array<i64: 1, 3>
// CHECK-NEXT: spatial.task "conv#0@2" {{.*}}core = [[C2:[0-9]+]] : i64{{.*}}rows = array<i64: 3, 4>
// CHECK-NEXT: spatial.task "conv#0@3" {{.*}}core = [[C3:[0-9]+]] : i64{{.*}}rows = array<i64: 4, 6>
// The first copy: output row 0 reads input rows 0-1 (the top padding is
// the zero fill), 2 rows of input; one output row of 4 channels, 96 bytes.
// CHECK:      pim.core [[C0]]
// CHECK:        pim.lldi {{r[0-9]+}}, 0 len 192
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 96
// The padded rows into place: 2 rows of 48 bytes.
// CHECK-NEXT:   pim.sldi
// CHECK-NEXT:   pim.sldi
// CHECK-NEXT:   pim.repeat 2 [{{r[0-9]+}} += 64, {{r[0-9]+}} += 48]
// One output row: 6 positions.
// CHECK:        pim.repeat 6 [
// CHECK:        pim.send {{r[0-9]+}} to [[C1]] size 96 tag [[T0:[0-9]+]]
// The second copy (rows 1-2) reads input rows 0-3 and gathers the others'
// rows for the relu.
// CHECK:      pim.core [[C1]]
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 192
// CHECK:        pim.repeat 2 [{{r[0-9]+}} += 64, {{r[0-9]+}} += 96] {
// CHECK-NEXT:     pim.repeat 6 [
// CHECK:        pim.recv {{r[0-9]+}} from [[C0]] size 96 tag [[T0]]
// CHECK:        pim.recv {{r[0-9]+}} from [[C2]] size 96
// CHECK:        pim.recv {{r[0-9]+}} from [[C3]] size 192
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 144 : f32
// The last copies read input rows 2-4 and 3-5.
// CHECK:      pim.core [[C2]]
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 144
// CHECK:      pim.core [[C3]]
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 144

func.func @main(%in: tensor<1x2x6x6xf32> {nn.input = "x"}) -> tensor<1x4x6x6xf32> {
  %w = nn.constant dense<0.5> : tensor<4x2x3x3xf32>
  %0 = nn.convolution %in, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv")
  %1 = nn.relu %0 : tensor<1x4x6x6xf32> loc("relu")
  return %1 : tensor<1x4x6x6xf32>
}
