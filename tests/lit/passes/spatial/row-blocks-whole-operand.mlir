// A row block of an element-wise operator reading a tensor no task streams
// receives only its rows of it, as the lowering sends them: the ReLU of the
// input is one whole task (8 rows of 256 bytes), and the sum's blocks of
// rows [0, 2), [2, 5), [5, 8) take 512, 768 and 768 bytes of it. (They
// were priced the whole 2048 bytes each: ShuffleNetV2's half that skips the
// branch, received by every block of the next concatenation, put the int8
// estimate 1.22x the simulated latency.)
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../pim/Inputs/tiny.json row-block=3" | FileCheck %s
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../pim/Inputs/tiny.json row-block=3" --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s --check-prefix=SENT

// CHECK:      %[[SKIP:.*]] = spatial.task "skip#0" bytes []
// CHECK-NEXT: spatial.task "sum#0/0" after(%{{.*}}, %[[SKIP]]) bytes [{{[0-9]+}}, 512] {{.*}}rows = array<i64: 0, 2>
// CHECK-NEXT: spatial.task "sum#0/1" after(%{{.*}}, %[[SKIP]]) bytes [{{[0-9]+}}, 768] {{.*}}rows = array<i64: 2, 5>
// CHECK-NEXT: spatial.task "sum#0/2" after(%{{.*}}, %[[SKIP]]) bytes [{{[0-9]+}}, 768] {{.*}}rows = array<i64: 5, 8>

// The block on the other core than the ReLU's receives its 3 rows.
// SENT: pim.recv {{r[0-9]+}} from {{[0-9]+}} size 768

func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}) -> tensor<1x8x8x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %x : tensor<1x8x8x8xf32> loc("skip")
  %2 = nn.add %0, %1 : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> loc("sum")
  return %2 : tensor<1x8x8x8xf32>
}
