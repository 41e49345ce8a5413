// An upsampled map is its producer's pieces, each upsampled where it is:
// the element-wise operator reading it follows the producer's row blocks
// (three blocks of 8 upsampled rows, each reading the 4 rows of one block
// of `a`), instead of one task holding the whole upsampled map (U-Net
// int8's last encoder held 18 MiB on one core that way).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../pim/Inputs/tiny.json replicate=none row-block=4" | FileCheck %s
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=4 row-block-alternative" | FileCheck %s --check-prefix=THREE
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=4 row-block-alternative" --raptor-schedule-spatial | FileCheck %s --check-prefix=SETTLED

// With row-block-alternative the 2-row graph challenges the 4-row one but
// is predicted slower (409,522 against 409,408 ns); whole tensors
// (409,341 ns) then stay, recording the 4-row prediction, and the two
// streamed graphs stay as their fallbacks (for raptor-lower-to-pim, when
// whole tensors do not fit).
// THREE: spatial.graph @main_tasks for {{.*}}row_block = 4 : i64
// THREE: spatial.graph @main_tasks_whole for {{.*}}alternative_of = @main_tasks
// THREE: spatial.graph @main_tasks_half for {{.*}}challenger_of = @main_tasks{{.*}}row_block = 2 : i64
// SETTLED:     spatial.graph @main_tasks_streamed for {{.*}}fallback_of = @main_tasks,{{.*}}predicted_latency_ns = 409408 : i64, row_block = 4 : i64
// SETTLED:     spatial.graph @main_tasks for {{.*}}alternative_latency_ns = 409408 : i64
// SETTLED-NOT: challenged_latency_ns
// SETTLED-SAME: predicted_latency_ns = 409341 : i64
// SETTLED:     spatial.graph @main_tasks_half for {{.*}}fallback_of = @main_tasks,{{.*}}predicted_latency_ns = 409522 : i64, row_block = 2 : i64
// SETTLED-NOT: spatial.graph

// CHECK: spatial.task "a#0/0" {{.*}}rows = array<i64: 0, 4>
// CHECK: spatial.task "a#0/2" {{.*}}rows = array<i64: 8, 12>
// CHECK: spatial.task "up#0" after
// CHECK: spatial.task "r#0/0" {{.*}}rows = array<i64: 0, 8>
// CHECK: spatial.task "r#0/1" {{.*}}rows = array<i64: 8, 16>
// CHECK: spatial.task "r#0/2" {{.*}}rows = array<i64: 16, 24>
// CHECK-NOT: spatial.task "r#0"
func.func @main(%x: tensor<1x2x12x4xf32> {nn.input = "x"}) -> tensor<1x2x24x8xf32> {
  %w = nn.constant dense<0.5> : tensor<2x2x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x12x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x12x4xf32> loc("a")
  %1 = nn.upsample_nearest2d %0 {output_size = array<i64: 24, 8>} : (tensor<1x2x12x4xf32>) -> tensor<1x2x24x8xf32> loc("up")
  %2 = nn.relu %1 : tensor<1x2x24x8xf32> loc("r")
  return %2 : tensor<1x2x24x8xf32>
}
