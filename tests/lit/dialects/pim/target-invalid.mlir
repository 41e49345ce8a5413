// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#pim.target: a 2x2 mesh cannot hold 5 cores}}
module attributes {pim.target = #pim.target<"t", cores = 5, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576>} {
}

// -----

// expected-error @+1 {{#pim.target: unknown key 'pimsim.xbar_latecny'}}
module attributes {pim.target = #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576, pimsim = {xbar_latecny = 3 : i64}>} {
}

// -----

// expected-error @+1 {{#pim.target: 'pimsim.rob_size' must be a number}}
module attributes {pim.target = #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576, pimsim = {rob_size = "one"}>} {
}

// -----

// expected-error @+1 {{#pim.target: 'clock.period_ns' must be a positive number}}
module attributes {pim.target = #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 0.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576>} {
}

// -----

// expected-error @+1 {{#pim.target: 'memory.local_bytes' must be an integer from 1024 to 2^31}}
module attributes {pim.target = #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 512>} {
}

// -----

// expected-error @+1 {{expected 'mesh'}}
module attributes {pim.target = #pim.target<"t", cores = 4, crossbars = 8>} {
}

// -----

module {
  // expected-error @+1 {{'pim.target' belongs on a module}}
  func.func @f() attributes {pim.target = #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 1048576>} {
    return
  }
}

// -----

// expected-error @+1 {{'pim.target' must be a #pim.target attribute}}
module attributes {pim.target = "chip.json"} {
}

// -----

// expected-error @+1 {{has a geometry other than its target's}}
pim.chip @m cores 2 crossbars 2 of [8, 8] memory 8192 attributes {target = #pim.target<"one", cores = 1, mesh = [1, 1], crossbars = 2, crossbar = [8, 8], cell_bits = 8, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 8192>} {
}
