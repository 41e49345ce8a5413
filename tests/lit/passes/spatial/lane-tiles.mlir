// Shorter lanes (lane-tiles=T, latency mode): the convolution's weight
// column is 72 rows (8 channels x 3 x 3) = 5 row tiles of 16 on the small
// target, 2 crossbars each (8-bit weights in 4-bit cells). A core's 8
// crossbars take 4 row tiles: by default lanes of 4 and 1 row tiles. With
// lane-tiles=2 the column is cut into ceil(5 / 2) = 3 lanes of about equal
// height (2, 2, 1 row tiles), with lane-tiles=3 into 2 (3 and 2): each lane
// runs one MVM per row tile for each output position, and the ReLU adds
// the partial sums, receiving each lane's 8 x 8 x 8 sums of 4 bytes.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json" | FileCheck %s --check-prefix=CORE
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=2" | FileCheck %s --check-prefix=TWO
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=3" | FileCheck %s --check-prefix=THREE
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=2 mode=pipeline" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// CORE:      spatial.graph @main_tasks
// CORE-NOT:  lane_tiles
// CORE:      spatial.task "b#0" bytes [] {{.*}}row_tiles = array<i64: 0, 4>, {{.*}}tiles = 8 : i64
// CORE-NEXT: spatial.task "b#1" bytes [] {{.*}}row_tiles = array<i64: 4, 5>, {{.*}}tiles = 2 : i64
// CORE-NEXT: spatial.task "r#0" after({{.*}}) bytes [2048, 2048] {{{.*}}op = "nn.relu"

// TWO:       spatial.graph @main_tasks {{.*}}lane_tiles = 2 : i64
// TWO:       spatial.task "b#0" bytes [] {{.*}}row_tiles = array<i64: 0, 2>, {{.*}}tiles = 4 : i64
// TWO-NEXT:  spatial.task "b#1" bytes [] {{.*}}row_tiles = array<i64: 2, 4>, {{.*}}tiles = 4 : i64
// TWO-NEXT:  spatial.task "b#2" bytes [] {{.*}}row_tiles = array<i64: 4, 5>, {{.*}}tiles = 2 : i64
// TWO-NEXT:  spatial.task "r#0" after({{.*}}) bytes [2048, 2048, 2048] {{{.*}}op = "nn.relu"

// Two column tiles (24 output channels, 16-column crossbars) with the same
// row tiles share each lane while it fits a core (8 crossbars): one MVM a
// row tile covers both columns, as with full lanes.
// TWO:       spatial.graph @wide_tasks {{.*}}lane_tiles = 2 : i64
// TWO:       spatial.task "w#0" bytes [] {col_tiles = array<i64: 0, 2>, {{.*}}row_tiles = array<i64: 0, 2>, {{.*}}tiles = 8 : i64
// TWO-NEXT:  spatial.task "w#1" bytes [] {col_tiles = array<i64: 0, 2>, {{.*}}row_tiles = array<i64: 2, 4>, {{.*}}tiles = 8 : i64
// TWO-NEXT:  spatial.task "w#2" bytes [] {col_tiles = array<i64: 0, 2>, {{.*}}row_tiles = array<i64: 4, 5>, {{.*}}tiles = 4 : i64
// TWO-NEXT:  spatial.task "wr#0"

// THREE:      spatial.task "b#0" bytes [] {{.*}}row_tiles = array<i64: 0, 3>, {{.*}}tiles = 6 : i64
// THREE-NEXT: spatial.task "b#1" bytes [] {{.*}}row_tiles = array<i64: 3, 5>, {{.*}}tiles = 4 : i64
// THREE-NEXT: spatial.task "r#0"

// (The lowering tiles by the graph's lane_tiles: tests/python/test_lane_tiles.py
// runs the programs against torch and the integer reference.)

// PIPELINE: error: lane-tiles shortens the copies of one inference's critical path: a latency-mode schedule (mode=latency)
// NEGATIVE: error: lane-tiles must be a number of row tiles (0: as many as a core holds), not -1

func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}, %w: tensor<8x8x3x3xf32> {nn.param = "b.weight"}) -> tensor<1x8x8x8xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("r")
  return %1 : tensor<1x8x8x8xf32>
}

func.func @wide(%x: tensor<1x8x4x4xf32> {nn.input = "x"}, %w: tensor<24x8x3x3xf32> {nn.param = "w.weight"}) -> tensor<1x24x4x4xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<24x8x3x3xf32>) -> tensor<1x24x4x4xf32> loc("w")
  %1 = nn.relu %0 : tensor<1x24x4x4xf32> loc("wr")
  return %1 : tensor<1x24x4x4xf32>
}
