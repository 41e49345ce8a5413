// raptor-normalize-row-ops: a softmax over another dimension than the last
// between two permutations; attention of rank 5, 3 and 2 as rank-4 attention
// between views; a mask varying along a folded dimension expanded first; a
// maximum as a max pooling of the reduced elements.
// RUN: %raptor-opt %s --raptor-normalize-row-ops --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @softmax_over_dim_1
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x4xf32>)
// CHECK: %[[P:.*]] = nn.permute %[[X]] {dims = array<i64: 0, 2, 1>} : (tensor<2x5x4xf32>) -> tensor<2x4x5xf32>
// CHECK: %[[S:.*]] = nn.softmax %[[P]] {dim = 2 : i64} : tensor<2x4x5xf32>
// CHECK: %[[B:.*]] = nn.permute %[[S]] {dims = array<i64: 0, 2, 1>} : (tensor<2x4x5xf32>) -> tensor<2x5x4xf32>
// CHECK: return %[[B]]
func.func @softmax_over_dim_1(%x: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  %0 = nn.softmax %x {dim = 1} : tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// A permutation that is not its own inverse: dimension 0 of rank 4 moved
// last is (1, 2, 3, 0), back is (3, 0, 1, 2).
// CHECK-LABEL: func.func @softmax_over_dim_0
// CHECK: nn.permute %{{.*}} {dims = array<i64: 1, 2, 3, 0>} : (tensor<2x3x4x5xf32>) -> tensor<3x4x5x2xf32>
// CHECK: nn.softmax %{{.*}} {dim = 3 : i64} : tensor<3x4x5x2xf32>
// CHECK: nn.permute %{{.*}} {dims = array<i64: 3, 0, 1, 2>} : (tensor<3x4x5x2xf32>) -> tensor<2x3x4x5xf32>
func.func @softmax_over_dim_0(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = nn.softmax %x {dim = 0} : tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// Over the last dimension (also as -1) and of rank 1: unchanged.
// CHECK-LABEL: func.func @softmax_rows
// CHECK-NOT: nn.permute
// CHECK: nn.softmax %{{.*}} {dim = -1 : i64} : tensor<2x5xf32>
// CHECK: nn.softmax %{{.*}} {dim = 1 : i64} : tensor<2x5xf32>
// CHECK: nn.softmax %{{.*}} {dim = 0 : i64} : tensor<5xf32>
func.func @softmax_rows(%x: tensor<2x5xf32>, %y: tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<5xf32>) {
  %0 = nn.softmax %x {dim = -1} : tensor<2x5xf32>
  %1 = nn.softmax %x {dim = 1} : tensor<2x5xf32>
  %2 = nn.softmax %y {dim = 0} : tensor<5xf32>
  return %0, %1, %2 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<5xf32>
}

// -----

// NesT: (batch, heads, blocks, length, dim) -> (batch, heads x blocks, ...).
// CHECK-LABEL: func.func @blocks
// CHECK-SAME: (%[[Q:.*]]: tensor<2x3x4x16x8xf32>, %[[K:.*]]: tensor<2x3x4x16x8xf32>, %[[V:.*]]: tensor<2x3x4x16x6xf32>)
// CHECK-DAG: %[[Q4:.*]] = nn.view %[[Q]] {size = array<i64: 2, 12, 16, 8>}
// CHECK-DAG: %[[K4:.*]] = nn.view %[[K]] {size = array<i64: 2, 12, 16, 8>}
// CHECK-DAG: %[[V4:.*]] = nn.view %[[V]] {size = array<i64: 2, 12, 16, 6>}
// CHECK: %[[A:.*]] = nn.scaled_dot_product_attention %[[Q4]], %[[K4]], %[[V4]] {scale = 2.500000e-01 : f64} : (tensor<2x12x16x8xf32>, tensor<2x12x16x8xf32>, tensor<2x12x16x6xf32>) -> tensor<2x12x16x6xf32>
// CHECK: %[[O:.*]] = nn.view %[[A]] {size = array<i64: 2, 3, 4, 16, 6>} : (tensor<2x12x16x6xf32>) -> tensor<2x3x4x16x6xf32>
// CHECK: return %[[O]]
func.func @blocks(%q: tensor<2x3x4x16x8xf32>, %k: tensor<2x3x4x16x8xf32>, %v: tensor<2x3x4x16x6xf32>) -> tensor<2x3x4x16x6xf32> {
  %0 = nn.scaled_dot_product_attention %q, %k, %v {scale = 0.25 : f64}
      : (tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x6xf32>) -> tensor<2x3x4x16x6xf32>
  return %0 : tensor<2x3x4x16x6xf32>
}

// A mask of rank 2 broadcast over everything: padded to (1, 1, 1, L, S),
// folded to (1, 1, L, S); one varying along the blocks: expanded over the
// heads too, then folded.
// CHECK-LABEL: func.func @masks
// CHECK: %[[M:.*]] = nn.view %{{.*}} {size = array<i64: 1, 1, 16, 16>} : (tensor<16x16xf32>) -> tensor<1x1x16x16xf32>
// CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}}, %[[M]] {{.*}} -> tensor<2x12x16x8xf32>
// CHECK: %[[P:.*]] = nn.view %{{.*}} {size = array<i64: 1, 1, 4, 16, 16>} : (tensor<4x16x16xf32>) -> tensor<1x1x4x16x16xf32>
// CHECK: %[[E:.*]] = nn.expand %[[P]] {size = array<i64: -1, 3, 4, -1, -1>} : (tensor<1x1x4x16x16xf32>) -> tensor<1x3x4x16x16xf32>
// CHECK: %[[F:.*]] = nn.view %[[E]] {size = array<i64: 1, 12, 16, 16>} : (tensor<1x3x4x16x16xf32>) -> tensor<1x12x16x16xf32>
// CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}}, %[[F]] {{.*}} -> tensor<2x12x16x8xf32>
func.func @masks(%q: tensor<2x3x4x16x8xf32>, %m: tensor<16x16xf32>, %n: tensor<4x16x16xf32>) -> (tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>) {
  %0 = nn.scaled_dot_product_attention %q, %q, %q, %m
      : (tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>, tensor<16x16xf32>) -> tensor<2x3x4x16x8xf32>
  %1 = nn.scaled_dot_product_attention %q, %q, %q, %n
      : (tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>, tensor<4x16x16xf32>) -> tensor<2x3x4x16x8xf32>
  return %0, %1 : tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>
}

// Rank 3 gains heads, rank 2 a batch and heads; rank 4 is left as it is
// (grouped-query keys included).
// CHECK-LABEL: func.func @small_ranks
// CHECK: nn.view %{{.*}} {size = array<i64: 2, 1, 16, 8>} : (tensor<2x16x8xf32>) -> tensor<2x1x16x8xf32>
// CHECK: nn.scaled_dot_product_attention {{.*}} -> tensor<2x1x16x8xf32>
// CHECK: nn.view %{{.*}} {size = array<i64: 2, 16, 8>} : (tensor<2x1x16x8xf32>) -> tensor<2x16x8xf32>
// CHECK: nn.view %{{.*}} {size = array<i64: 1, 1, 16, 8>} : (tensor<16x8xf32>) -> tensor<1x1x16x8xf32>
// CHECK: nn.scaled_dot_product_attention {{.*}} -> tensor<1x1x16x8xf32>
// CHECK: nn.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} {enable_gqa = true} : (tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32>
// CHECK-NOT: nn.view
func.func @small_ranks(%a: tensor<2x16x8xf32>, %b: tensor<16x8xf32>, %q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>)
    -> (tensor<2x16x8xf32>, tensor<16x8xf32>, tensor<1x4x16x8xf32>) {
  %0 = nn.scaled_dot_product_attention %a, %a, %a : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %1 = nn.scaled_dot_product_attention %b, %b, %b : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %2 = nn.scaled_dot_product_attention %q, %k, %k {enable_gqa = true}
      : (tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %0, %1, %2 : tensor<2x16x8xf32>, tensor<16x8xf32>, tensor<1x4x16x8xf32>
}

// -----

// VOLO's maximum over tokens: the tokens moved last, (1, kept, reduced, 1),
// a (reduced, 1) window; over the last dimensions no permutation.
// CHECK-LABEL: func.func @maxima
// CHECK-SAME: (%[[X:.*]]: tensor<1x5x6xf32>)
// CHECK: %[[P:.*]] = nn.permute %[[X]] {dims = array<i64: 0, 2, 1>} : (tensor<1x5x6xf32>) -> tensor<1x6x5xf32>
// CHECK: %[[V:.*]] = nn.view %[[P]] {size = array<i64: 1, 6, 5, 1>}
// CHECK: %[[M:.*]], %{{.*}} = nn.max_pool2d %[[V]] {kernel_size = array<i64: 5, 1>, stride = array<i64: 5, 1>} : (tensor<1x6x5x1xf32>) -> (tensor<1x6x1x1xf32>, tensor<1x6x1x1xi64>)
// CHECK: %[[A:.*]] = nn.view %[[M]] {size = array<i64: 1, 6>} : (tensor<1x6x1x1xf32>) -> tensor<1x6xf32>
// CHECK-NOT: nn.permute
// CHECK: %[[W:.*]] = nn.view %[[X]] {size = array<i64: 1, 1, 30, 1>}
// CHECK: %[[N:.*]], %{{.*}} = nn.max_pool2d %[[W]] {kernel_size = array<i64: 30, 1>, stride = array<i64: 30, 1>}
// CHECK: %[[B:.*]] = nn.view %[[N]] {size = array<i64: 1, 1, 1>} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1xf32>
// CHECK: nn.view %[[X]] {size = array<i64: 1, 5, 6, 1>}
// CHECK: nn.max_pool2d %{{.*}} {kernel_size = array<i64: 6, 1>, stride = array<i64: 6, 1>}
// CHECK: return %[[A]], %[[B]]
// CHECK-NOT: nn.amax
func.func @maxima(%x: tensor<1x5x6xf32>) -> (tensor<1x6xf32>, tensor<1x1x1xf32>, tensor<1x5xf32>) {
  %0 = nn.amax %x {dim = array<i64: 1>} : (tensor<1x5x6xf32>) -> tensor<1x6xf32>
  %1 = nn.amax %x {dim = array<i64: 1, 2>, keepdim = true} : (tensor<1x5x6xf32>) -> tensor<1x1x1xf32>
  %2 = nn.amax %x {dim = array<i64: -1>} : (tensor<1x5x6xf32>) -> tensor<1x5xf32>
  return %0, %1, %2 : tensor<1x6xf32>, tensor<1x1x1xf32>, tensor<1x5xf32>
}

// -----

// A scalar is its own maximum, over dimension 0 or -1 (aten's reading of a
// 0-d tensor's dims) or all.
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[S:.*]]: tensor<f32>)
// CHECK-NOT: nn.
// CHECK: return %[[S]], %[[S]], %[[S]]
func.func @scalar(%s: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %0 = nn.amax %s {dim = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %1 = nn.amax %s {dim = array<i64: -1>} : (tensor<f32>) -> tensor<f32>
  %2 = nn.amax %s : (tensor<f32>) -> tensor<f32>
  return %0, %1, %2 : tensor<f32>, tensor<f32>, tensor<f32>
}
