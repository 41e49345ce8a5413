// Every task names one operator: its location name, else its kind, with a
// number when the name is taken (a model parsed from text has file
// locations only, and its convolutions were all "convolution", so reports
// and timelines could not tell them apart). A location name that is taken
// gets a number too.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/../../../../python/raptor/spatial/targets/small.json | FileCheck %s

// CHECK:      spatial.task "relu#0" bytes [] {{{.*}}op = "nn.relu"
// CHECK-NEXT: spatial.task "relu_1#0" after(%{{.*}}) bytes [16] {{{.*}}op = "nn.relu"
// CHECK-NEXT: spatial.task "act#0" after(%{{.*}}) bytes [16] {{{.*}}op = "nn.relu"
// CHECK-NEXT: spatial.task "act_1#0" after(%{{.*}}) bytes [16] {{{.*}}op = "nn.relu"
// CHECK-NEXT: spatial.task "relu_2#0" after(%{{.*}}) bytes [16] {{{.*}}op = "nn.relu"
func.func @forward(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x4xf32> {
  %0 = nn.relu %x : tensor<1x4xf32> loc("m.mlir":3:8)
  %1 = nn.relu %0 : tensor<1x4xf32> loc("m.mlir":4:8)
  %2 = nn.relu %1 : tensor<1x4xf32> loc("act")
  %3 = nn.relu %2 : tensor<1x4xf32> loc("act")
  %4 = nn.relu %3 : tensor<1x4xf32>
  return %4 : tensor<1x4xf32>
}
