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
