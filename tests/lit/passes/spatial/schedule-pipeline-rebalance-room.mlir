// The balanced placement's refinement on two cores of 8 crossbars: a
// move or a swap that would overflow the core it fills is not taken (the
// capacity checks of BalancedPlacement::refine; instances found by a
// brute-force search over small task sets where dropping a check changes
// the placement).
// RUN: sed -e "s|TARGETS|%S/../../../../python/raptor/spatial/targets|" %s | %raptor-opt --split-input-file "--raptor-schedule-spatial=mode=pipeline depth=2" | FileCheck %s

// Tasks of 300 us (no crossbars), 200 (6), 100 (4) and 200 (4). Longest
// first: a, d, c on core 0 (600 us, 8 crossbars), b on core 1 (200 us, 6).
// Moving d to core 1 would balance the work (400 / 400 us) on 10
// crossbars; the best move that fits takes a over (300 / 500 us), the
// placement of the initial two stages (a b | c d), which stays.
// CHECK-LABEL: spatial.graph @move
// CHECK:      spatial.task "a#0" {{.*}}core = [[AB:[01]]] : i64
// CHECK:      spatial.task "b#0" {{.*}}core = [[AB]] : i64
// CHECK:      spatial.task "c#0" {{.*}}core = [[CD:[01]]] : i64
// CHECK:      spatial.task "d#0" {{.*}}core = [[CD]] : i64
// CHECK-NOT:  [[AB]] : i64, cost_ns = 100000
spatial.graph @move for #pim.target<"A small test chip: 2 cores x 8 crossbars of 16x16", cores = 2, mesh = [1, 2], crossbars = 8, crossbar = [16, 16], cell_bits = 4, weight_bits = 8, clock_ns = 2.0, link_bytes_per_cycle = 8.0, hop_latency_cycles = 4.0, local_memory_bytes = 67108864> attributes {cores = 2 : i64, crossbars_per_core = 8 : i64} {
  %a = spatial.task "a#0" bytes [] {cost_ns = 300000 : i64, op = "nn.relu", source = 0 : i64, tiles = 0 : i64}
  %b = spatial.task "b#0" bytes [] {cost_ns = 200000 : i64, op = "nn.linear", source = 1 : i64, tiles = 6 : i64, weight = "b.weight#0"}
  %c = spatial.task "c#0" bytes [] {cost_ns = 100000 : i64, op = "nn.linear", source = 2 : i64, tiles = 4 : i64, weight = "c.weight#0"}
  %d = spatial.task "d#0" bytes [] {cost_ns = 200000 : i64, op = "nn.linear", source = 3 : i64, tiles = 4 : i64, weight = "d.weight#0"}
}

// -----

// Tasks of 200 us (4 crossbars), 300 (6), 200 (0), 100 (0) and 200 (4).
// Longest first: q, s on core 0 (400 us), p, r, t on core 1 (500 us, 8
// crossbars). Swapping p for q's neighbour s moves no load off the
// busiest core that a swap of p for q would (q and p together need 10
// crossbars): q keeps core 0 with r, p, s and t share the other.
// CHECK-LABEL: spatial.graph @swap
// CHECK:      spatial.task "p#0" {{.*}}core = [[PST:[01]]] : i64
// CHECK:      spatial.task "q#0" {{.*}}core = [[QR:[01]]] : i64
// CHECK:      spatial.task "r#0" {{.*}}core = [[QR]] : i64
// CHECK:      spatial.task "s#0" {{.*}}core = [[PST]] : i64
// CHECK:      spatial.task "t#0" {{.*}}core = [[PST]] : i64
spatial.graph @swap for #pim.target<"A small test chip: 2 cores x 8 crossbars of 16x16", cores = 2, mesh = [1, 2], crossbars = 8, crossbar = [16, 16], cell_bits = 4, weight_bits = 8, clock_ns = 2.0, link_bytes_per_cycle = 8.0, hop_latency_cycles = 4.0, local_memory_bytes = 67108864> attributes {cores = 2 : i64, crossbars_per_core = 8 : i64} {
  %p = spatial.task "p#0" bytes [] {cost_ns = 200000 : i64, op = "nn.linear", source = 0 : i64, tiles = 4 : i64, weight = "p.weight#0"}
  %q = spatial.task "q#0" bytes [] {cost_ns = 300000 : i64, op = "nn.linear", source = 1 : i64, tiles = 6 : i64, weight = "q.weight#0"}
  %r = spatial.task "r#0" bytes [] {cost_ns = 200000 : i64, op = "nn.relu", source = 2 : i64, tiles = 0 : i64}
  %s = spatial.task "s#0" bytes [] {cost_ns = 100000 : i64, op = "nn.relu", source = 3 : i64, tiles = 0 : i64}
  %t = spatial.task "t#0" bytes [] {cost_ns = 200000 : i64, op = "nn.linear", source = 4 : i64, tiles = 4 : i64, weight = "t.weight#0"}
}
