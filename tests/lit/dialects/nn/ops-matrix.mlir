// Round-trip of the matrix operators: convolution, linear, matmul and
// scaled_dot_product_attention. Every declared result type below is checked
// against shape inference by the verifier; the checks pin the printed form.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// convolution
//===----------------------------------------------------------------------===//

// (32 + 2*1 - 1*(3-1) - 1) / 2 + 1 = 16.
// CHECK-LABEL: func.func @conv2d_bias_stride
// CHECK: nn.convolution %arg0, %arg1, %arg2 {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
func.func @conv2d_bias_stride(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %0 = nn.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

// One-element lists apply to every spatial dimension; defaults are elided.
// CHECK-LABEL: func.func @conv2d_one_element_lists
// CHECK: nn.convolution %arg0, %arg1 {dilation = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
func.func @conv2d_one_element_lists(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = false, groups = 1}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// Per-dimension stride/padding: H = (5 - 3)/1 + 1 = 3, W = (6 + 2 - 3)/2 + 1 = 3.
// CHECK-LABEL: func.func @conv2d_asymmetric
// CHECK: nn.convolution %arg0, %arg1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 1>, stride = array<i64: 1, 2>} : (tensor<1x1x5x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
func.func @conv2d_asymmetric(%x: tensor<1x1x5x6xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 2>, padding = array<i64: 0, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x1x5x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// Dilation 2: effective kernel 5, (8 - 5)/1 + 1 = 4.
// CHECK-LABEL: func.func @conv2d_dilated
// CHECK: nn.convolution %arg0, %arg1 {dilation = array<i64: 2>, padding = array<i64: 0>, stride = array<i64: 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
func.func @conv2d_dilated(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 2>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// Grouped: weight is (O, C/groups, k, k).
// CHECK-LABEL: func.func @conv2d_groups
// CHECK: nn.convolution %arg0, %arg1 {dilation = array<i64: 1>, groups = 2 : i64, padding = array<i64: 0>, stride = array<i64: 1>} : (tensor<1x4x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
// CHECK: nn.convolution %arg2, %arg3 {dilation = array<i64: 1>, groups = 8 : i64, padding = array<i64: 1>, stride = array<i64: 1>} : (tensor<1x8x10x10xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32>
func.func @conv2d_groups(%x: tensor<1x4x6x6xf32>, %w: tensor<6x2x3x3xf32>,
                         %dx: tensor<1x8x10x10xf32>, %dw: tensor<8x1x3x3xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x8x10x10xf32>) {
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 2}
      : (tensor<1x4x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
  // Depthwise.
  %1 = nn.convolution %dx, %dw {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 8}
      : (tensor<1x8x10x10xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32>
  return %0, %1 : tensor<1x6x4x4xf32>, tensor<1x8x10x10xf32>
}

// Transposed: weight is (C, O/groups, k, k) and
// out = (in - 1)*stride - 2*padding + dilation*(k - 1) + output_padding + 1.
// CHECK-LABEL: func.func @conv2d_transposed
// CHECK: nn.convolution %arg0, %arg1 {dilation = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = true} : (tensor<1x4x8x8xf32>, tensor<4x2x4x4xf32>) -> tensor<1x2x16x16xf32>
// CHECK: nn.convolution %arg0, %arg1, %arg2 {dilation = array<i64: 1>, output_padding = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = true} : (tensor<1x4x8x8xf32>, tensor<4x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x17x17xf32>
// CHECK: nn.convolution %arg3, %arg4 {dilation = array<i64: 1>, groups = 2 : i64, padding = array<i64: 0>, stride = array<i64: 1>, transposed = true} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
func.func @conv2d_transposed(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x4x4xf32>, %b: tensor<2xf32>,
                             %gx: tensor<1x4x5x5xf32>, %gw: tensor<4x3x3x3xf32>)
    -> (tensor<1x2x16x16xf32>, tensor<1x2x17x17xf32>, tensor<1x6x7x7xf32>) {
  %0 = nn.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = true}
      : (tensor<1x4x8x8xf32>, tensor<4x2x4x4xf32>) -> tensor<1x2x16x16xf32>
  %1 = nn.convolution %x, %w, %b {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 1>}
      : (tensor<1x4x8x8xf32>, tensor<4x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x17x17xf32>
  // Grouped transposed: out channels = weight[1] * groups.
  %2 = nn.convolution %gx, %gw {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, groups = 2}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
  return %0, %1, %2 : tensor<1x2x16x16xf32>, tensor<1x2x17x17xf32>, tensor<1x6x7x7xf32>
}

// 1-d and 3-d convolutions (N = rank - 2 spatial dimensions).
// CHECK-LABEL: func.func @conv1d_conv3d
// CHECK: nn.convolution %arg0, %arg1 {{.*}} : (tensor<2x3x10xf32>, tensor<5x3x3xf32>) -> tensor<2x5x8xf32>
// CHECK: nn.convolution %arg2, %arg3 {{.*}} : (tensor<1x2x4x6x6xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x3x4x6x6xf32>
func.func @conv1d_conv3d(%x1: tensor<2x3x10xf32>, %w1: tensor<5x3x3xf32>,
                         %x3: tensor<1x2x4x6x6xf32>, %w3: tensor<3x2x3x3x3xf32>) -> (tensor<2x5x8xf32>, tensor<1x3x4x6x6xf32>) {
  %0 = nn.convolution %x1, %w1 {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<2x3x10xf32>, tensor<5x3x3xf32>) -> tensor<2x5x8xf32>
  %1 = nn.convolution %x3, %w3 {stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>}
      : (tensor<1x2x4x6x6xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x3x4x6x6xf32>
  return %0, %1 : tensor<2x5x8xf32>, tensor<1x3x4x6x6xf32>
}

// Dynamic sizes propagate; a dynamic result is compatible with a static one.
// CHECK-LABEL: func.func @conv2d_dynamic
// CHECK: nn.convolution %arg0, %arg1 {{.*}} : (tensor<?x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x8xf32>
// CHECK: nn.convolution %arg0, %arg1 {{.*}} : (tensor<?x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
func.func @conv2d_dynamic(%x: tensor<?x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x4x?x8xf32>, tensor<?x?x?x?xf32>) {
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>}
      : (tensor<?x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x8xf32>
  %1 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>}
      : (tensor<?x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  return %0, %1 : tensor<?x4x?x8xf32>, tensor<?x?x?x?xf32>
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @linear
// CHECK: nn.linear %arg0, %arg1, %arg2 : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
// CHECK: nn.linear %arg0, %arg1 : (tensor<2x3x8xf32>, tensor<16x8xf32>) -> tensor<2x3x16xf32>
func.func @linear(%x: tensor<2x3x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x16xf32>) {
  %0 = nn.linear %x, %w, %b : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
  %1 = nn.linear %x, %w : (tensor<2x3x8xf32>, tensor<16x8xf32>) -> tensor<2x3x16xf32>
  return %0, %1 : tensor<2x3x16xf32>, tensor<2x3x16xf32>
}

// A 1-d input gives a 1-d result; dynamic leading dims and bf16 pass through.
// CHECK-LABEL: func.func @linear_shapes
// CHECK: nn.linear %arg0, %arg1 : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4xf32>
// CHECK: nn.linear %arg2, %arg3, %arg4 : (tensor<?x?x8xbf16>, tensor<4x8xbf16>, tensor<4xbf16>) -> tensor<?x?x4xbf16>
func.func @linear_shapes(%v: tensor<8xf32>, %w: tensor<4x8xf32>,
                         %x: tensor<?x?x8xbf16>, %wb: tensor<4x8xbf16>, %b: tensor<4xbf16>) -> (tensor<4xf32>, tensor<?x?x4xbf16>) {
  %0 = nn.linear %v, %w : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4xf32>
  %1 = nn.linear %x, %wb, %b : (tensor<?x?x8xbf16>, tensor<4x8xbf16>, tensor<4xbf16>) -> tensor<?x?x4xbf16>
  return %0, %1 : tensor<4xf32>, tensor<?x?x4xbf16>
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_2d
// CHECK: nn.matmul %arg0, %arg1 : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// torch.matmul promotes 1-d operands and drops the added dimension.
// CHECK-LABEL: func.func @matmul_1d
// CHECK: nn.matmul %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
// CHECK: nn.matmul %arg0, %arg1 : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
// CHECK: nn.matmul %arg2, %arg0 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
// CHECK: nn.matmul %arg0, %arg3 : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
// CHECK: nn.matmul %arg3, %arg4 : (tensor<2x4x5xf32>, tensor<5xf32>) -> tensor<2x4xf32>
func.func @matmul_1d(%v: tensor<4xf32>, %m: tensor<4x5xf32>, %n: tensor<3x4xf32>,
                     %b: tensor<2x4x5xf32>, %u: tensor<5xf32>)
    -> (tensor<f32>, tensor<5xf32>, tensor<3xf32>, tensor<2x5xf32>, tensor<2x4xf32>) {
  %0 = nn.matmul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %1 = nn.matmul %v, %m : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  %2 = nn.matmul %n, %v : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  %3 = nn.matmul %v, %b : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
  %4 = nn.matmul %b, %u : (tensor<2x4x5xf32>, tensor<5xf32>) -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4 : tensor<f32>, tensor<5xf32>, tensor<3xf32>, tensor<2x5xf32>, tensor<2x4xf32>
}

// Batch dimensions broadcast (numpy rules) and may differ in rank.
// CHECK-LABEL: func.func @matmul_batched
// CHECK: nn.matmul %arg0, %arg1 : (tensor<8x3x4xf32>, tensor<8x4x5xf32>) -> tensor<8x3x5xf32>
// CHECK: nn.matmul %arg2, %arg3 : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// CHECK: nn.matmul %arg2, %arg4 : (tensor<2x1x3x4xf32>, tensor<4x6xf32>) -> tensor<2x1x3x6xf32>
// CHECK: nn.matmul %arg5, %arg6 : (tensor<?x3x4xf32>, tensor<4x?xf32>) -> tensor<?x3x?xf32>
func.func @matmul_batched(%a: tensor<8x3x4xf32>, %b: tensor<8x4x5xf32>,
                          %c: tensor<2x1x3x4xf32>, %d: tensor<5x4x6xf32>, %e: tensor<4x6xf32>,
                          %f: tensor<?x3x4xf32>, %g: tensor<4x?xf32>)
    -> (tensor<8x3x5xf32>, tensor<2x5x3x6xf32>, tensor<2x1x3x6xf32>, tensor<?x3x?xf32>) {
  %0 = nn.matmul %a, %b : (tensor<8x3x4xf32>, tensor<8x4x5xf32>) -> tensor<8x3x5xf32>
  %1 = nn.matmul %c, %d : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  %2 = nn.matmul %c, %e : (tensor<2x1x3x4xf32>, tensor<4x6xf32>) -> tensor<2x1x3x6xf32>
  %3 = nn.matmul %f, %g : (tensor<?x3x4xf32>, tensor<4x?xf32>) -> tensor<?x3x?xf32>
  return %0, %1, %2, %3 : tensor<8x3x5xf32>, tensor<2x5x3x6xf32>, tensor<2x1x3x6xf32>, tensor<?x3x?xf32>
}

//===----------------------------------------------------------------------===//
// scaled_dot_product_attention
//===----------------------------------------------------------------------===//

// Result is (..., L, Ev): L from the query, Ev from the value.
// CHECK-LABEL: func.func @sdpa
// CHECK: nn.scaled_dot_product_attention %arg0, %arg1, %arg2 : (tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x32xf32>) -> tensor<1x8x16x32xf32>
func.func @sdpa(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x32x64xf32>, %v: tensor<1x8x32x32xf32>) -> tensor<1x8x16x32xf32> {
  %0 = nn.scaled_dot_product_attention %q, %k, %v
      : (tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x32xf32>) -> tensor<1x8x16x32xf32>
  return %0 : tensor<1x8x16x32xf32>
}

// CHECK-LABEL: func.func @sdpa_mask
// CHECK: nn.scaled_dot_product_attention %arg0, %arg1, %arg2, %arg3 : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x1x16x16xf32>) -> tensor<2x4x16x32xf32>
// CHECK: nn.scaled_dot_product_attention %arg0, %arg1, %arg2, %arg4 {dropout_p = 1.000000e-01 : f64} : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<16x16xi1>) -> tensor<2x4x16x32xf32>
func.func @sdpa_mask(%q: tensor<2x4x16x32xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x16x32xf32>,
                     %m: tensor<2x1x16x16xf32>, %bm: tensor<16x16xi1>) -> (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>) {
  %0 = nn.scaled_dot_product_attention %q, %k, %v, %m
      : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x1x16x16xf32>) -> tensor<2x4x16x32xf32>
  // A boolean mask; dropout_p is kept.
  %1 = nn.scaled_dot_product_attention %q, %k, %v, %bm {dropout_p = 0.1}
      : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<16x16xi1>) -> tensor<2x4x16x32xf32>
  return %0, %1 : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>
}

// CHECK-LABEL: func.func @sdpa_causal_scale
// CHECK: nn.scaled_dot_product_attention %arg0, %arg1, %arg2 {is_causal = true, scale = 1.250000e-01 : f64} : (tensor<1x8x16x64xf16>, tensor<1x8x16x64xf16>, tensor<1x8x16x64xf16>) -> tensor<1x8x16x64xf16>
func.func @sdpa_causal_scale(%q: tensor<1x8x16x64xf16>, %k: tensor<1x8x16x64xf16>, %v: tensor<1x8x16x64xf16>) -> tensor<1x8x16x64xf16> {
  %0 = nn.scaled_dot_product_attention %q, %k, %v {is_causal = true, scale = 0.125, dropout_p = 0.0, enable_gqa = false}
      : (tensor<1x8x16x64xf16>, tensor<1x8x16x64xf16>, tensor<1x8x16x64xf16>) -> tensor<1x8x16x64xf16>
  return %0 : tensor<1x8x16x64xf16>
}

// Grouped-query attention: 8 key/value heads serve 32 query heads.
// CHECK-LABEL: func.func @sdpa_gqa
// CHECK: nn.scaled_dot_product_attention %arg0, %arg1, %arg2 {enable_gqa = true, is_causal = true} : (tensor<1x32x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32>
func.func @sdpa_gqa(%q: tensor<1x32x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32> {
  %0 = nn.scaled_dot_product_attention %q, %k, %v {enable_gqa = true, is_causal = true}
      : (tensor<1x32x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32>
  return %0 : tensor<1x32x16x64xf32>
}

// Rank-2 (no batch, no heads) and dynamic sequence lengths.
// CHECK-LABEL: func.func @sdpa_shapes
// CHECK: nn.scaled_dot_product_attention %arg0, %arg1, %arg2 : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32x48xf32>) -> tensor<16x48xf32>
// CHECK: nn.scaled_dot_product_attention %arg3, %arg4, %arg4 : (tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>) -> tensor<1x4x?x64xf32>
func.func @sdpa_shapes(%q: tensor<16x64xf32>, %k: tensor<32x64xf32>, %v: tensor<32x48xf32>,
                       %dq: tensor<1x4x?x64xf32>, %dk: tensor<1x4x?x64xf32>) -> (tensor<16x48xf32>, tensor<1x4x?x64xf32>) {
  %0 = nn.scaled_dot_product_attention %q, %k, %v : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32x48xf32>) -> tensor<16x48xf32>
  %1 = nn.scaled_dot_product_attention %dq, %dk, %dk : (tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>) -> tensor<1x4x?x64xf32>
  return %0, %1 : tensor<16x48xf32>, tensor<1x4x?x64xf32>
}
