// Fallbacks are lowered fastest first: on cores of 108 KiB the scheduler
// keeps blocks of 2 rows (the half-row challenger, 22,066,192 ns
// predicted) over blocks of 4 (24,508,200 ns) and whole tensors
// (39,083,135 ns), and both losers stay as its fallbacks. Blocks of 2 and
// of 4 rows need more local memory than a core has (a second ReLU block
// finds no 32 KiB left: the blocks' buffers, each with its MVM slack,
// outnumber the whole tensors'), whole tensors fit: raptor-lower-to-pim tries 2,
// then 4, then lowers whole tensors, giving the first failure as the
// reason (the manifest's schedule.row_block_fallback).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-108k.json row-block=4 row-block-alternative" --raptor-schedule-spatial | FileCheck %s --check-prefix=KEPT
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-108k.json row-block=4 row-block-alternative" --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s --check-prefix=LOWERED
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-108k.json row-block=4" --raptor-schedule-spatial --raptor-lower-to-pim 2>&1 | FileCheck %s --check-prefix=FOUR
// When no graph fits (cores of 10 KiB), the error is the chosen graph's
// (blocks of 2 rows: as lowering it alone gives), not the last fallback's
// (whole tensors: 'c0#0' needs 36992 more bytes), which names tasks the
// compile did not choose.
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-10k.json row-block=4 row-block-alternative" --raptor-schedule-spatial --raptor-lower-to-pim 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-10k.json row-block=2" --raptor-schedule-spatial --raptor-lower-to-pim 2>&1 | FileCheck %s --check-prefix=NONE

// KEPT:      spatial.graph @main_tasks_challenged for {{.*}}fallback_of = @main_tasks,{{.*}}predicted_latency_ns = 24508200 : i64, row_block = 4 : i64
// KEPT:      spatial.graph @main_tasks_whole for {{.*}}fallback_of = @main_tasks,{{.*}}predicted_latency_ns = 39083135 : i64
// KEPT:      spatial.graph @main_tasks for {{.*}}alternative_latency_ns = 39083135 : i64, {{.*}}challenged_latency_ns = 24508200 : i64, {{.*}}predicted_latency_ns = 22066192 : i64, row_block = 2 : i64

// LOWERED:     spatial.graph @main_tasks for
// LOWERED-NOT: row_block =
// LOWERED-SAME: row_block_fallback = "task 'r1#0/15' on core 1: core 1 needs 32768 more bytes of local memory (33792 of 110592 in use); choose a target with more local memory (memory.local_bytes)"
// LOWERED-NOT: spatial.graph
// LOWERED:     pim.chip @main_chip

// NONE:     error: loc("c0"): task 'c0#0/1' on core 0: core 0 needs 4096 more bytes of local memory (6528 of 10240 in use)
// NONE-NOT: error:

// FOUR: error: loc("r1"): task 'r1#0/7' on core {{[0-9]+}}: core {{[0-9]+}} needs {{[0-9]+}} more bytes of local memory

func.func @main(%x: tensor<1x8x32x32xf32> {nn.input = "x"}) -> tensor<1x8x32x32xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x32x32xf32> loc("c0")
  %1 = nn.relu %0 : tensor<1x8x32x32xf32> loc("r0")
  %2 = nn.convolution %1, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x32x32xf32> loc("c1")
  %3 = nn.relu %2 : tensor<1x8x32x32xf32> loc("r1")
  return %3 : tensor<1x8x32x32xf32>
}
