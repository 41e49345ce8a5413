// The program directory: pimsim-nn's files (config.json, core_<i>.json for
// every core, chip.json, network.json) and Raptor's (manifest.json,
// memory.bin, weights/, raptor/c<i>.rpim).
// RUN: rm -rf %t && %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim --raptor-emit-pim="output=%t pimsim=json" -o /dev/null
// RUN: cat %t/config.json | FileCheck %s --check-prefix=CONFIG
// RUN: cat %t/core_0.json | FileCheck %s --check-prefix=CORE
// RUN: cat %t/core_3.json | FileCheck %s --check-prefix=EMPTY
// RUN: cat %t/manifest.json | FileCheck %s --check-prefix=MANIFEST
// RUN: cat %t/chip.json | FileCheck %s --check-prefix=CHIP
// RUN: cat %t/network.json | FileCheck %s --check-prefix=NETWORK

// CONFIG:      "array_group_map": {
// CONFIG-NEXT:   "core0": [
// CONFIG-NEXT:     2
// CONFIG-NEXT:   ],
// CONFIG-NEXT:   "core1": [],
// CONFIG:      "core_cnt": 4

// Loops unrolled: a saddi per stride between iterations, then one
// restoring the register; every program ends on a non-scalar instruction.
// CORE:      {"op": "setbw", "ibiw": 32, "obiw": 32},
// CORE:      {"op": "ld", "rd": {{[0-9]+}}, "rs1": 0, "size": 96, "offset": {"offset_select": 0, "offset_value": 0}},
// Three positions of 8 inputs (32 bytes) and 10 outputs (40 bytes).
// CORE:      {"op": "mvmul", "rd": [[Y:[0-9]+]], "rs1": [[X:[0-9]+]], "mbiw": 8, "group": 0, "relu": 0},
// CORE-NEXT: {"op": "saddi", "rd": [[Y]], "rs1": [[Y]], "imm": 40},
// CORE-NEXT: {"op": "saddi", "rd": [[X]], "rs1": [[X]], "imm": 32},
// CORE-NEXT: {"op": "mvmul", "rd": [[Y]], "rs1": [[X]], "mbiw": 8, "group": 0, "relu": 0},
// CORE-NEXT: {"op": "saddi", "rd": [[Y]], "rs1": [[Y]], "imm": 40},
// CORE-NEXT: {"op": "saddi", "rd": [[X]], "rs1": [[X]], "imm": 32},
// CORE-NEXT: {"op": "mvmul", "rd": [[Y]], "rs1": [[X]], "mbiw": 8, "group": 0, "relu": 0},
// CORE-NEXT: {"op": "saddi", "rd": [[Y]], "rs1": [[Y]], "imm": -80},
// CORE-NEXT: {"op": "saddi", "rd": [[X]], "rs1": [[X]], "imm": -64},
// CORE:      {"op": "vrelu", "rd": {{[0-9]+}}, "rs1": {{[0-9]+}}, "len": 30, "offset": {"offset_select": 0, "offset_value": 0}},
// CORE:      {"op": "st", "rd": 0, "rs1": {{[0-9]+}}, "size": 120, "offset": {"offset_select": 0, "offset_value": 0}}
// CORE-NEXT: ]

// EMPTY: []

// MANIFEST:      "chip": {
// MANIFEST-NEXT:   "cell_bits": 8,
// MANIFEST-NEXT:   "cores": 4,
// MANIFEST-NEXT:   "crossbars_per_core": 4,
// MANIFEST-NEXT:   "local_memory_bytes": 1048576,
// MANIFEST:      "cores": [
// MANIFEST:          "groups": [
// MANIFEST-NEXT:       {
// MANIFEST-NEXT:         "cols": 10,
// MANIFEST-NEXT:         "crossbars": 2,
// MANIFEST-NEXT:         "id": 0,
// MANIFEST-NEXT:         "offset": 0,
// MANIFEST-NEXT:         "rows": 8,
// MANIFEST:          "instructions": 13,
// MANIFEST:          "program": "raptor/c0.rpim",
// MANIFEST:          "unrolled_instructions": 21,
// MANIFEST:          "weights_bytes": 320
// MANIFEST:      "inputs": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "address": 0,
// MANIFEST-NEXT:     "dtype": "float32",
// MANIFEST-NEXT:     "layout": "(8,3,1):(1,8,24)",
// MANIFEST-NEXT:     "name": "x",
// MANIFEST-NEXT:     "shape": [
// MANIFEST-NEXT:       1,
// MANIFEST-NEXT:       3,
// MANIFEST-NEXT:       8
// MANIFEST:      "pimsim_compatible": true,
// MANIFEST-NEXT: "pimsim_files": "json",

// CHIP:      "chip_config": {
// CHIP:        "matrix_config": {
// CHIP:          "cell_precision": 8,
// CHIP:          "xbar_array_count": 4,
// CHIP-NEXT:     "xbar_latency": 30,
// CHIP-NEXT:     "xbar_size": [
// CHIP-NEXT:       8,
// CHIP-NEXT:       8
// CHIP:      "layout": [
// CHIP-NEXT:   2,
// CHIP-NEXT:   2
// CHIP:      "sim_config": {

// Switch -10 is global memory; ns per flit grow with mesh hops.
// NETWORK:      "-10": {
// NETWORK-NEXT:   "0": 15,
// NETWORK:      "0": {
// NETWORK-NEXT:   "-10": 15,
// NETWORK-NEXT:   "1": 11,
// NETWORK-NEXT:   "2": 11,
// NETWORK-NEXT:   "3": 12

func.func @main(%x: tensor<1x3x8xf32> {nn.input = "x"}) -> tensor<1x3x10xf32> {
  %w = nn.constant dense<0.5> : tensor<10x8xf32>
  %0 = nn.linear %x, %w : (tensor<1x3x8xf32>, tensor<10x8xf32>) -> tensor<1x3x10xf32>
  %1 = nn.relu %0 : tensor<1x3x10xf32>
  return %1 : tensor<1x3x10xf32>
}
