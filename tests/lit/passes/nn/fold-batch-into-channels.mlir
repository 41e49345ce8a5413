// raptor-fold-batch-into-channels: a convolution of a batch of N maps as one
// map of N C channels in N times the groups, weights and bias repeated N
// times; poolings between the same views; batch 1, transposed convolutions
// and other ranks unchanged.
// RUN: %raptor-opt %s --raptor-fold-batch-into-channels --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @grouped_convolution
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x6x5xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-DAG: %[[WS:.*]] = nn.cat %[[W]], %[[W]] : (tensor<6x2x3x3xf32>, tensor<6x2x3x3xf32>) -> tensor<12x2x3x3xf32>
// CHECK-DAG: %[[BS:.*]] = nn.cat %[[B]], %[[B]] : (tensor<6xf32>, tensor<6xf32>) -> tensor<12xf32>
// CHECK-DAG: %[[M:.*]] = nn.view %[[X]] {size = array<i64: 1, 8, 6, 5>} : (tensor<2x4x6x5xf32>) -> tensor<1x8x6x5xf32>
// CHECK: %[[C:.*]] = nn.convolution %[[M]], %[[WS]], %[[BS]] {dilation = array<i64: 1, 1>, groups = 4 : i64, padding = array<i64: 1, 0>, stride = array<i64: 2, 1>} : (tensor<1x8x6x5xf32>, tensor<12x2x3x3xf32>, tensor<12xf32>) -> tensor<1x12x3x3xf32>
// CHECK: %[[R:.*]] = nn.view %[[C]] {size = array<i64: 2, 6, 3, 3>} : (tensor<1x12x3x3xf32>) -> tensor<2x6x3x3xf32>
// CHECK: return %[[R]]
func.func @grouped_convolution(%x: tensor<2x4x6x5xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x3x3xf32> {
  %0 = nn.convolution %x, %w, %b {stride = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilation = array<i64: 1, 1>, groups = 2} : (tensor<2x4x6x5xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x3x3xf32>
  return %0 : tensor<2x6x3x3xf32>
}

// -----

// MViTv2's head pooling: a depthwise convolution of 3 heads, no bias: its
// 4 groups become 12, one weight per channel of each head.
// CHECK-LABEL: func.func @depthwise_heads
// CHECK: nn.cat %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<12x1x3x3xf32>
// CHECK-NOT: nn.cat
// CHECK: nn.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 12 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x12x4x4xf32>, tensor<12x1x3x3xf32>) -> tensor<1x12x4x4xf32>
// CHECK: nn.view %{{.*}} {size = array<i64: 3, 4, 4, 4>}
func.func @depthwise_heads(%x: tensor<3x4x4x4xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<3x4x4x4xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4} : (tensor<3x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<3x4x4x4xf32>
  return %0 : tensor<3x4x4x4xf32>
}

// -----

// Poolings: the input viewed as one map, every result read viewed back
// (the max pooling's indices too, here; unread, they get no view: below).
// CHECK-LABEL: func.func @poolings
// CHECK: %[[M:.*]] = nn.view %{{.*}} {size = array<i64: 1, 6, 4, 4>} : (tensor<2x3x4x4xf32>) -> tensor<1x6x4x4xf32>
// CHECK: %[[P:.*]], %[[I:.*]] = nn.max_pool2d %[[M]] {{.*}} : (tensor<1x6x4x4xf32>) -> (tensor<1x6x2x2xf32>, tensor<1x6x2x2xi64>)
// CHECK-DAG: nn.view %[[P]] {size = array<i64: 2, 3, 2, 2>}
// CHECK-DAG: nn.view %[[I]] {size = array<i64: 2, 3, 2, 2>}
// CHECK: nn.avg_pool2d %{{.*}} {{.*}} : (tensor<1x6x4x4xf32>) -> tensor<1x6x2x2xf32>
// CHECK: nn.adaptive_avg_pool2d %{{.*}} {{.*}} : (tensor<1x6x4x4xf32>) -> tensor<1x6x1x1xf32>
// CHECK: nn.view %{{.*}} {size = array<i64: 2, 3, 1, 1>}
func.func @poolings(%x: tensor<2x3x4x4xf32>) -> (tensor<2x3x2x2xf32>, tensor<2x3x2x2xi64>, tensor<2x3x2x2xf32>, tensor<2x3x1x1xf32>) {
  %0, %1 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> (tensor<2x3x2x2xf32>, tensor<2x3x2x2xi64>)
  %2 = nn.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x2x2xf32>
  %3 = nn.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x1x1xf32>
  return %0, %1, %2, %3 : tensor<2x3x2x2xf32>, tensor<2x3x2x2xi64>, tensor<2x3x2x2xf32>, tensor<2x3x1x1xf32>
}

// -----

// Batch 1, a transposed convolution and a 3-d convolution: unchanged.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: nn.view
// CHECK-NOT: nn.cat
// CHECK: return
func.func @unchanged(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %y: tensor<2x2x4x4xf32>, %v: tensor<2x2x2x2x2xf32>, %u: tensor<2x2x1x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x2x2x2xf32>) {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = nn.convolution %y, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>} : (tensor<2x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<2x2x4x4xf32>
  %2 = nn.convolution %v, %u {stride = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<2x2x2x2x2xf32>, tensor<2x2x1x1x1xf32>) -> tensor<2x2x2x2x2xf32>
  return %0, %1, %2 : tensor<1x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x2x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @unread_indices
// CHECK: %[[P:.*]], %[[I:.*]] = nn.max_pool2d
// CHECK-NOT: nn.view %[[I]]
// CHECK: %[[R:.*]] = nn.view %[[P]] {size = array<i64: 2, 3, 2, 2>}
// CHECK-NOT: nn.view %[[I]]
// CHECK: return %[[R]]
func.func @unread_indices(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x2x2xf32> {
  %0, %1 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> (tensor<2x3x2x2xf32>, tensor<2x3x2x2xi64>)
  return %0 : tensor<2x3x2x2xf32>
}
