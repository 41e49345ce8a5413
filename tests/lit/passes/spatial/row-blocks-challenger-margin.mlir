// The half-row challenger must be predicted clearly faster (5%,
// kClearlyFaster) to replace the graph it challenges: here blocks of one
// row are predicted 2.8% faster than blocks of two (925,356 against
// 952,033 ns), not clearly, so the 2-row graph stays and records no
// challenged latency; whole tensors (1,624,737 ns) are slower still; both
// stay only as memory fallbacks.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=2 row-block-alternative" --raptor-schedule-spatial | FileCheck %s
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=1" --raptor-schedule-spatial | FileCheck %s --check-prefix=ONE

// CHECK:     spatial.graph @main_tasks for {{.*}}alternative_latency_ns = 1624737 : i64
// CHECK-NOT: challenged_latency_ns
// CHECK-SAME: predicted_latency_ns = 952033 : i64, row_block = 2 : i64
// CHECK:     spatial.graph @main_tasks_whole for {{.*}}fallback_of = @main_tasks
// CHECK:     spatial.graph @main_tasks_half for {{.*}}fallback_of = @main_tasks,{{.*}}predicted_latency_ns = 925356 : i64, row_block = 1 : i64
// CHECK-NOT: spatial.graph
// ONE: spatial.graph @main_tasks for {{.*}}predicted_latency_ns = 925356 : i64, row_block = 1 : i64
func.func @main(%x: tensor<1x2x24x4xf32> {nn.input = "x"}) -> tensor<1x2x24x4xf32> {
  %w = nn.constant dense<0.5> : tensor<2x2x3x3xf32>
  %c0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x24x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x24x4xf32> loc("c0")
  %r0 = nn.relu %c0 : tensor<1x2x24x4xf32> loc("r0")
  %c1 = nn.convolution %r0, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x24x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x24x4xf32> loc("c1")
  %r1 = nn.relu %c1 : tensor<1x2x24x4xf32> loc("r1")
  return %r1 : tensor<1x2x24x4xf32>
}
