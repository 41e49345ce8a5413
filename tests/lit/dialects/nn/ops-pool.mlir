// Round-trip of the reductions and pooling: mean, amax, max_pool2d and
// upsample_nearest2d. Declared result types are checked by shape inference.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// mean
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mean_dims
// CHECK: nn.mean %arg0 {dim = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: nn.mean %arg0 {dim = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK: nn.mean %arg0 {dim = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: nn.mean %arg0 {dim = array<i64: -1, -2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK: nn.mean %arg1 {dim = array<i64: 1>} : (tensor<?x3x?xf32>) -> tensor<?x?xf32>
func.func @mean_dims(%x: tensor<2x3x4xf32>, %d: tensor<?x3x?xf32>)
    -> (tensor<2x4xf32>, tensor<2x3x1xf32>, tensor<3xf32>, tensor<2x1x1xf32>, tensor<?x?xf32>) {
  %0 = nn.mean %x {dim = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = nn.mean %x {dim = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %2 = nn.mean %x {dim = array<i64: 0, 2>, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %3 = nn.mean %x {dim = array<i64: -1, -2>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %4 = nn.mean %d {dim = array<i64: 1>} : (tensor<?x3x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf32>, tensor<2x3x1xf32>, tensor<3xf32>, tensor<2x1x1xf32>, tensor<?x?xf32>
}

// amax shares mean's shape rule.
// CHECK-LABEL: func.func @amax_dims
// CHECK: nn.amax %arg0 {dim = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: nn.amax %arg0 {dim = array<i64: -1, 0>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
// CHECK: nn.amax %arg0 : (tensor<2x3x4xf32>) -> tensor<f32>
func.func @amax_dims(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<f32>) {
  %0 = nn.amax %x {dim = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = nn.amax %x {dim = array<i64: -1, 0>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %2 = nn.amax %x : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<f32>
}

// Without `dim` (or with an empty list) every dimension is reduced.
// CHECK-LABEL: func.func @mean_all
// CHECK: nn.mean %arg0 : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: nn.mean %arg0 {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK: nn.mean %arg0 {dim = array<i64>} : (tensor<2x3x4xf32>) -> tensor<f32>
func.func @mean_all(%x: tensor<2x3x4xf32>) -> (tensor<f32>, tensor<1x1x1xf32>, tensor<f32>) {
  %0 = nn.mean %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %1 = nn.mean %x {keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = nn.mean %x {dim = array<i64>} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<f32>, tensor<1x1x1xf32>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// max_pool2d
//===----------------------------------------------------------------------===//

// Two results: the pooled values and i64 indices. An absent stride means
// stride = kernel_size.
// CHECK-LABEL: func.func @max_pool2d
// CHECK: %[[OUT:[^ ,]+]], %[[IDX:[^ ,]+]] = nn.max_pool2d %arg0 {kernel_size = array<i64: 2, 2>} : (tensor<1x16x32x32xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xi64>)
// CHECK: return %[[OUT]], %[[IDX]] :
func.func @max_pool2d(%x: tensor<1x16x32x32xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xi64>) {
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>}
      : (tensor<1x16x32x32xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xi64>)
  return %0#0, %0#1 : tensor<1x16x16x16xf32>, tensor<1x16x16x16xi64>
}

// (32 + 2 - 3)/2 + 1 = 16; dilation 2 on 8: (8 - 5)/1 + 1 = 4; a one-element
// kernel list; a (C, H, W) input; defaults (padding 0, dilation 1, an empty
// stride) are elided.
// CHECK-LABEL: func.func @max_pool2d_attrs
// CHECK: nn.max_pool2d %arg0 {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x16x32x32xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xi64>)
// CHECK: nn.max_pool2d %arg1 {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
// CHECK: nn.max_pool2d %arg2 {kernel_size = array<i64: 2>} : (tensor<3x8x6xf32>) -> (tensor<3x4x3xf32>, tensor<3x4x3xi64>)
// CHECK: nn.max_pool2d %arg3 {kernel_size = array<i64: 2, 2>} : (tensor<?x4x?x8xf32>) -> (tensor<?x4x?x4xf32>, tensor<?x4x?x4xi64>)
func.func @max_pool2d_attrs(%x: tensor<1x16x32x32xf32>, %y: tensor<1x1x8x8xf32>, %z: tensor<3x8x6xf32>, %d: tensor<?x4x?x8xf32>) {
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x16x32x32xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xi64>)
  %1:2 = nn.max_pool2d %y {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, dilation = array<i64: 2, 2>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  %2:2 = nn.max_pool2d %z {kernel_size = array<i64: 2>, stride = array<i64>, padding = array<i64: 0, 0>}
      : (tensor<3x8x6xf32>) -> (tensor<3x4x3xf32>, tensor<3x4x3xi64>)
  %3:2 = nn.max_pool2d %d {kernel_size = array<i64: 2, 2>}
      : (tensor<?x4x?x8xf32>) -> (tensor<?x4x?x4xf32>, tensor<?x4x?x4xi64>)
  return
}

// ceil_mode rounds up: 5 -> 3 with kernel 2, stride 2 (floor gives 2). A
// window that would start in the right padding is dropped: 5 with kernel 2,
// stride 2, padding 1 gives 3 (not 4).
// CHECK-LABEL: func.func @max_pool2d_ceil_mode
// CHECK: nn.max_pool2d %arg0 {ceil_mode = true, kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
// CHECK: nn.max_pool2d %arg0 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK: nn.max_pool2d %arg0 {ceil_mode = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
func.func @max_pool2d_ceil_mode(%x: tensor<1x1x5x5xf32>) {
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, ceil_mode = true}
      : (tensor<1x1x5x5xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
  %1:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, ceil_mode = false}
      : (tensor<1x1x5x5xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %2:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<1x1x5x5xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
  return
}

//===----------------------------------------------------------------------===//
// upsample_nearest2d
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @upsample_nearest2d
// CHECK: nn.upsample_nearest2d %arg0 {output_size = array<i64: 16, 12>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x12xf32>
// CHECK: nn.upsample_nearest2d %arg0 {scale_factors = array<f64: 2.000000e+00, 2.000000e+00>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
// CHECK: nn.upsample_nearest2d %arg1 {scale_factors = array<f64: 1.500000e+00, 3.000000e+00>} : (tensor<2x4x5x5xi8>) -> tensor<2x4x7x15xi8>
// CHECK: nn.upsample_nearest2d %arg2 {scale_factors = array<f64: 2.000000e+00, 2.000000e+00>} : (tensor<?x3x?x8xf32>) -> tensor<?x3x?x16xf32>
func.func @upsample_nearest2d(%x: tensor<1x3x8x8xf32>, %i: tensor<2x4x5x5xi8>, %d: tensor<?x3x?x8xf32>)
    -> (tensor<1x3x16x12xf32>, tensor<1x3x16x16xf32>, tensor<2x4x7x15xi8>, tensor<?x3x?x16xf32>) {
  %0 = nn.upsample_nearest2d %x {output_size = array<i64: 16, 12>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x12xf32>
  %1 = nn.upsample_nearest2d %x {scale_factors = array<f64: 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  // floor(5 * 1.5) = 7; any element type.
  %2 = nn.upsample_nearest2d %i {scale_factors = array<f64: 1.5, 3.0>} : (tensor<2x4x5x5xi8>) -> tensor<2x4x7x15xi8>
  %3 = nn.upsample_nearest2d %d {scale_factors = array<f64: 2.0, 2.0>} : (tensor<?x3x?x8xf32>) -> tensor<?x3x?x16xf32>
  return %0, %1, %2, %3 : tensor<1x3x16x12xf32>, tensor<1x3x16x16xf32>, tensor<2x4x7x15xi8>, tensor<?x3x?x16xf32>
}
