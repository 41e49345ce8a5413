// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  %0 = spatial.task "a#0" bytes [] {cost_ns = 1 : i64, op = "nn.relu"}
  // expected-error @+1 {{has 1 dependencies but 2 transfer sizes}}
  %1 = spatial.task "b#0" after(%0) bytes [4, 4] {cost_ns = 1 : i64, op = "nn.relu"}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  // expected-error @+1 {{a task holding weight tiles must name its weight}}
  %0 = spatial.task "a#0" bytes [] {cost_ns = 1 : i64, tiles = 2 : i64, op = "nn.linear"}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  // expected-error @+1 {{needs 9 crossbars but a core has 8}}
  %0 = spatial.task "a#0" bytes [] {cost_ns = 1 : i64, tiles = 9 : i64, weight = "w", op = "nn.linear"}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  // expected-error @+1 {{is placed on core 4 outside 0..3}}
  %0 = spatial.task "a#0" bytes [] {cost_ns = 1 : i64, op = "nn.relu", core = 4 : i64}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  // expected-error @+1 {{rows must be a non-empty half-open range [begin, end) of non-negative rows}}
  %0 = spatial.task "a#0" bytes [] {cost_ns = 1 : i64, op = "nn.convolution", rows = array<i64: 4, 4>}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  // expected-error @+1 {{replica must be non-negative}}
  %0 = spatial.task "a#0" bytes [] {cost_ns = 1 : i64, op = "nn.convolution", replica = -1 : i64}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  // expected-error @+1 {{a row block needs its rows}}
  %0 = spatial.task "a#0/0" bytes [] {block = 0 : i64, cost_ns = 1 : i64, op = "nn.convolution"}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  // expected-error @+1 {{block must be non-negative}}
  %0 = spatial.task "a#0/0" bytes [] {block = -1 : i64, cost_ns = 1 : i64, op = "nn.convolution", rows = array<i64: 0, 2>}
}

// -----

spatial.graph @g for #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576> attributes {cores = 4 : i64, crossbars_per_core = 8 : i64} {
  %0 = spatial.task "a#0/0" bytes [] {block = 0 : i64, cost_ns = 1 : i64, op = "nn.convolution", rows = array<i64: 0, 2>, tiles = 2 : i64, weight = "w"}
  // expected-error @+1 {{a row block after the first uses the first block's crossbars: it holds no tiles}}
  %1 = spatial.task "a#0/1" after(%0) bytes [0] {block = 1 : i64, cost_ns = 1 : i64, op = "nn.convolution", rows = array<i64: 2, 4>, tiles = 2 : i64, weight = "w"}
}
