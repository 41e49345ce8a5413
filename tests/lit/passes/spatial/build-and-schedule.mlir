// Target small.json: 4 cores (2x2 mesh) x 8 crossbars of 16x16, 8-bit weights
// in 4-bit cells (2 slices), MVM 20 cycles, 1 cycle per vector element,
// 2 ns clock.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/../../../../python/raptor/spatial/targets/small.json | FileCheck %s --check-prefix=GRAPH
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/../../../../python/raptor/spatial/targets/small.json --raptor-schedule-spatial | FileCheck %s --check-prefix=SCHED
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/bad.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %raptor-opt %s --raptor-build-compute-graph 2>&1 | FileCheck %s --check-prefix=NOTARGET

// fc.weight is 40 x 20: 2 row tiles x 2 slices = 4 crossbars per column of
// tiles, 3 columns; a core (8 crossbars) takes 2 columns: lanes of 8 and 4.
// Lane 0 (column tiles 0-1): 20 (MVM) + 32 outputs x 2 row tiles = 84
// cycles = 168 ns; lane 1 (column tile 2, the last 8 of the 40 outputs):
// 20 + 8 x 2 = 36 cycles = 72 ns. relu: 40 elements = 80 ns.
// GRAPH:      spatial.graph @forward_tasks for "{{.*}}small.json" attributes {cores = 4 : i64, crossbars_per_core = 8 : i64, function = @forward}
// GRAPH-NEXT: %[[L0:.*]] = spatial.task "fc#0" bytes [] {col_tiles = array<i64: 0, 2>, cost_ns = 168 : i64, op = "nn.linear", row_tiles = array<i64: 0, 2>, source = 0 : i64, tiles = 8 : i64, weight = "fc.weight#0"}
// GRAPH-NEXT: %[[L1:.*]] = spatial.task "fc#1" bytes [] {col_tiles = array<i64: 2, 3>, cost_ns = 72 : i64, lane = 1 : i64, op = "nn.linear", row_tiles = array<i64: 0, 2>, source = 0 : i64, tiles = 4 : i64, weight = "fc.weight#1"}
// GRAPH-NEXT: %[[R:.*]] = spatial.task "relu#0" after(%[[L0]], %[[L1]]) bytes [80, 80] {cost_ns = 80 : i64, op = "nn.relu", source = 1 : i64}
// A view is free.
// GRAPH-NEXT: spatial.task "flat#0" after(%[[R]]) bytes [160] {cost_ns = 0 : i64, op = "nn.view", source = 2 : i64}

// The two lanes cannot share a core (8 + 4 > 8 crossbars).
// SCHED:      makespan_ns =
// SCHED-SAME: strategy = "load- and communication-aware"
// SCHED:      spatial.task "fc#0" {{.*}}core = [[C0:[0-9]+]] : i64
// SCHED-NOT:  core = [[C0]] : i64, cost_ns = 72
// SCHED:      spatial.task "fc#1"

// TILE: error: loc("fc"): one weight tile needs 4 crossbars (bit slices) but a core has 1
// BAD: error: {{.*}}bad.json: 'timing_cycles.mvm' must be a positive number
// NOTARGET: error: raptor-build-compute-graph needs target=FILE.json

func.func @forward(%x: tensor<1x20xf32> {nn.input = "x"}, %w: tensor<40x20xf32> {nn.param = "fc.weight"}) -> tensor<40xf32> {
  %0 = nn.linear %x, %w : (tensor<1x20xf32>, tensor<40x20xf32>) -> tensor<1x40xf32> loc("fc")
  %1 = nn.relu %0 : tensor<1x40xf32> loc("relu")
  %2 = nn.view %1 {size = array<i64: 40>} : (tensor<1x40xf32>) -> tensor<40xf32> loc("flat")
  return %2 : tensor<40xf32>
}
