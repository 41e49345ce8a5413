// raptor-convert-weight-products: matrix products by a weight (computed at
// compile time) become linear layers of the transposed weight; products of
// two activations stay.
// RUN: %raptor-opt %s --raptor-convert-weight-products | FileCheck %s

// CHECK-LABEL: func.func @einsum
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x8xf32> {nn.input = "x"}, %[[W:[^:]*]]: tensor<8x6xf32>
// CHECK: %[[V:.*]] = nn.view %[[W]] {size = array<i64: 1, 8, 6>}
// CHECK: %[[F:.*]] = nn.view %[[V]] {size = array<i64: 8, 6>}
// CHECK: %[[T:.*]] = nn.permute %[[F]] {dims = array<i64: 1, 0>} : (tensor<8x6xf32>) -> tensor<6x8xf32>
// CHECK: %[[Y:.*]] = nn.linear %[[X]], %[[T]] : (tensor<1x2x8xf32>, tensor<6x8xf32>) -> tensor<1x2x6xf32>
// CHECK-NOT: nn.matmul
// CHECK: return %[[Y]]
func.func @einsum(%x: tensor<1x2x8xf32> {nn.input = "x"}, %w: tensor<8x6xf32> {nn.param = "w"}) -> tensor<1x2x6xf32> {
  %0 = nn.view %w {size = array<i64: 1, 8, 6>} : (tensor<8x6xf32>) -> tensor<1x8x6xf32>
  %1 = nn.matmul %x, %0 : (tensor<1x2x8xf32>, tensor<1x8x6xf32>) -> tensor<1x2x6xf32>
  return %1 : tensor<1x2x6xf32>
}

