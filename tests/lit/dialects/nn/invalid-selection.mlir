// Diagnostics of the selection and view operators (select, index_select,
// index, alias, as_strided, where) and of hardtanh, clamp, pow, nan_to_num and
// average pooling.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @select_index_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{index 3 is out of range for dim 1 of size 3}}
  // expected-error @+1 {{'nn.select' op failed to infer returned types}}
  %0 = nn.select %x {dim = 1, index = 3} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @select_negative_index_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{index -3 is out of range for dim 0 of size 2}}
  // expected-error @+1 {{'nn.select' op failed to infer returned types}}
  %0 = nn.select %x {dim = 0, index = -3} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @select_dim_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{'nn.select' op failed to infer returned types}}
  %0 = nn.select %x {dim = 2, index = 0} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @select_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{cannot select from a 0-d tensor}}
  // expected-error @+1 {{'nn.select' op failed to infer returned types}}
  %0 = nn.select %x {dim = 0, index = 0} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @select_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'nn.select' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'nn.select' op failed to infer returned types}}
  %0 = nn.select %x {dim = 0, index = 1} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @index_select_2d_index(%x: tensor<4x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error @+2 {{index must be 0-d or 1-d, got 'tensor<2x2xi64>'}}
  // expected-error @+1 {{'nn.index_select' op failed to infer returned types}}
  %0 = nn.index_select %x, %i {dim = 0} : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @index_select_float_index(%x: tensor<4x3xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'nn.index_select' op operand #1 must be ranked tensor of signless integer values, but got 'tensor<2xf32>'}}
  %0 = nn.index_select %x, %i {dim = 0} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @index_select_dim_range(%x: tensor<4x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{dim -3 is out of range for rank 2}}
  // expected-error @+1 {{'nn.index_select' op failed to infer returned types}}
  %0 = nn.index_select %x, %i {dim = -3} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @index_none(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{index needs at least one index tensor}}
  // expected-error @+1 {{'nn.index' op failed to infer returned types}}
  %0 = nn.index %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @index_too_many(%x: tensor<4xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{too many indices (2) for 'tensor<4xf32>'}}
  // expected-error @+1 {{'nn.index' op failed to infer returned types}}
  %0 = nn.index %x, %i, %i : (tensor<4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @index_not_broadcastable(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %j: tensor<3xi64>) {
  // expected-error @+2 {{shapes [2] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{'nn.index' op failed to infer returned types}}
  %0 = nn.index %x, %i, %j : (tensor<4x3xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @alias_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.alias' op requires the same type for all operands and results}}
  %0 = "nn.alias"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @as_strided_out_of_bounds(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{as_strided reads element 24 of 'tensor<2x3x4xf32>' (24 elements): not a view of it}}
  // expected-error @+1 {{'nn.as_strided' op failed to infer returned types}}
  %0 = nn.as_strided %x {size = array<i64: 4, 7>, stride = array<i64: 6, 1>} : (tensor<2x3x4xf32>) -> tensor<4x7xf32>
  return
}

// -----

func.func @as_strided_offset_out_of_bounds(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{as_strided reads element 6 of 'tensor<2x3xf32>' (6 elements): not a view of it}}
  // expected-error @+1 {{'nn.as_strided' op failed to infer returned types}}
  %0 = nn.as_strided %x {size = array<i64: 2>, stride = array<i64: 1>, storage_offset = 5} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @as_strided_lengths(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{as_strided has 2 sizes but 1 strides}}
  // expected-error @+1 {{'nn.as_strided' op failed to infer returned types}}
  %0 = nn.as_strided %x {size = array<i64: 3, 2>, stride = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @as_strided_negative_stride(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{as_strided strides must be non-negative, got -1}}
  // expected-error @+1 {{'nn.as_strided' op failed to infer returned types}}
  %0 = nn.as_strided %x {size = array<i64: 3, 2>, stride = array<i64: -1, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @as_strided_negative_offset(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{storage_offset must be non-negative, got -1}}
  // expected-error @+1 {{'nn.as_strided' op failed to infer returned types}}
  %0 = nn.as_strided %x {size = array<i64: 6>, stride = array<i64: 1>, storage_offset = -1} : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @as_strided_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{as_strided sizes [3, 2] and strides [9223372036854775807, 1] overflow int64}}
  // expected-error @+1 {{'nn.as_strided' op failed to infer returned types}}
  %0 = nn.as_strided %x {size = array<i64: 3, 2>, stride = array<i64: 9223372036854775807, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @hardtanh_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.hardtanh' op min_val 6.000000e+00 exceeds max_val 0.000000e+00}}
  %0 = nn.hardtanh %x {min_val = 6.0, max_val = 0.0} : tensor<4xf32>
  return
}

// -----

func.func @hardtanh_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nn.hardtanh' op expects a floating-point tensor}}
  %0 = nn.hardtanh %x {min_val = 0.0, max_val = 6.0} : tensor<4xi32>
  return
}

// -----

func.func @clamp_unbounded(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.clamp' op needs at least one of min and max}}
  %0 = nn.clamp %x : tensor<4xf32>
  return
}

// -----

func.func @clamp_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.clamp' op min 1.000000e+00 exceeds max -1.000000e+00}}
  %0 = nn.clamp %x {min = 1.0, max = -1.0} : tensor<4xf32>
  return
}

// -----

func.func @avg_pool_kernel(%x: tensor<1x8x7x7xf32>) {
  // expected-error @+2 {{kernel sizes must be positive, got [0, 2]}}
  // expected-error @+1 {{'nn.avg_pool2d' op failed to infer returned types}}
  %0 = nn.avg_pool2d %x {kernel_size = array<i64: 0, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x6xf32>
  return
}

// -----

func.func @adaptive_avg_pool_rank(%x: tensor<7x7xf32>) {
  // expected-error @+2 {{input must be (C, H, W) or (N, C, H, W), got 'tensor<7x7xf32>'}}
  // expected-error @+1 {{'nn.adaptive_avg_pool2d' op failed to infer returned types}}
  %0 = nn.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<7x7xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @adaptive_avg_pool_size(%x: tensor<1x8x7x7xf32>) {
  // expected-error @+2 {{output_size must be two positive sizes}}
  // expected-error @+1 {{'nn.adaptive_avg_pool2d' op failed to infer returned types}}
  %0 = nn.adaptive_avg_pool2d %x {output_size = array<i64: 0, 1>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x0x1xf32>
  return
}

// -----

func.func @pow_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nn.pow' op expects a floating-point tensor}}
  %0 = nn.pow %x {exponent = 2.0} : tensor<4xi32>
  return
}

// -----

func.func @pow_no_exponent(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.pow' op requires attribute 'exponent'}}
  %0 = nn.pow %x : tensor<4xf32>
  return
}

// -----

func.func @nan_to_num_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nn.nan_to_num' op expects a floating-point tensor}}
  %0 = nn.nan_to_num %x : tensor<4xi32>
  return
}

// -----

func.func @nan_to_num_nan(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.nan_to_num' op nan replacement must not be NaN}}
  %0 = nn.nan_to_num %x {nan = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return
}

// -----

func.func @where_float_condition(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+2 {{condition must be a tensor of i1, not 'f32'}}
  // expected-error @+1 {{'nn.where' op failed to infer returned types}}
  %0 = nn.where %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_shapes(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error @+2 {{shapes [3] and [4] are not broadcast-compatible}}
  // expected-error @+1 {{'nn.where' op failed to infer returned types}}
  %0 = nn.where %c, %x, %x : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
