// Shorter lanes challenge the default height (lane-tiles-challengers, what
// `--lane-tiles auto` asks for): with lane-tiles=3 the builder adds graphs
// with lanes of 2 and of 1 row tile when their tasks differ, and
// raptor-schedule-spatial keeps the fastest of them if it is predicted at
// least 5% faster; the graph it replaced and the other challengers stay
// as its fallbacks.
// @main's column is 72 rows = 5 row tiles on the small target: lanes of
// 3 + 2, of 2 + 2 + 1 (predicted 555,965 ns; alone, lane-tiles=2 predicts
// the same) and of 1 row tile each (565,494 ns): 2 wins over 3 (820,645 ns).
// @narrow's is 18 rows = 2 row tiles: lanes of 2 are lanes of 3 (no graph
// built), lanes of 1 win (280,769 against 545,491 ns).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=3 lane-tiles-challengers" | FileCheck %s --check-prefix=BUILT
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=3 lane-tiles-challengers" --raptor-schedule-spatial | FileCheck %s --check-prefix=KEPT
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=2" --raptor-schedule-spatial | FileCheck %s --check-prefix=TWO
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=1" --raptor-schedule-spatial | FileCheck %s --check-prefix=ONE
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json lane-tiles=1 lane-tiles-challengers" 2>&1 | FileCheck %s --check-prefix=SHORTEST

// BUILT:     spatial.graph @main_tasks for {{.*}}lane_tiles = 3 : i64
// BUILT:     spatial.graph @main_tasks_lanes2 for {{.*}}challenger_of = @main_tasks{{.*}}lane_tiles = 2 : i64
// BUILT:     spatial.graph @main_tasks_lanes1 for {{.*}}challenger_of = @main_tasks{{.*}}lane_tiles = 1 : i64
// BUILT:     spatial.graph @narrow_tasks for {{.*}}lane_tiles = 3 : i64
// BUILT-NOT: @narrow_tasks_lanes2
// BUILT:     spatial.graph @narrow_tasks_lanes1 for {{.*}}challenger_of = @narrow_tasks{{.*}}lane_tiles = 1 : i64

// KEPT:     spatial.graph @main_tasks_challenged for {{.*}}fallback_of = @main_tasks,{{.*}}lane_tiles = 3 : i64{{.*}}predicted_latency_ns = 820645 : i64
// KEPT:     spatial.graph @main_tasks for {{.*}}challenged_latency_ns = 820645 : i64{{.*}}lane_tiles = 2 : i64{{.*}}predicted_latency_ns = 555965 : i64
// KEPT:     spatial.graph @main_tasks_lanes1 for {{.*}}fallback_of = @main_tasks,{{.*}}lane_tiles = 1 : i64{{.*}}predicted_latency_ns = 565494 : i64
// KEPT:     spatial.graph @narrow_tasks_challenged for {{.*}}fallback_of = @narrow_tasks,{{.*}}lane_tiles = 3 : i64{{.*}}predicted_latency_ns = 545491 : i64
// KEPT:     spatial.graph @narrow_tasks for {{.*}}challenged_latency_ns = 545491 : i64{{.*}}lane_tiles = 1 : i64{{.*}}predicted_latency_ns = 280769 : i64
// KEPT-NOT: spatial.graph

// TWO: spatial.graph @main_tasks for {{.*}}predicted_latency_ns = 555965 : i64
// ONE: spatial.graph @main_tasks for {{.*}}predicted_latency_ns = 565494 : i64
// ONE: spatial.graph @narrow_tasks for {{.*}}predicted_latency_ns = 280769 : i64

// SHORTEST: error: lane-tiles-challengers builds graphs of shorter lanes than lane-tiles=T: it needs T > 1, not 1

func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}) -> tensor<1x8x8x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("r")
  return %1 : tensor<1x8x8x8xf32>
}
func.func @narrow(%x: tensor<1x2x8x8xf32> {nn.input = "x"}) -> tensor<1x8x8x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x2x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x8x8xf32> loc("n")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("nr")
  return %1 : tensor<1x8x8x8xf32>
}
