// The pipeline search's estimate of a crossing form's local memory
// (crossing_costs.<form>.local_bytes in the selection report), counted by
// hand from its rule (passes/spatial/WorkingMemory.h): per core, the data
// held at the iteration boundary plus the most bytes of values live at
// once. A convolution of two lanes (cores 0 and 1) feeds a ReLU on core 3;
// skewed, every value crossing cores is held at the boundary: core 3 holds
// the two lanes' 4-byte partial sums (2 x 8 x 8 x 8 x 4 = 4096 bytes) and
// its ReLU's output (2048 bytes), which no task of its core reads, lives
// during the ReLU's own task: 6144 bytes, the most of any core (a lane's
// core holds its 2048 bytes of sums).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json mode=pipeline replicate=none" --raptor-schedule-spatial="mode=pipeline depth=2 crossing=skewed local-boundaries report=%t.json" | FileCheck %s --check-prefix=PLACED
// RUN: FileCheck %s < %t.json

// PLACED: spatial.task "b#0" {{.*}}core = 0 : i64
// PLACED: spatial.task "b#1" {{.*}}core = 1 : i64
// PLACED: spatial.task "r#0" after({{.*}}) bytes [2048, 2048] {core = 3 : i64

// CHECK:      "skewed": {
// CHECK-NOT:  }
// CHECK:      "local_bytes": 6144

func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}, %w: tensor<8x8x3x3xf32> {nn.param = "b.weight"}) -> tensor<1x8x8x8xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("r")
  return %1 : tensor<1x8x8x8xf32>
}
