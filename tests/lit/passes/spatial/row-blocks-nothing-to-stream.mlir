// A model with no convolution to stream (a linear layer and a ReLU) gives
// the same tasks with and without row blocks: row-block-alternative then
// keeps one graph, unmarked, and the scheduler has nothing to compare.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=8 row-block-alternative" | FileCheck %s
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=8 row-block-alternative" --raptor-schedule-spatial | FileCheck %s --check-prefix=SCHEDULED

// CHECK:     spatial.graph @main_tasks for
// CHECK-NOT: row_block
// CHECK-NOT: spatial.graph
// SCHEDULED:     spatial.graph @main_tasks for
// SCHEDULED-NOT: alternative_latency_ns
// SCHEDULED-NOT: spatial.graph

func.func @main(%x: tensor<4x16xf32> {nn.input = "x"}) -> tensor<4x8xf32> {
  %w = nn.constant dense<0.25> : tensor<8x16xf32>
  %0 = nn.linear %x, %w : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32> loc("fc")
  %1 = nn.relu %0 : tensor<4x8xf32> loc("r")
  return %1 : tensor<4x8xf32>
}
