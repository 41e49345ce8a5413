// Padding becomes an operator of its own: zeros before a convolution, -inf
// (the identity of max) before a max-pool; the consumers lose their padding
// and keep their result types.
// (tests/python/test_graph_conventions.py checks the values against torch.)
// RUN: %raptor-opt %s --raptor-materialize-padding | FileCheck %s
// Idempotent: nothing is padded twice.
// RUN: %raptor-opt %s --raptor-materialize-padding --raptor-materialize-padding | FileCheck %s

// CHECK-LABEL: func.func @conv_and_pool
// (before, after) pairs from the last dimension backwards: W by 2, H by 1.
// CHECK:      %[[P:.*]] = nn.constant_pad_nd %arg0 {pad = array<i64: 2, 2, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x12xf32>
// CHECK-NEXT: %[[C:.*]] = nn.convolution %[[P]], %arg1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x10x12xf32>, tensor<4x3x3x5xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT: %[[Q:.*]] = nn.constant_pad_nd %[[C]] {pad = array<i64: 1, 1, 1, 1>, value = 0xFFF0000000000000 : f64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32>
// CHECK-NEXT: %{{.*}}, %{{.*}} = nn.max_pool2d %[[Q]] {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>} : (tensor<1x4x10x10xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
func.func @conv_and_pool(%x: tensor<1x3x8x8xf32> {nn.input = "x"}, %w: tensor<4x3x3x5xf32> {nn.param = "w"}) -> tensor<1x4x4x4xf32> {
  %c = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 2>, dilation = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x5xf32>) -> tensor<1x4x8x8xf32>
  %p, %i = nn.max_pool2d %c {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  return %p : tensor<1x4x4x4xf32>
}

// A transposed convolution's padding crops its output: it stays. So do
// unpadded operators, and a ceil-mode pool whose last window would start
// in the padding (torch drops it; on padded data it would be kept).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   nn.constant_pad_nd
// CHECK:       nn.convolution %arg0, %arg1 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true}
// CHECK:       nn.convolution %arg0, %arg2 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>
// CHECK:       nn.max_pool2d %arg0 {ceil_mode = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}
// CHECK-NOT:   nn.constant_pad_nd
func.func @left_alone(%x: tensor<1x4x5x5xf32> {nn.input = "x"}, %wt: tensor<4x4x3x3xf32> {nn.param = "wt"},
                      %w: tensor<4x4x1x1xf32> {nn.param = "w"})
    -> (tensor<1x4x9x9xf32>, tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>) {
  %t = nn.convolution %x, %wt {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
                               transposed = true, output_padding = array<i64: 0, 0>}
      : (tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x9x9xf32>
  %c = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>}
      : (tensor<1x4x5x5xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x5x5xf32>
  %p, %i = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<1x4x5x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xi64>)
  return %t, %c, %p : tensor<1x4x9x9xf32>, tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>
}
