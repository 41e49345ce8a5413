// #pim.target round-trips (numbers as written back: floats with a point,
// the pimsim section kept), on a module and on a chip, and is verified as a
// target file is.
// RUN: %raptor-opt %s -split-input-file | %raptor-opt -split-input-file | FileCheck %s
// RUN: %raptor-opt %s -split-input-file --mlir-print-op-generic | %raptor-opt -split-input-file | FileCheck %s

// CHECK: module attributes {pim.target = #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 0.5, link_bytes_per_cycle = 32.0, hop_latency_cycles = 0.0, local_memory_bytes = 1048576, pimsim = {adc_count = 4 : i64, xbar_latency = 2.500000e+01 : f64}>}
module attributes {pim.target = #pim.target<"t", cores = 4, mesh = [2, 2], crossbars = 8, crossbar = [64, 64], cell_bits = 2, weight_bits = 8, clock_ns = 0.5, link_bytes_per_cycle = 32, hop_latency_cycles = 0, local_memory_bytes = 1048576, pimsim = {adc_count = 4 : i64, xbar_latency = 25.0 : f64}>} {
}

// -----

// CHECK-LABEL: pim.chip @m
// CHECK-SAME: target = #pim.target<"one", cores = 1
pim.chip @m cores 1 crossbars 2 of [8, 8] memory 8192 attributes {target = #pim.target<"one", cores = 1, mesh = [1, 1], crossbars = 2, crossbar = [8, 8], cell_bits = 8, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 32.0, hop_latency_cycles = 2.0, local_memory_bytes = 8192>} {
}
