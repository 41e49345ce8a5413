// Round-trip of the selection and view operators (select, index_select,
// index, alias, as_strided), hardtanh, clamp, pow, nan_to_num and average
// pooling. Declared result types are checked by shape inference.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

// select drops the dimension; negative dims and indices count from the end,
// and a dynamic size is not range-checked.
// CHECK-LABEL: func.func @select
// CHECK: nn.select %arg0 {dim = 1 : i64, index = 0 : i64} : (tensor<1x197x768xf32>) -> tensor<1x768xf32>
// CHECK: nn.select %arg0 {dim = -1 : i64, index = -1 : i64} : (tensor<1x197x768xf32>) -> tensor<1x197xf32>
// CHECK: nn.select %arg1 {dim = 0 : i64, index = 7 : i64} : (tensor<?x4xf32>) -> tensor<4xf32>
func.func @select(%x: tensor<1x197x768xf32>, %d: tensor<?x4xf32>) -> (tensor<1x768xf32>, tensor<1x197xf32>, tensor<4xf32>) {
  %0 = nn.select %x {dim = 1, index = 0} : (tensor<1x197x768xf32>) -> tensor<1x768xf32>
  %1 = nn.select %x {dim = -1, index = -1} : (tensor<1x197x768xf32>) -> tensor<1x197xf32>
  %2 = nn.select %d {dim = 0, index = 7} : (tensor<?x4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<1x768xf32>, tensor<1x197xf32>, tensor<4xf32>
}

// where broadcasts its condition and both branches (numpy rules) and takes
// the promoted element type of the branches.
// CHECK-LABEL: func.func @where
// CHECK: nn.where %arg0, %arg1, %arg2 : (tensor<1x1x4x1xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
func.func @where(%c: tensor<1x1x4x1xi1>, %x: tensor<1x2x4x4xf32>, %k: tensor<f32>) -> tensor<1x2x4x4xf32> {
  %0 = nn.where %c, %x, %k : (tensor<1x1x4x1xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// index_select takes a 1-d or 0-d integer index tensor.
// CHECK-LABEL: func.func @index_select
// CHECK: nn.index_select %arg0, %arg1 {dim = 0 : i64} : (tensor<169x3xf32>, tensor<2401xi64>) -> tensor<2401x3xf32>
// CHECK: nn.index_select %arg0, %arg2 {dim = -1 : i64} : (tensor<169x3xf32>, tensor<i64>) -> tensor<169x1xf32>
func.func @index_select(%x: tensor<169x3xf32>, %i: tensor<2401xi64>, %s: tensor<i64>) -> (tensor<2401x3xf32>, tensor<169x1xf32>) {
  %0 = nn.index_select %x, %i {dim = 0} : (tensor<169x3xf32>, tensor<2401xi64>) -> tensor<2401x3xf32>
  %1 = nn.index_select %x, %s {dim = -1} : (tensor<169x3xf32>, tensor<i64>) -> tensor<169x1xf32>
  return %0, %1 : tensor<2401x3xf32>, tensor<169x1xf32>
}

// index: the index tensors broadcast together and replace the leading dims.
// CHECK-LABEL: func.func @index
// CHECK: nn.index %arg0, %arg1 : (tensor<169x3xf32>, tensor<49x49xi64>) -> tensor<49x49x3xf32>
// CHECK: nn.index %arg0, %arg2, %arg3 : (tensor<169x3xf32>, tensor<49x1xi64>, tensor<49xi64>) -> tensor<49x49xf32>
func.func @index(%x: tensor<169x3xf32>, %i: tensor<49x49xi64>, %j: tensor<49x1xi64>, %k: tensor<49xi64>) -> (tensor<49x49x3xf32>, tensor<49x49xf32>) {
  %0 = nn.index %x, %i : (tensor<169x3xf32>, tensor<49x49xi64>) -> tensor<49x49x3xf32>
  %1 = nn.index %x, %j, %k : (tensor<169x3xf32>, tensor<49x1xi64>, tensor<49xi64>) -> tensor<49x49xf32>
  return %0, %1 : tensor<49x49x3xf32>, tensor<49x49xf32>
}

// alias is the identity (a view of the same tensor).
// CHECK-LABEL: func.func @alias
// CHECK: nn.alias %arg0 : tensor<2x3xf32>
func.func @alias(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.alias %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// as_strided reads the contiguous element sequence: a reshape, a transpose
// (strides 12, 1, 4), an offset window, and an empty view that reads nothing.
// CHECK-LABEL: func.func @as_strided
// CHECK: nn.as_strided %arg0 {size = array<i64: 4, 6>, stride = array<i64: 6, 1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK: nn.as_strided %arg0 {size = array<i64: 2, 4, 3>, stride = array<i64: 12, 1, 4>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK: nn.as_strided %arg0 {size = array<i64: 3, 2>, storage_offset = 6 : i64, stride = array<i64: 8, 1>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
// CHECK: nn.as_strided %arg0 {size = array<i64: 0, 5>, stride = array<i64: 100, 100>} : (tensor<2x3x4xf32>) -> tensor<0x5xf32>
func.func @as_strided(%x: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<2x4x3xf32>, tensor<3x2xf32>, tensor<0x5xf32>) {
  %0 = nn.as_strided %x {size = array<i64: 4, 6>, stride = array<i64: 6, 1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %1 = nn.as_strided %x {size = array<i64: 2, 4, 3>, stride = array<i64: 12, 1, 4>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %2 = nn.as_strided %x {size = array<i64: 3, 2>, stride = array<i64: 8, 1>, storage_offset = 6} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  %3 = nn.as_strided %x {size = array<i64: 0, 5>, stride = array<i64: 100, 100>} : (tensor<2x3x4xf32>) -> tensor<0x5xf32>
  return %0, %1, %2, %3 : tensor<4x6xf32>, tensor<2x4x3xf32>, tensor<3x2xf32>, tensor<0x5xf32>
}

// hardtanh (ReLU6 is 0, 6; the defaults -1, 1 are elided) and clamp with
// one or both bounds.
// CHECK-LABEL: func.func @clamps
// CHECK: nn.hardtanh %arg0 {max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64} : tensor<1x8x4x4xf32>
// CHECK: nn.hardtanh %arg0 : tensor<1x8x4x4xf32>
// CHECK: nn.clamp %arg0 {min = 0.000000e+00 : f64} : tensor<1x8x4x4xf32>
// CHECK: nn.clamp %arg0 {max = 3.000000e+00 : f64, min = -1.500000e+00 : f64} : tensor<1x8x4x4xf32>
func.func @clamps(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %0 = nn.hardtanh %x {min_val = 0.0, max_val = 6.0} : tensor<1x8x4x4xf32>
  %1 = nn.hardtanh %x : tensor<1x8x4x4xf32>
  %2 = nn.clamp %x {min = 0.0} : tensor<1x8x4x4xf32>
  %3 = nn.clamp %x {min = -1.5, max = 3.0} : tensor<1x8x4x4xf32>
  return %0, %1, %2, %3 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// avg_pool2d with defaults elided or with every option, and adaptive
// average pooling to 1x1 and to uneven windows.
// CHECK-LABEL: func.func @avg_pools
// CHECK: nn.avg_pool2d %arg0 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
// CHECK: nn.avg_pool2d %arg0 {ceil_mode = true, count_include_pad = false, divisor_override = 4 : i64, kernel_size = array<i64: 3>, padding = array<i64: 1, 1>, stride = array<i64: 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
// CHECK: nn.adaptive_avg_pool2d %arg0 {output_size = array<i64: 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK: nn.adaptive_avg_pool2d %arg0 {output_size = array<i64: 3, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x2xf32>
func.func @avg_pools(%x: tensor<1x8x7x7xf32>) -> (tensor<1x8x3x3xf32>, tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x3x2xf32>) {
  %0 = nn.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
  %1 = nn.avg_pool2d %x {kernel_size = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false, divisor_override = 4} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
  %2 = nn.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  %3 = nn.adaptive_avg_pool2d %x {output_size = array<i64: 3, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x2xf32>
  return %0, %1, %2, %3 : tensor<1x8x3x3xf32>, tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x3x2xf32>
}

// pow by a scalar exponent (GPT-2's x^3, ONNX Sqrt as x^0.5).
// CHECK-LABEL: func.func @pow
// CHECK: nn.pow %arg0 {exponent = 3.000000e+00 : f64} : tensor<2x8xf32>
// CHECK: nn.pow %arg0 {exponent = 5.000000e-01 : f64} : tensor<2x8xf32>
func.func @pow(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %0 = nn.pow %x {exponent = 3.0} : tensor<2x8xf32>
  %1 = nn.pow %x {exponent = 0.5} : tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// nan_to_num: aten's defaults (infinities to the largest finite values), and
// the NaN guard of exported attention (infinities kept).
// CHECK-LABEL: func.func @nan_to_num
// CHECK: nn.nan_to_num %arg0 : tensor<2x8xf32>
// CHECK: nn.nan_to_num %arg0 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<2x8xf32>
func.func @nan_to_num(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %0 = nn.nan_to_num %x {nan = 0.0} : tensor<2x8xf32>
  %1 = nn.nan_to_num %x {posinf = 0x7FF0000000000000 : f64, neginf = 0xFFF0000000000000 : f64} : tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}
