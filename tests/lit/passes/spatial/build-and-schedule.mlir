// Target small.json: 4 cores (2x2 mesh) x 8 crossbars of 16x16, 8-bit weights
// in 4-bit cells (2 slices), 2 ns clock, pimsim-nn's default stage latencies:
// an fp32 MVM is 32 one-bit DAC passes; the front stages (1 + 1 + 15 + 1
// cycles) and 16.5 cycles of overhead once, 0.78125 of the back stage (8
// conversions of 10 cycles, shift-add and output buffer: 82 cycles) per pass:
// 2084.5 cycles = 4169 ns (docs/timing.md), plus its reads and writes and 7
// cycles of pipeline.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/../../../../python/raptor/spatial/targets/small.json | FileCheck %s --check-prefix=GRAPH
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/../../../../python/raptor/spatial/targets/small.json --raptor-schedule-spatial | FileCheck %s --check-prefix=SCHED
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/bad.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/cost-table.json 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: not %raptor-opt %s --raptor-build-compute-graph 2>&1 | FileCheck %s --check-prefix=NOTARGET

// fc.weight is 40 x 20: 2 row tiles x 2 slices = 4 crossbars per column of
// tiles, 3 columns; a core (8 crossbars) takes 2 columns: lanes of 8 and 4.
// Lane 0 (column tiles 0-1): two MVMs of 2 + 4169 + 4 + 14 ns (64 bytes in,
// 128 out) and the 32-element partial sum (34 ns) = 8412 ns; lane 1 (column
// tile 2, the last 8 of the 40 outputs): two MVMs of 4187 ns and an 8-element
// sum (24 ns) = 8398 ns. relu over 40 elements: 6 + 12 + 6 + 14 = 38 ns; it
// receives each lane's columns: 32 and 8 of the 40 outputs, 4 bytes each.
// GRAPH:      spatial.graph @forward_tasks for #pim.target<"A small test chip: 4 cores x 8 crossbars of 16x16", cores = 4, {{.*}}> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64, function = @forward}
// GRAPH-NEXT: %[[L0:.*]] = spatial.task "fc#0" bytes [] {col_tiles = array<i64: 0, 2>, cost_ns = 8412 : i64, op = "nn.linear", row_tiles = array<i64: 0, 2>, source = 0 : i64, tiles = 8 : i64, weight = "fc.weight#0"}
// GRAPH-NEXT: %[[L1:.*]] = spatial.task "fc#1" bytes [] {col_tiles = array<i64: 2, 3>, cost_ns = 8398 : i64, lane = 1 : i64, op = "nn.linear", row_tiles = array<i64: 0, 2>, source = 0 : i64, tiles = 4 : i64, weight = "fc.weight#1"}
// GRAPH-NEXT: %[[R:.*]] = spatial.task "relu#0" after(%[[L0]], %[[L1]]) bytes [128, 32] {cost_ns = 38 : i64, op = "nn.relu", source = 1 : i64}
// A view is free.
// GRAPH-NEXT: spatial.task "flat#0" after(%[[R]]) bytes [160] {cost_ns = 0 : i64, op = "nn.view", source = 2 : i64}

// The two lanes cannot share a core (8 + 4 > 8 crossbars): lane 0 on core
// 0, lane 1 on core 1 (the earliest finish; ties to the lowest core), the
// relu beside lane 0, whose 128 bytes need no transfer.
// SCHED:      makespan_ns =
// SCHED-SAME: strategy = "load- and communication-aware"
// SCHED:      spatial.task "fc#0" {{.*}}core = 0 : i64
// SCHED-NEXT: spatial.task "fc#1" {{.*}}core = 1 : i64
// SCHED-NEXT: spatial.task "relu#0" {{.*}}core = 0 : i64

// TILE: error: loc("fc"): one weight tile needs 4 crossbars (bit slices) but a core has 1
// BAD: error: {{.*}}bad.json: 'network.hop_latency_cycles' must be a non-negative number
// TABLE: error: {{.*}}cost-table.json: 'timing_cycles' is no longer read: costs follow pimsim-nn's timing rules
// NOTARGET: error: raptor-build-compute-graph needs target=FILE.json

func.func @forward(%x: tensor<1x20xf32> {nn.input = "x"}, %w: tensor<40x20xf32> {nn.param = "fc.weight"}) -> tensor<40xf32> {
  %0 = nn.linear %x, %w : (tensor<1x20xf32>, tensor<40x20xf32>) -> tensor<1x40xf32> loc("fc")
  %1 = nn.relu %0 : tensor<1x40xf32> loc("relu")
  %2 = nn.view %1 {size = array<i64: 40>} : (tensor<1x40xf32>) -> tensor<40xf32> loc("flat")
  return %2 : tensor<40xf32>
}
