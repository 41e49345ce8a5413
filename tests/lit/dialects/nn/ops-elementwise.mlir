// Round-trip of the element-wise operators: the binary add/sub/mul/div
// (tensor `other` with numpy broadcasting, or a `scalar(...)` attribute),
// the unary activations and softmax.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// Binary, tensor `other`
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_same_shape
// CHECK: %[[A:.*]] = nn.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = nn.sub %[[A]], %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[M:.*]] = nn.mul %[[S]], %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[D:.*]] = nn.div %[[M]], %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[D]]
func.func @binary_same_shape(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.sub %0, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.mul %1, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.div %2, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// Numpy broadcasting: ranks align on the right and size-1 dims stretch.
// CHECK-LABEL: func.func @binary_broadcast
// CHECK: nn.add %arg0, %arg1 : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: nn.mul %arg1, %arg0 : (tensor<3x1xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// CHECK: nn.sub %arg0, %arg2 : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
// CHECK: nn.div %arg2, %arg0 : (tensor<f32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
func.func @binary_broadcast(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %s: tensor<f32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>) {
  %0 = nn.add %a, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = nn.mul %b, %a : (tensor<3x1xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %2 = nn.sub %a, %s : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xf32>
  %3 = nn.div %s, %a : (tensor<f32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  return %0, %1, %2, %3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>
}

// Dynamic sizes: ? against 1 stays ?, ? against a static size takes it.
// CHECK-LABEL: func.func @binary_dynamic
// CHECK: nn.add %arg0, %arg1 : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
// CHECK: nn.add %arg0, %arg2 : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: nn.mul %arg1, %arg0 : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
func.func @binary_dynamic(%a: tensor<?x4xf32>, %b: tensor<1x4xf32>, %c: tensor<3x4xf32>)
    -> (tensor<?x4xf32>, tensor<3x4xf32>, tensor<?x4xf32>) {
  %0 = nn.add %a, %b : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %1 = nn.add %a, %c : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = nn.mul %b, %a : (tensor<1x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0, %1, %2 : tensor<?x4xf32>, tensor<3x4xf32>, tensor<?x4xf32>
}

// Integer tensors; an integer self with a floating-point other promotes to
// the floating-point type (aten type promotion).
// CHECK-LABEL: func.func @binary_element_types
// CHECK: nn.add %arg0, %arg0 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK: nn.mul %arg0, %arg1 : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: nn.mul %arg1, %arg0 : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
func.func @binary_element_types(%i: tensor<4xi64>, %f: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xf32>, tensor<4xf32>) {
  %0 = nn.add %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = nn.mul %i, %f : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.mul %f, %i : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xi64>, tensor<4xf32>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Binary, `scalar` attribute and alpha
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_scalar
// CHECK: %[[A:.*]] = nn.add %arg0 scalar(1.000000e+00 : f64) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = nn.sub %[[A]] scalar(5.000000e-01 : f64) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[M:.*]] = nn.mul %[[S]] scalar(2 : i64) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: nn.div %[[M]] scalar(8.000000e+00 : f64) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: nn.mul %arg1 scalar(-3 : i64) : (tensor<?x5xi32>) -> tensor<?x5xi32>
func.func @binary_scalar(%x: tensor<2x3xf32>, %i: tensor<?x5xi32>) -> (tensor<2x3xf32>, tensor<?x5xi32>) {
  %0 = nn.add %x scalar(1.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = nn.sub %0 scalar(0.5 : f64) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.mul %1 scalar(2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = nn.div %2 scalar(8.0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = nn.mul %i scalar(-3 : i64) : (tensor<?x5xi32>) -> tensor<?x5xi32>
  return %3, %4 : tensor<2x3xf32>, tensor<?x5xi32>
}

// alpha scales `other` (add/sub only); the default 1.0 is elided.
// CHECK-LABEL: func.func @binary_alpha
// CHECK: nn.add %arg0, %arg1 {alpha = 2.000000e+00 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: nn.sub %arg0, %arg1 {alpha = -5.000000e-01 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: nn.sub %arg0 scalar(3.000000e+00 : f64) {alpha = 2.000000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: nn.add %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @binary_alpha(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = nn.add %a, %b {alpha = 2.0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.sub %a, %b {alpha = -0.5} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = nn.sub %a scalar(3.0) {alpha = 2.0} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = nn.add %a, %b {alpha = 1.0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary
// CHECK: %[[R:.*]] = nn.relu %arg0 : tensor<2x?x8xf32>
// CHECK: %[[G:.*]] = nn.gelu %[[R]] : tensor<2x?x8xf32>
// CHECK: %[[GT:.*]] = nn.gelu %[[G]] {approximate = "tanh"} : tensor<2x?x8xf32>
// CHECK: %[[SI:.*]] = nn.silu %[[GT]] : tensor<2x?x8xf32>
// CHECK: %[[SG:.*]] = nn.sigmoid %[[SI]] : tensor<2x?x8xf32>
// CHECK: %[[T:.*]] = nn.tanh %[[SG]] : tensor<2x?x8xf32>
// CHECK: %[[N:.*]] = nn.neg %[[T]] : tensor<2x?x8xf32>
// CHECK: %[[RS:.*]] = nn.rsqrt %[[N]] : tensor<2x?x8xf32>
// CHECK: %[[E:.*]] = nn.exp %[[RS]] : tensor<2x?x8xf32>
// CHECK: %[[COS:.*]] = nn.cos %[[E]] : tensor<2x?x8xf32>
// CHECK: %[[SIN:.*]] = nn.sin %[[COS]] : tensor<2x?x8xf32>
// CHECK: %[[C:.*]] = nn.clone %[[SIN]] : tensor<2x?x8xf32>
// CHECK: return %[[C]]
func.func @unary(%x: tensor<2x?x8xf32>) -> tensor<2x?x8xf32> {
  %0 = nn.relu %x : tensor<2x?x8xf32>
  %1 = nn.gelu %0 {approximate = "none"} : tensor<2x?x8xf32>
  %2 = nn.gelu %1 {approximate = "tanh"} : tensor<2x?x8xf32>
  %3 = nn.silu %2 : tensor<2x?x8xf32>
  %4 = nn.sigmoid %3 : tensor<2x?x8xf32>
  %5 = nn.tanh %4 : tensor<2x?x8xf32>
  %6 = nn.neg %5 : tensor<2x?x8xf32>
  %7 = nn.rsqrt %6 : tensor<2x?x8xf32>
  %e = nn.exp %7 : tensor<2x?x8xf32>
  %cos = nn.cos %e : tensor<2x?x8xf32>
  %sin = nn.sin %cos : tensor<2x?x8xf32>
  %8 = nn.clone %sin : tensor<2x?x8xf32>
  return %8 : tensor<2x?x8xf32>
}

// Ops other than gelu accept any element type; 0-d tensors are fine.
// CHECK-LABEL: func.func @unary_element_types
// CHECK: nn.relu %arg0 : tensor<4xi32>
// CHECK: nn.neg %arg0 : tensor<4xi32>
// CHECK: nn.clone %arg1 : tensor<i1>
// CHECK: nn.gelu %arg2 {approximate = "tanh"} : tensor<bf16>
func.func @unary_element_types(%i: tensor<4xi32>, %b: tensor<i1>, %h: tensor<bf16>) -> (tensor<4xi32>, tensor<4xi32>, tensor<i1>, tensor<bf16>) {
  %0 = nn.relu %i : tensor<4xi32>
  %1 = nn.neg %i : tensor<4xi32>
  %2 = nn.clone %b : tensor<i1>
  %3 = nn.gelu %h {approximate = "tanh"} : tensor<bf16>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<i1>, tensor<bf16>
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

// I64Attr prints with its type; half_to_float's default (false) is elided.
// CHECK-LABEL: func.func @softmax
// CHECK: nn.softmax %arg0 {dim = -1 : i64} : tensor<2x8x16x16xf32>
// CHECK: nn.softmax %arg0 {dim = 3 : i64} : tensor<2x8x16x16xf32>
// CHECK: nn.softmax %arg1 {dim = 1 : i64, half_to_float = true} : tensor<4x?xf16>
// CHECK: nn.softmax %arg2 {dim = 0 : i64} : tensor<f32>
func.func @softmax(%x: tensor<2x8x16x16xf32>, %h: tensor<4x?xf16>, %s: tensor<f32>) -> (tensor<2x8x16x16xf32>, tensor<2x8x16x16xf32>, tensor<4x?xf16>, tensor<f32>) {
  %0 = nn.softmax %x {dim = -1} : tensor<2x8x16x16xf32>
  %1 = nn.softmax %x {dim = 3, half_to_float = false} : tensor<2x8x16x16xf32>
  %2 = nn.softmax %h {dim = 1 : i64, half_to_float = true} : tensor<4x?xf16>
  // A 0-d tensor takes dim 0 or -1, as in aten.
  %3 = nn.softmax %s {dim = 0} : tensor<f32>
  return %0, %1, %2, %3 : tensor<2x8x16x16xf32>, tensor<2x8x16x16xf32>, tensor<4x?xf16>, tensor<f32>
}
