// The balanced placement's refinement keeps every core within its
// crossbars: the five tasks of schedule-pipeline-rebalance.mlir, now
// holding 2, 2, 2, 6 and 2 of a core's 8 crossbars.
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | %raptor-opt "--raptor-schedule-spatial=mode=pipeline depth=2 report=%t.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// Longest first: a, c, e on core 0 (700 us, 6 crossbars), b, d on core 1
// (500 us, 8). Swapping a for d would balance the work (600 / 600 us) but
// put 10 crossbars on core 0; moving a or c, or swapping c or e for b,
// leaves a larger load than 700 us. No move: the balanced placement has no
// refinement.
// REPORT:      "move": "balanced",
// REPORT-NOT:  "rebalanced
// REPORT:      "selected":

// CHECK:      spatial.task "a#0" {{.*}}core = [[ACE:[01]]] : i64
// CHECK:      spatial.task "c#0" {{.*}}core = [[ACE]] : i64
// CHECK:      spatial.task "b#0" {{.*}}core = [[BD:[01]]] : i64
// CHECK:      spatial.task "d#0" {{.*}}core = [[BD]] : i64
// CHECK:      spatial.task "e#0" {{.*}}core = [[ACE]] : i64

spatial.graph @five for #pim.target<"A small test chip: 2 cores x 8 crossbars of 16x16", cores = 2, mesh = [1, 2], crossbars = 8, crossbar = [16, 16], cell_bits = 4, weight_bits = 8, clock_ns = 2.0, link_bytes_per_cycle = 8.0, hop_latency_cycles = 4.0, local_memory_bytes = 67108864> attributes {cores = 2 : i64, crossbars_per_core = 8 : i64} {
  %a = spatial.task "a#0" bytes [] {cost_ns = 300000 : i64, op = "nn.linear", source = 0 : i64, tiles = 2 : i64, weight = "a.weight#0"}
  %c = spatial.task "c#0" bytes [] {cost_ns = 200000 : i64, op = "nn.linear", source = 1 : i64, tiles = 2 : i64, weight = "c.weight#0"}
  %b = spatial.task "b#0" bytes [] {cost_ns = 300000 : i64, op = "nn.linear", source = 2 : i64, tiles = 2 : i64, weight = "b.weight#0"}
  %d = spatial.task "d#0" bytes [] {cost_ns = 200000 : i64, op = "nn.linear", source = 3 : i64, tiles = 6 : i64, weight = "d.weight#0"}
  %e = spatial.task "e#0" bytes [] {cost_ns = 200000 : i64, op = "nn.linear", source = 4 : i64, tiles = 2 : i64, weight = "e.weight#0"}
}
