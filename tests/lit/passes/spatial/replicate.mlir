// Replication: lanes of convolutions copied onto spare crossbars, each copy
// computing a range of output rows (its cost the rows' share).
// Target small.json: 4 cores x 8 crossbars = 32; with replication-budget=1
// the 14 crossbars of the two lanes leave 18 for copies.
// b: 3x3 stride 2 on the 8x8 input, K = 72 -> 5 row tiles x 2 slices = 10
//    crossbars in two lanes (row chunks of 6 and 4), 16 windows of 5 MVMs;
// a: 1x1, 8 -> 32 channels: 2 column tiles x 2 slices = 4 crossbars, 64
//    windows of one MVM.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replicate=time replication-budget=1" | FileCheck %s --check-prefix=TIME
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replicate=windows replication-budget=1" | FileCheck %s --check-prefix=WINDOWS
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replicate=time replication-budget=0.4" | FileCheck %s --check-prefix=NONE
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replicate=balance replication-budget=1" | FileCheck %s --check-prefix=BALANCE
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replicate=auto mode=pipeline replication-budget=0.75" | FileCheck %s --check-prefix=SLOWEST
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replicate=auto replication-budget=0.75" | FileCheck %s --check-prefix=SAVING
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replicate=all" 2>&1 | FileCheck %s --check-prefix=RULE
// RUN: not %raptor-opt %s --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json replication-budget=1.5" 2>&1 | FileCheck %s --check-prefix=BUDGET

// Time saved per crossbar: a (half of 64 MVMs over 4 crossbars), then b
// (half of 80 over 10), then a again: a x 3, b x 2.
// TIME:      spatial.task "b#0" {{.*}}rows = array<i64: 0, 2>
// TIME-NEXT: spatial.task "b#0@1" {{.*}}replica = 1 : i64, {{.*}}rows = array<i64: 2, 4>{{.*}}weight = "b.weight#0@1"
// TIME-NEXT: spatial.task "b#1" {{.*}}rows = array<i64: 0, 2>
// TIME-NEXT: spatial.task "b#1@1" {{.*}}rows = array<i64: 2, 4>
// TIME-NEXT: spatial.task "a#0" {{.*}}rows = array<i64: 0, 2>
// TIME-NEXT: spatial.task "a#0@1" {{.*}}rows = array<i64: 2, 5>
// TIME-NEXT: spatial.task "a#0@2" {{.*}}rows = array<i64: 5, 8>
// TIME-NOT:  spatial.task

// PIMCOMP's rule, the most windows per copy: a until its 64 / 4 = 16
// windows per copy tie with b's 16 (b, the earlier, cannot fit its 10),
// then a once more: a x 5, b x 1.
// WINDOWS:     spatial.task "b#0" bytes [] {col_tiles
// WINDOWS-NOT: rows
// WINDOWS:     spatial.task "b#1" bytes [] {col_tiles
// WINDOWS-NOT: rows
// WINDOWS:     spatial.task "a#0" {{.*}}rows = array<i64: 0, 1>
// WINDOWS:     spatial.task "a#0@4" {{.*}}rows = array<i64: 6, 8>
// WINDOWS-NOT: spatial.task

// The slowest copies first, while they take more than half the work per
// core: lanes b#0 270176 ns, b#1 68048, a#0 269248 ns make 607472 over 4
// cores, half of it 75934 per core. b (its slowest lane) goes to two
// copies of 135088, a to two of 134624, then b again does not fit the 4
// crossbars left (10), a takes them (three copies, 89749: still above, but
// no crossbar remains): b x 2, a x 3.
// With 24 crossbars (10 spare) the two rules part: balance copies the
// slowest, b, which takes the 10; time the best saving per crossbar, a
// (twice, then b does not fit). replicate=auto is balance for a pipeline's
// graph (mode=pipeline), time otherwise.
// SLOWEST:      spatial.task "b#0"
// SLOWEST-NEXT: spatial.task "b#0@1"
// SLOWEST-NEXT: spatial.task "b#1"
// SLOWEST-NEXT: spatial.task "b#1@1"
// SLOWEST-NEXT: spatial.task "a#0"
// SLOWEST-NOT:  spatial.task
// SAVING:       spatial.task "b#0"
// SAVING-NEXT:  spatial.task "b#1"
// SAVING-NEXT:  spatial.task "a#0"
// SAVING-NEXT:  spatial.task "a#0@1"
// SAVING-NEXT:  spatial.task "a#0@2"
// SAVING-NOT:   spatial.task
// BALANCE:      spatial.task "b#0" {{.*}}cost_ns = 135088{{.*}}rows = array<i64: 0, 2>
// BALANCE-NEXT: spatial.task "b#0@1" {{.*}}rows = array<i64: 2, 4>
// BALANCE-NEXT: spatial.task "b#1" {{.*}}cost_ns = 34024{{.*}}rows = array<i64: 0, 2>
// BALANCE-NEXT: spatial.task "b#1@1" {{.*}}rows = array<i64: 2, 4>
// BALANCE-NEXT: spatial.task "a#0" {{.*}}rows = array<i64: 0, 2>
// BALANCE-NEXT: spatial.task "a#0@1" {{.*}}rows = array<i64: 2, 5>
// BALANCE-NEXT: spatial.task "a#0@2" {{.*}}rows = array<i64: 5, 8>
// BALANCE-NOT:  spatial.task

// A budget below the lanes' own crossbars leaves one copy each.
// NONE-NOT: replica =

// RULE: for the --replicate option: unknown value 'all' (expected none, time, windows, balance or auto)
// BUDGET: error: replication-budget must be a fraction from 0 to 1

func.func @main(%x: tensor<1x8x8x8xf32> {nn.input = "x"}, %wb: tensor<8x8x3x3xf32> {nn.param = "b.weight"},
                %wa: tensor<32x8x1x1xf32> {nn.param = "a.weight"}) -> (tensor<1x8x4x4xf32>, tensor<1x32x8x8xf32>) {
  %0 = nn.convolution %x, %wb {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32> loc("b")
  %1 = nn.convolution %x, %wa {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x8x8xf32> loc("a")
  return %0, %1 : tensor<1x8x4x4xf32>, tensor<1x32x8x8xf32>
}