// CHECK-LABEL: func.func @activations
// CHECK: nn.matmul
// CHECK-NOT: nn.linear
func.func @activations(%x: tensor<2x8xf32> {nn.input = "x"}, %y: tensor<8x6xf32> {nn.input = "y"}) -> tensor<2x6xf32> {
  %0 = nn.matmul %x, %y : (tensor<2x8xf32>, tensor<8x6xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// The weight on the left (Perceiver's latents against the inputs' keys):
// W @ R = (R^T @ W^T)^T, the layer of R^T by (W^T)^T = W (computed by the
// compiler), transposed back.
// CHECK-LABEL: func.func @weight_first
// CHECK-SAME: (%[[R:[^:]*]]: tensor<1x8x5xf32> {nn.input = "r"}, %[[W:[^:]*]]: tensor<3x8xf32>
// CHECK: %[[V:.*]] = nn.view %[[W]] {size = array<i64: 1, 3, 8>}
// CHECK: %[[RT:.*]] = nn.permute %[[R]] {dims = array<i64: 0, 2, 1>} : (tensor<1x8x5xf32>) -> tensor<1x5x8xf32>
// CHECK: %[[WT:.*]] = nn.permute %[[V]] {dims = array<i64: 0, 2, 1>} : (tensor<1x3x8xf32>) -> tensor<1x8x3xf32>
// CHECK: %[[F:.*]] = nn.view %[[WT]] {size = array<i64: 8, 3>}
// CHECK: %[[T:.*]] = nn.permute %[[F]] {dims = array<i64: 1, 0>} : (tensor<8x3xf32>) -> tensor<3x8xf32>
// CHECK: %[[L:.*]] = nn.linear %[[RT]], %[[T]] : (tensor<1x5x8xf32>, tensor<3x8xf32>) -> tensor<1x5x3xf32>
// CHECK: %[[Y:.*]] = nn.permute %[[L]] {dims = array<i64: 0, 2, 1>} : (tensor<1x5x3xf32>) -> tensor<1x3x5xf32>
// CHECK-NOT: nn.matmul
// CHECK: return %[[Y]]
func.func @weight_first(%r: tensor<1x8x5xf32> {nn.input = "r"}, %w: tensor<3x8xf32> {nn.param = "w"}) -> tensor<1x3x5xf32> {
  %0 = nn.view %w {size = array<i64: 1, 3, 8>} : (tensor<3x8xf32>) -> tensor<1x3x8xf32>
  %1 = nn.matmul %0, %r : (tensor<1x3x8xf32>, tensor<1x8x5xf32>) -> tensor<1x3x5xf32>
  return %1 : tensor<1x3x5xf32>
}

// A batch of weights (one matrix per head): a product per head, each a
// layer, concatenated along the batch.
// CHECK-LABEL: func.func @heads
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4x8xf32> {nn.input = "x"}, %[[W:[^:]*]]: tensor<2x8x6xf32>
// CHECK:     %[[X0:.*]] = nn.slice %[[X]] {end = 1 : i64, start = 0 : i64}
// CHECK:     %[[W0:.*]] = nn.slice %[[W]] {end = 1 : i64, start = 0 : i64}
// CHECK:     %[[F0:.*]] = nn.view %[[W0]] {size = array<i64: 8, 6>}
// CHECK:     %[[T0:.*]] = nn.permute %[[F0]] {dims = array<i64: 1, 0>}
// CHECK:     %[[L0:.*]] = nn.linear %[[X0]], %[[T0]] : (tensor<1x4x8xf32>, tensor<6x8xf32>) -> tensor<1x4x6xf32>
// CHECK:     %[[X1:.*]] = nn.slice %[[X]] {end = 2 : i64, start = 1 : i64}
// CHECK:     %[[W1:.*]] = nn.slice %[[W]] {end = 2 : i64, start = 1 : i64}
// CHECK:     %[[F1:.*]] = nn.view %[[W1]] {size = array<i64: 8, 6>}
// CHECK:     %[[T1:.*]] = nn.permute %[[F1]] {dims = array<i64: 1, 0>}
// CHECK:     %[[L1:.*]] = nn.linear %[[X1]], %[[T1]] : (tensor<1x4x8xf32>, tensor<6x8xf32>) -> tensor<1x4x6xf32>
// CHECK:     %[[Y:.*]] = nn.cat %[[L0]], %[[L1]] : (tensor<1x4x6xf32>, tensor<1x4x6xf32>) -> tensor<2x4x6xf32>
// CHECK-NOT: nn.matmul
// CHECK:     return %[[Y]]
func.func @heads(%x: tensor<2x4x8xf32> {nn.input = "x"}, %w: tensor<2x8x6xf32> {nn.param = "w"}) -> tensor<2x4x6xf32> {
  %0 = nn.matmul %x, %w : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// Activations on both sides of a batch stay one product.
// CHECK-LABEL: func.func @batched_activations
// CHECK: nn.matmul {{.*}} -> tensor<2x4x6xf32>
// CHECK-NOT: nn.linear
func.func @batched_activations(%x: tensor<2x4x8xf32> {nn.input = "x"}, %y: tensor<2x8x6xf32> {nn.input = "y"}) -> tensor<2x4x6xf32> {
  %0 = nn.matmul %x, %y : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// ONNX keeps the batch dimensions apart, (1, heads, ...): flattened to one
// batch, a layer per entry (here the weight on the left), the result viewed
// back.
// CHECK-LABEL: func.func @heads_apart
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x8x5xf32> {nn.input = "x"}, %[[W:[^:]*]]: tensor<1x2x3x8xf32>
// CHECK:     %[[W3:.*]] = nn.view %[[W]] {size = array<i64: 2, 3, 8>}
// CHECK:     %[[X3:.*]] = nn.view %[[X]] {size = array<i64: 2, 8, 5>}
// CHECK:     nn.slice %[[W3]] {end = 1 : i64, start = 0 : i64}
// CHECK:     %[[L0:.*]] = nn.linear {{.*}} -> tensor<1x5x3xf32>
// CHECK:     %[[P0:.*]] = nn.permute %[[L0]] {dims = array<i64: 0, 2, 1>}
// CHECK:     %[[L1:.*]] = nn.linear {{.*}} -> tensor<1x5x3xf32>
// CHECK:     %[[P1:.*]] = nn.permute %[[L1]] {dims = array<i64: 0, 2, 1>}
// CHECK:     %[[C:.*]] = nn.cat %[[P0]], %[[P1]] : (tensor<1x3x5xf32>, tensor<1x3x5xf32>) -> tensor<2x3x5xf32>
// CHECK:     %[[Y:.*]] = nn.view %[[C]] {size = array<i64: 1, 2, 3, 5>}
// CHECK-NOT: nn.matmul
// CHECK:     return %[[Y]]
func.func @heads_apart(%x: tensor<1x2x8x5xf32> {nn.input = "x"}, %w: tensor<1x2x3x8xf32> {nn.param = "w"}) -> tensor<1x2x3x5xf32> {
  %0 = nn.matmul %w, %x : (tensor<1x2x3x8xf32>, tensor<1x2x8x5xf32>) -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// A batch of weights broadcast against one activation matrix is no layer:
// the product stays, and nothing tried on the way is left behind.
// CHECK-LABEL: func.func @broadcast_weights
// CHECK-NOT: nn.permute
// CHECK-NOT: nn.linear
// CHECK: nn.matmul {{.*}} -> tensor<2x3x5xf32>
// CHECK-NOT: nn.permute
// CHECK: return
func.func @broadcast_weights(%r: tensor<1x8x5xf32> {nn.input = "r"}, %w: tensor<2x3x8xf32> {nn.param = "w"}) -> tensor<2x3x5xf32> {
  %0 = nn.matmul %w, %r : (tensor<2x3x8xf32>, tensor<1x8x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
