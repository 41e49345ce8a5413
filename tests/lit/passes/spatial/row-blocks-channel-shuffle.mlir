// Streamed rows through a channel shuffle (ShuffleNetV2's: the channels of
// a concatenation split in two groups, the groups swapped with the
// channels, merged back, split in halves). Every view keeps the rows (the
// last two dimensions are the map's H and W), so each follows the rows of
// the concatenation with a task per block: block k reshapes, permutes and
// merges its own rows, and the ReLU after the split reads only its block.
// The merge is the one view the lowering computes by copying (its operand's
// pieces hold one channel group each, no box of the merged channels): each
// block copies its own rows. A depthwise convolution follows the streamed
// rows too.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../pim/Inputs/tiny.json row-block=2" | FileCheck %s
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../pim/Inputs/tiny.json row-block=2" --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s --check-prefix=LOWERED
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../pim/Inputs/tiny.json" | FileCheck %s --check-prefix=WHOLE

// CHECK:      spatial.task "a#0/0" {{.*}}rows = array<i64: 0, 2>
// CHECK:      spatial.task "a#0/1" {{.*}}rows = array<i64: 2, 4>
// CHECK:      spatial.task "groups#0/0" {{.*}}cost_ns = 0 : i64, op = "nn.view", rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "groups#0/1" {{.*}}cost_ns = 0 : i64, op = "nn.view", rows = array<i64: 2, 4>
// CHECK-NEXT: spatial.task "swap#0/0" {{.*}}op = "nn.permute", rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "swap#0/1" {{.*}}op = "nn.permute", rows = array<i64: 2, 4>
// CHECK-NEXT: spatial.task "contiguous#0/0" {{.*}}op = "nn.clone", rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "contiguous#0/1" {{.*}}op = "nn.clone", rows = array<i64: 2, 4>
// CHECK-NEXT: spatial.task "shuffled#0/0" {{.*}}op = "nn.view", rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "shuffled#0/1" {{.*}}op = "nn.view", rows = array<i64: 2, 4>
// CHECK-NEXT: %[[H0:.*]] = spatial.task "halves#0/0" {{.*}}op = "nn.split_with_sizes", rows = array<i64: 0, 2>
// CHECK-NEXT: %[[H1:.*]] = spatial.task "halves#0/1" {{.*}}op = "nn.split_with_sizes", rows = array<i64: 2, 4>
// CHECK-NEXT: spatial.task "r#0/0" after(%[[H0]]) {{.*}}op = "nn.relu", rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "r#0/1" after(%[[H1]]) {{.*}}op = "nn.relu", rows = array<i64: 2, 4>
// CHECK:      spatial.task "dw#0/0" {{.*}}op = "nn.convolution", rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "dw#0/1" {{.*}}op = "nn.convolution", rows = array<i64: 2, 4>

// Lowered block by block: each ReLU computes its block's 2 rows of 8
// channels of 4 (64 elements), not the map's 128.
// LOWERED:     pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 64 : f32
// LOWERED-NOT: pim.vrelu {{r[0-9]+}}, {{r[0-9]+}} len 128

// Whole tensors: one task per view, as before.
// WHOLE:     spatial.task "shuffled#0" {{.*}}op = "nn.view"
// WHOLE-NOT: rows =
// WHOLE:     spatial.task "r#0"

func.func @forward(%x: tensor<1x8x4x4xf32> {nn.input = "x"}) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w = nn.constant dense<0.5> : tensor<8x8x1x1xf32>
  %k = nn.constant dense<0.25> : tensor<8x1x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> loc("a")
  %1 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> loc("b")
  %2 = nn.cat %0, %1 {dim = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32> loc("joined")
  %3 = nn.view %2 {size = array<i64: 1, 2, 8, 4, 4>} : (tensor<1x16x4x4xf32>) -> tensor<1x2x8x4x4xf32> loc("groups")
  %4 = nn.permute %3 {dims = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x8x4x4xf32>) -> tensor<1x8x2x4x4xf32> loc("swap")
  %5 = nn.clone %4 : tensor<1x8x2x4x4xf32> loc("contiguous")
  %6 = nn.view %5 {size = array<i64: 1, 16, 4, 4>} : (tensor<1x8x2x4x4xf32>) -> tensor<1x16x4x4xf32> loc("shuffled")
  %7:2 = nn.split_with_sizes %6 {dim = 1 : i64, split_sizes = array<i64: 8, 8>} : (tensor<1x16x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) loc("halves")
  %8 = nn.relu %7#1 : tensor<1x8x4x4xf32> loc("r")
  %9 = nn.convolution %8, %k {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 8 : i64} : (tensor<1x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32> loc("dw")
  return %7#0, %9 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}
