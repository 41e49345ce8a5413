// Row streaming: which rows of its input a streamed block reads follows
// the operator's window. Each function streams a convolution b's 8 output
// rows in blocks [0, 2), [2, 5), [5, 8) (row-block=3) and a ReLU r follows
// them block by block (rows of 8 channels x 8 columns x 4 bytes = 256 bytes).
// RUN: %raptor-opt %s -split-input-file --raptor-build-compute-graph="target=%S/../../../../python/raptor/spatial/targets/small.json row-block=3" | FileCheck %s

// A 3x3 convolution of dilation 2 (padding 2): output rows [b, e) read
// input rows [b - 2, e + 2), twice the undilated halo.
// CHECK-LABEL: spatial.graph @dilated_tasks
// CHECK:      %[[R0:.*]] = spatial.task "r#0/0"
// CHECK-NEXT: %[[R1:.*]] = spatial.task "r#0/1"
// CHECK-NEXT: %[[R2:.*]] = spatial.task "r#0/2"
// Rows [0, 2) read [-2, 4): R0's 2 rows and 2 of R1's 3.
// CHECK-NEXT: %[[C0:.*]] = spatial.task "c#0/0" after(%[[R0]], %[[R1]]) bytes [512, 512] {block = 0 : i64
// Rows [2, 5) read [0, 7): all of R0 and R1, and 2 of R2's 3.
// CHECK-NEXT: spatial.task "c#0/1" after(%[[R0]], %[[R1]], %[[R2]], %[[C0]]) bytes [512, 768, 512, 0] {block = 1 : i64
// Rows [5, 8) read [3, 10): 2 of R1's rows and all of R2.
// CHECK-NEXT: spatial.task "c#0/2" after(%[[R1]], %[[R2]], %{{.*}}) bytes [512, 768, 0] {block = 2 : i64
func.func @dilated(%x: tensor<1x8x8x8xf32> {nn.input = "x"}, %w: tensor<8x8x3x3xf32> {nn.param = "b.weight"}) -> tensor<1x8x8x8xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("r")
  %2 = nn.convolution %1, %w {stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("c")
  return %2 : tensor<1x8x8x8xf32>
}

// -----

// A 2x2 max pool without a stride strides by its kernel (torch's
// default): its 4 output rows follow in blocks [0, 1), [1, 2), [2, 4),
// and output rows [b, e) read input rows [2b, 2e) (at stride 1, [b, e + 1)).
// CHECK-LABEL: spatial.graph @pooled_tasks
// CHECK:      %[[R0:.*]] = spatial.task "r#0/0"
// CHECK-NEXT: %[[R1:.*]] = spatial.task "r#0/1"
// CHECK-NEXT: %[[R2:.*]] = spatial.task "r#0/2"
// Rows [0, 2) of R0; rows [2, 4) of R1; rows [4, 8): one of R1's, all of R2.
// CHECK-NEXT: spatial.task "p#0/0" after(%[[R0]]) bytes [512] {{{.*}}rows = array<i64: 0, 1>
// CHECK-NEXT: spatial.task "p#0/1" after(%[[R1]]) bytes [512] {{{.*}}rows = array<i64: 1, 2>
// CHECK-NEXT: spatial.task "p#0/2" after(%[[R1]], %[[R2]]) bytes [256, 768] {{{.*}}rows = array<i64: 2, 4>
func.func @pooled(%x: tensor<1x8x8x8xf32> {nn.input = "x"}, %w: tensor<8x8x3x3xf32> {nn.param = "b.weight"}) -> tensor<1x8x4x4xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("b")
  %1 = nn.relu %0 : tensor<1x8x8x8xf32> loc("r")
  %2:2 = nn.max_pool2d %1 {kernel_size = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xi64>) loc("p")
  return %2#0 : tensor<1x8x4x4xf32>
}
