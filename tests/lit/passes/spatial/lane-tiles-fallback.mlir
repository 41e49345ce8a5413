// A challenger kept for speed whose programs do not fit local memory: on
// cores of 10 KiB the programs with lanes of 1 and of 2 row tiles do not
// fit (the ReLU's core holds its share of the lanes' 2 KiB partial sums),
// lanes of 3 do. raptor-schedule-spatial keeps lanes of 1 (431,510 against
// 820,645 ns predicted), the lanes of 3 and of 2 as its fallbacks;
// raptor-lower-to-pim tries lanes of 2 (the faster fallback), then lowers
// lanes of 3 and records the first failure as the reason (the manifest's
// schedule.lane_tiles_fallback).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-10k.json lane-tiles=3 lane-tiles-challengers" --raptor-schedule-spatial | FileCheck %s --check-prefix=KEPT
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-10k.json lane-tiles=3 lane-tiles-challengers" --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s --check-prefix=LOWERED
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-10k.json lane-tiles=1" --raptor-schedule-spatial --raptor-lower-to-pim 2>&1 | FileCheck %s --check-prefix=ALONE

// KEPT:     spatial.graph @main_tasks_challenged for {{.*}}fallback_of = @main_tasks,{{.*}}lane_tiles = 3 : i64{{.*}}predicted_latency_ns = 820645 : i64
// KEPT:     spatial.graph @main_tasks_lanes2 for {{.*}}fallback_of = @main_tasks,{{.*}}lane_tiles = 2 : i64
// KEPT:     spatial.graph @main_tasks for {{.*}}challenged_latency_ns = 820645 : i64{{.*}}lane_tiles = 1 : i64{{.*}}predicted_latency_ns = 431510 : i64

// LOWERED:     spatial.graph @main_tasks for {{.*}}lane_tiles = 3 : i64, lane_tiles_fallback = "task 'r#0' on core 0: core 0 needs 2048 more bytes of local memory {{.*}}these lanes hold at most 1 row tile, and a reader holds a partial sum per lane)"
// LOWERED-NOT: row_block_fallback
// LOWERED-NOT: spatial.graph
// LOWERED:     pim.chip @main_chip

// ALONE: error: loc("r"): task 'r#0' on core 0: core 0 needs 2048 more bytes of local memory

func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}) -> tensor<1x8x8x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("r")
  return %1 : tensor<1x8x8x8xf32>
}
