// Copies of a convolution lane (replicate=time on the 4-core test chip):
// each computes its range of output rows and brings only the input rows
// its windows read (the padded rows [row0, row1 + 2) of a 3x3 window),
// here straight from the model input in global memory. A channels-last
// input row is 6 x 2 floats = 48 bytes. Copies hold whole rows: three copies
// take two rows each (a fourth would still leave copies of two rows, and
// six, of one row, do not pack onto the four cores' crossbars).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/tiny.json replicate=time replication-budget=1" --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK:      spatial.task "conv#0" {{.*}}core = [[C0:[0-9]+]] : i64{{.*}}rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "conv#0@1" {{.*}}core = [[C1:[0-9]+]] : i64{{.*}}rows = array<i64: 2, 4>
// CHECK-NEXT: spatial.task "conv#0@2" {{.*}}core = [[C2:[0-9]+]] : i64{{.*}}rows = array<i64: 4, 6>
// The relu follows the copies: a copy of it per convolution copy, the same
// rows, depending on that copy alone (and placed beside it).
// CHECK-NEXT: spatial.task "relu#0" after(%0) {{.*}}core = [[C0]] : i64{{.*}}rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "relu#0@1" after(%1) {{.*}}core = [[C1]] : i64{{.*}}rows = array<i64: 2, 4>
// CHECK-NEXT: spatial.task "relu#0@2" after(%2) {{.*}}core = [[C2]] : i64{{.*}}rows = array<i64: 4, 6>
// The programs, in core order (PEFT put the copies on cores 0, 1 and 2).
// Copy 0 (rows 0-1) reads input rows 0-2 (the top padding is the zero
// fill): 3 rows of 48 bytes from the input's start, 144 bytes, into the
// zeroed padded buffer (8 x 8 x 2 floats).
// CHECK:      pim.core [[C0]]
// CHECK:        pim.lldi {{r[0-9]+}}, 0 len 256
// CHECK:        pim.sldi r1, 0
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 144
// Output rows (64 bytes of padded input, 96 of output apart), 6 positions
// each in 3 pairs (the last row tile, 2 x 4, is packed twice); then the
// relu of its 2 rows x 6 x 4 channels = 48 floats, sent (192 bytes) to the
// core that stores the output.
// CHECK:        pim.repeat 2 [{{r[0-9]+}} += 64, {{r[0-9]+}} += 96] {
// CHECK-NEXT:     pim.repeat 3 [
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 48 : f32
// CHECK-NEXT:   pim.send {{r[0-9]+}} to [[C2]] size 192 tag [[T0:[0-9]+]]
// Copy 1 (rows 2-3) reads input rows 1-4: 4 rows from byte 48, 192 bytes.
// CHECK:      pim.core [[C1]]
// CHECK:        pim.sldi r1, 48
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 192
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 48 : f32
// CHECK-NEXT:   pim.send {{r[0-9]+}} to [[C2]] size 192 tag [[T1:[0-9]+]]
// Copy 2 (rows 4-5) reads input rows 3-5 (the bottom padding is the zero
// fill), 144 bytes from byte 144; it stores the output: it receives the
// other two copies' relu rows and writes 6 x 6 x 4 floats.
// CHECK:      pim.core [[C2]]
// CHECK:        pim.sldi r1, 144
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 144
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 48 : f32
// CHECK:        pim.recv {{r[0-9]+}} from [[C0]] size 192 tag [[T0]]
// CHECK:        pim.recv {{r[0-9]+}} from [[C1]] size 192 tag [[T1]]
// CHECK:        pim.st r0, {{r[0-9]+}} size 576

func.func @main(%in: tensor<1x2x6x6xf32> {nn.input = "x"}) -> tensor<1x4x6x6xf32> {
  %w = nn.constant dense<0.5> : tensor<4x2x3x3xf32>
  %0 = nn.convolution %in, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv")
  %1 = nn.relu %0 : tensor<1x4x6x6xf32> loc("relu")
  return %1 : tensor<1x4x6x6xf32>
}
