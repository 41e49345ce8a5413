// Row streaming (row-block=R, latency mode): each lane of a convolution
// computes its 8 output rows in blocks of about R rows, one task each; a
// later block holds no crossbars, depends on the block before it (0 bytes)
// and runs on its core. The ReLU follows block by block (without a chain:
// its blocks hold no crossbars), and the second convolution's blocks read
// only the ReLU blocks that hold the rows their 3x3 windows need.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=3" | FileCheck %s
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=3" --raptor-schedule-spatial | FileCheck %s --check-prefix=PLACED
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json" | FileCheck %s --check-prefix=WHOLE
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=3 mode=pipeline" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=3 row-block-alternative" | FileCheck %s --check-prefix=BOTH
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=3 row-block-alternative" --raptor-schedule-spatial=transfers=rendezvous | FileCheck %s --check-prefix=KEPT
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block-alternative" 2>&1 | FileCheck %s --check-prefix=ALONE

// 8 rows in ceil(8 / 3) = 3 blocks: [0, 2), [2, 5), [5, 8).
// CHECK:      %[[B0:.*]] = spatial.task "b#0/0" bytes [] {block = 0 : i64, {{.*}}rows = array<i64: 0, 2>, source = 0 : i64, tiles = 8 : i64, weight = "b.weight#0"}
// CHECK-NEXT: %[[B1:.*]] = spatial.task "b#0/1" after(%[[B0]]) bytes [0] {block = 1 : i64, {{.*}}rows = array<i64: 2, 5>, source = 0 : i64, weight = "b.weight#0"}
// CHECK-NEXT: %[[B2:.*]] = spatial.task "b#0/2" after(%[[B1]]) bytes [0] {block = 2 : i64, {{.*}}rows = array<i64: 5, 8>, source = 0 : i64, weight = "b.weight#0"}
// CHECK-NEXT: %[[L0:.*]] = spatial.task "b#1/0" bytes [] {block = 0 : i64, {{.*}}lane = 1 : i64, {{.*}}tiles = 2 : i64
// CHECK-NEXT: %[[L1:.*]] = spatial.task "b#1/1" after(%[[L0]]) bytes [0]
// CHECK-NEXT: %[[L2:.*]] = spatial.task "b#1/2" after(%[[L1]]) bytes [0]
// Each ReLU block reads its rows of both lanes' partial sums (4-byte sums:
// 2 of the 8 rows of 2048 bytes, 512 from each lane).
// CHECK-NEXT: %[[R0:.*]] = spatial.task "r#0/0" after(%[[B0]], %[[L0]]) bytes [512, 512] {cost_ns = {{[0-9]+}} : i64, op = "nn.relu", rows = array<i64: 0, 2>
// CHECK-NEXT: %[[R1:.*]] = spatial.task "r#0/1" after(%[[B1]], %[[L1]]) bytes [768, 768] {cost_ns = {{[0-9]+}} : i64, op = "nn.relu", rows = array<i64: 2, 5>
// CHECK-NEXT: %[[R2:.*]] = spatial.task "r#0/2" after(%[[B2]], %[[L2]]) bytes [768, 768] {cost_ns = {{[0-9]+}} : i64, op = "nn.relu", rows = array<i64: 5, 8>
// Output rows [0, 2) read input rows [-1, 3): all of R0's 2 rows (512
// bytes) and one of R1's three (256); rows [5, 8) read [4, 9): one of R1's
// and all of R2's.
// CHECK-NEXT: %[[C0:.*]] = spatial.task "c#0/0" after(%[[R0]], %[[R1]]) bytes [512, 256] {block = 0 : i64
// CHECK-NEXT: spatial.task "c#0/1" after(%[[R0]], %[[R1]], %[[R2]], %[[C0]]) bytes [256, 768, 256, 0] {block = 1 : i64
// CHECK-NEXT: spatial.task "c#0/2" after(%[[R1]], %[[R2]], %{{.*}}) bytes [256, 768, 0] {block = 2 : i64

// The list scheduler keeps a lane's blocks on its first block's core.
// PLACED:      spatial.task "b#0/0" {{.*}}core = [[CORE:[0-9]+]] : i64
// PLACED-NEXT: spatial.task "b#0/1" {{.*}}core = [[CORE]] : i64
// PLACED-NEXT: spatial.task "b#0/2" {{.*}}core = [[CORE]] : i64
// PLACED-NEXT: spatial.task "b#1/0" {{.*}}core = [[LANE:[0-9]+]] : i64
// PLACED-NEXT: spatial.task "b#1/1" {{.*}}core = [[LANE]] : i64
// PLACED-NEXT: spatial.task "b#1/2" {{.*}}core = [[LANE]] : i64

// Without the option, whole tensors: one task per lane, no rows.
// WHOLE:     spatial.task "b#0" bytes [] {col_tiles
// WHOLE-NOT: block
// WHOLE-NOT: rows =

// row-block-alternative builds the whole-tensor graph beside the streamed
// one, and a graph of blocks of half the rows (here 1) that challenges it.
// The scheduler settles the challenger first: it replaces the streamed
// graph only when predicted at least 5% faster (here 1.52 against 1.91
// ms), under the function's graph name, the challenged prediction
// recorded. Then the streamed graph kept must be predicted at least 5%
// faster than whole tensors (1.52 against 2.18 ms), the whole graph's
// prediction recorded; the whole graph stays as its fallback
// (raptor-lower-to-pim lowers it if the streamed programs do not fit
// local memory).
// BOTH:      spatial.graph @main_tasks for {{.*}} attributes {{{.*}}row_block = 3 : i64
// BOTH:      spatial.task "b#0/0"
// BOTH:      spatial.graph @main_tasks_whole for {{.*}} attributes {alternative_of = @main_tasks
// BOTH:      spatial.task "b#0" bytes []
// BOTH:      spatial.graph @main_tasks_half for {{.*}} attributes {challenger_of = @main_tasks{{.*}}row_block = 1 : i64
// BOTH:      spatial.task "b#0/7"
// KEPT:      spatial.graph @main_tasks_whole for {{.*}} attributes {algorithm = "peft", alternative_tie_interval_ns = {{[0-9]+}} : i64, cores = 4 : i64, {{.*}}fallback_of = @main_tasks, {{.*}}predicted_latency_ns = 2181522 : i64
// KEPT:      spatial.task "b#0" bytes []
// KEPT:      spatial.graph @main_tasks for {{.*}}alternative_latency_ns = 2181522 : i64{{.*}}challenged_latency_ns = 1913038 : i64{{.*}}predicted_latency_ns = 1524636 : i64{{.*}}row_block = 1 : i64
// KEPT:      spatial.task "b#0/7"
// KEPT-NOT:  spatial.graph
// ALONE: error: row-block-alternative compares row streaming with whole tensors: it needs row-block=R with R > 0

// PIPELINE: error: row-block streams rows within one inference: a latency-mode schedule (mode=latency)
// NEGATIVE: error: row-block must be a number of rows (0: whole tensors), not -1

func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}, %w: tensor<8x8x3x3xf32> {nn.param = "b.weight"}) -> tensor<1x8x8x8xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("r")
  %2 = nn.convolution %1, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("c")
  return %2 : tensor<1x8x8x8xf32>
}
