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
// The relu follows the copies: a copy of it per convolution copy, the same
// rows, depending on that copy alone (and placed beside it).
// CHECK-NEXT: spatial.task "relu#0" after(%0) {{.*}}core = [[C0]] : i64{{.*}}rows = array<i64: 0, 1>
// CHECK-NEXT: spatial.task "relu#0@1" after(%1) {{.*}}core = [[C1]] : i64{{.*}}rows = array<i64: 1, 3>
// CHECK-NEXT: spatial.task "relu#0@2" after(%2) {{.*}}core = [[C2]] : i64{{.*}}rows = array<i64: 3, 4>
// CHECK-NEXT: spatial.task "relu#0@3" after(%3) {{.*}}core = [[C3]] : i64{{.*}}rows = array<i64: 4, 6>
// The programs, in core order (PEFT put copy 1 on core 0, copy 3 on core
// 1, copy 0 on core 2, copy 2 on core 3).
// Copy 1 (rows 1-2) reads input rows 0-3: 4 rows of 48 bytes, 192 bytes;
// its relu covers 2 rows x 6 x 4 channels = 48 floats, sent (192 bytes) to
// the core that stores the output.
// CHECK:      pim.core [[C1]]
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 192
// CHECK:        pim.repeat 2 [{{r[0-9]+}} += 64, {{r[0-9]+}} += 96] {
// CHECK-NEXT:     pim.repeat 6 [
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 48 : f32
// CHECK-NEXT:   pim.send {{r[0-9]+}} to [[C3]] size 192 tag [[T1:[0-9]+]]
// Copy 3 (rows 4-5) reads input rows 3-5 (the bottom padding is the zero
// fill), 144 bytes; it stores the output: it receives the other three
// copies' relu rows (96, 96 and 192 bytes) and writes 6 x 6 x 4 floats.
// CHECK:      pim.core [[C3]]
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 144
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 48 : f32
// CHECK:        pim.recv {{r[0-9]+}} from [[C0]] size 96
// CHECK:        pim.recv {{r[0-9]+}} from [[C2]] size 96
// CHECK:        pim.recv {{r[0-9]+}} from [[C1]] size 192 tag [[T1]]
// CHECK:        pim.st r0, {{r[0-9]+}} size 576
// Copy 0: output row 0 reads input rows 0-1 (the top padding is the zero
// fill), 2 rows, 96 bytes; the padded rows into place: 2 rows of 48 bytes.
// CHECK:      pim.core [[C0]]
// CHECK:        pim.lldi {{r[0-9]+}}, 0 len 192
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 96
// CHECK-NEXT:   pim.sldi
// CHECK-NEXT:   pim.sldi
// CHECK-NEXT:   pim.repeat 2 [{{r[0-9]+}} += 64, {{r[0-9]+}} += 48]
// One output row: 6 positions, then its 24 relu floats.
// CHECK:        pim.repeat 6 [
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 24 : f32
// CHECK-NEXT:   pim.send {{r[0-9]+}} to [[C3]] size 96
// Copy 2 (row 3) reads input rows 2-4, 144 bytes.
// CHECK:      pim.core [[C2]]
// CHECK:        pim.ld {{r[0-9]+}}, r0 size 144
// CHECK:        pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 24 : f32
// CHECK-NEXT:   pim.send {{r[0-9]+}} to [[C3]] size 96

func.func @main(%in: tensor<1x2x6x6xf32> {nn.input = "x"}) -> tensor<1x4x6x6xf32> {
  %w = nn.constant dense<0.5> : tensor<4x2x3x3xf32>
  %0 = nn.convolution %in, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> loc("conv")
  %1 = nn.relu %0 : tensor<1x4x6x6xf32> loc("relu")
  return %1 : tensor<1x4x6x6xf32>
}
