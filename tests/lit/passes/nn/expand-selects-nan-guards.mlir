// raptor-expand-selects, NaN guards: the guard ONNX exporters write after
// a decoder's softmax (`Where(IsNaN(p), 0, p)`, nan_to_num replacing NaN
// only) is its input when the softmax is of attention scores (a matrix
// product of run-time values, scaled by constants) plus a constant mask
// with a finite value in every row along the softmax's dimension (a
// causal triangle of 0 and -inf): for finite inputs no row is all -inf,
// so the softmax is NaN nowhere. Otherwise the guard stays.
// RUN: %raptor-opt %s --raptor-expand-selects --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @causal
// CHECK: %[[P:.*]] = nn.softmax
// CHECK-NOT: nn.nan_to_num
// CHECK: return %[[P]]
func.func @causal(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32> {
  %p = nn.matmul %q, %k : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %s = nn.mul %p scalar(5.000000e-01 : f64) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %mask = nn.constant dense<[[[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]]]> : tensor<1x1x3x3xf32>
  %0 = nn.add %s, %mask : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = nn.softmax %0 {dim = -1 : i64} : tensor<1x2x3x3xf32>
  %2 = nn.nan_to_num %1 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<1x2x3x3xf32>
  return %2 : tensor<1x2x3x3xf32>
}

// -----

// Kept: a row all -inf (the softmax of the last row is NaN), a mask whose
// rows are finite over the other dimension (its middle column is all
// -inf), a mask with +inf (inf - inf), a guard that also replaces
// infinities (aten's defaults), a mask added to a known tensor, and to a
// run-time tensor that is not scores (it may hold -inf).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: nn.nan_to_num
func.func @kept(%q: tensor<1x3x2xf32>, %k: tensor<1x2x3xf32>, %x: tensor<1x3x3xf32>) -> (tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>) {
  %s = nn.matmul %q, %k : (tensor<1x3x2xf32>, tensor<1x2x3xf32>) -> tensor<1x3x3xf32>
  %masked = nn.constant dense<[[[0.0, 0.0, 0xFF800000], [0.0, 0xFF800000, 0xFF800000], [0xFF800000, 0xFF800000, 0xFF800000]]]> : tensor<1x3x3xf32>
  %0 = nn.add %s, %masked : (tensor<1x3x3xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %1 = nn.softmax %0 {dim = 2 : i64} : tensor<1x3x3xf32>
  %2 = nn.nan_to_num %1 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<1x3x3xf32>
  %causal = nn.constant dense<[[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]]> : tensor<1x3x3xf32>
  %3 = nn.add %s, %causal : (tensor<1x3x3xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %column = nn.constant dense<[[[0.0, 0xFF800000, 0.0], [0.0, 0xFF800000, 0.0], [0.0, 0xFF800000, 0.0]]]> : tensor<1x3x3xf32>
  %c = nn.add %s, %column : (tensor<1x3x3xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %4 = nn.softmax %c {dim = 1 : i64} : tensor<1x3x3xf32>
  %5 = nn.nan_to_num %4 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<1x3x3xf32>
  %plus = nn.constant dense<[[[0.0, 0x7F800000, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]> : tensor<1x3x3xf32>
  %6 = nn.add %s, %plus : (tensor<1x3x3xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %7 = nn.softmax %6 {dim = 2 : i64} : tensor<1x3x3xf32>
  %8 = nn.nan_to_num %7 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<1x3x3xf32>
  %9 = nn.softmax %3 {dim = 2 : i64} : tensor<1x3x3xf32>
  %10 = nn.nan_to_num %9 : tensor<1x3x3xf32>
  %ones = nn.constant dense<1.0> : tensor<1x3x3xf32>
  %11 = nn.add %ones, %causal : (tensor<1x3x3xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %12 = nn.softmax %11 {dim = 2 : i64} : tensor<1x3x3xf32>
  %13 = nn.nan_to_num %12 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<1x3x3xf32>
  %14 = nn.add %x, %causal : (tensor<1x3x3xf32>, tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  %15 = nn.softmax %14 {dim = 2 : i64} : tensor<1x3x3xf32>
  %16 = nn.nan_to_num %15 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<1x3x3xf32>
  return %2, %5, %8, %10, %13, %16 : tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>
}
