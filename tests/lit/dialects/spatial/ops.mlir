// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic -o /dev/null

// CHECK-LABEL: spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576>
// CHECK:       %[[A:.*]] = spatial.task "fc#0" bytes [] {cost_ns = 10 : i64, op = "nn.linear", tiles = 4 : i64, weight = "fc.weight#0"}
// CHECK:       spatial.task "fc#0@1" bytes [] {cost_ns = 10 : i64, op = "nn.linear", replica = 1 : i64, rows = array<i64: 2, 4>, tiles = 4 : i64, weight = "fc.weight#0@1"}
// CHECK:       spatial.task "relu#0" after(%[[A]]) bytes [64] {core = 1 : i64, cost_ns = 3 : i64, last = true, op = "nn.relu", slot = 0 : i64, start_ns = 12 : i64}
spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  %0 = spatial.task "fc#0" bytes [] {cost_ns = 10 : i64, tiles = 4 : i64, weight = "fc.weight#0", op = "nn.linear"}
  %2 = spatial.task "fc#0@1" bytes [] {cost_ns = 10 : i64, tiles = 4 : i64, weight = "fc.weight#0@1", op = "nn.linear", rows = array<i64: 2, 4>, replica = 1 : i64}
  %1 = spatial.task "relu#0" after(%0) bytes [64] {cost_ns = 3 : i64, op = "nn.relu", core = 1 : i64, start_ns = 12 : i64, slot = 0 : i64, last = true}
}
