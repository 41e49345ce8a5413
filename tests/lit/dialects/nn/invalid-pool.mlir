// Shape-inference diagnostics of the reductions and pooling: mean, amax,
// max_pool2d and upsample_nearest2d.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @mean_dim_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{dim 3 is out of range for rank 3}}
  // expected-error @+1 {{'nn.mean' op failed to infer returned types}}
  %0 = nn.mean %x {dim = array<i64: 3>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @mean_negative_dim_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{dim -4 is out of range for rank 3}}
  // expected-error @+1 {{'nn.mean' op failed to infer returned types}}
  %0 = nn.mean %x {dim = array<i64: -4>} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// -1 and 2 name the same dimension of a rank-3 tensor.
func.func @mean_duplicate_dim(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{dim -1 appears more than once}}
  // expected-error @+1 {{'nn.mean' op failed to infer returned types}}
  %0 = nn.mean %x {dim = array<i64: 2, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @mean_keepdim_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'nn.mean' op inferred type(s) 'tensor<2x1x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{'nn.mean' op failed to infer returned types}}
  %0 = nn.mean %x {dim = array<i64: 1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @mean_integer(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'nn.mean' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<2x3xi32>'}}
  %0 = nn.mean %x : (tensor<2x3xi32>) -> tensor<f32>
  return
}

// -----

func.func @max_pool_rank(%x: tensor<8x8xf32>) {
  // expected-error @+2 {{input must be (C, H, W) or (N, C, H, W), got 'tensor<8x8xf32>'}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<8x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xi64>)
  return
}

// -----

func.func @max_pool_kernel_entries(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'kernel_size' has 3 entries but the op has 2 spatial dimensions}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2, 2>} : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @max_pool_stride_entries(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'stride' has 3 entries but the op has 2 spatial dimensions}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2, 2>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @max_pool_padding_entries(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'padding' has 3 entries but the op has 2 spatial dimensions}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0, 0>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @max_pool_dilation_entries(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'dilation' has 3 entries but the op has 2 spatial dimensions}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1, 1>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @max_pool_padding_too_large(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{padding must be at most half the kernel size}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 2>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x3x4xf32>, tensor<1x1x3x4xi64>)
  return
}

// -----

func.func @max_pool_window_too_large(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+2 {{pooling window larger than the input 'tensor<1x1x2x2xf32>'}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>}
      : (tensor<1x1x2x2xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>)
  return
}

// -----

func.func @max_pool_indices_type(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'nn.max_pool2d' op inferred type(s) 'tensor<1x1x4x4xf32>', 'tensor<1x1x4x4xi64>' are incompatible with return type(s) of operation 'tensor<1x1x4x4xf32>', 'tensor<1x1x4x4xi32>'}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi32>)
  return
}

// -----

func.func @upsample_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+2 {{input must be (N, C, H, W), got 'tensor<3x8x8xf32>'}}
  // expected-error @+1 {{'nn.upsample_nearest2d' op failed to infer returned types}}
  %0 = nn.upsample_nearest2d %x {output_size = array<i64: 16, 16>} : (tensor<3x8x8xf32>) -> tensor<3x16x16xf32>
  return
}

// -----

func.func @upsample_neither(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{exactly one of output_size and scale_factors must be given}}
  // expected-error @+1 {{'nn.upsample_nearest2d' op failed to infer returned types}}
  %0 = nn.upsample_nearest2d %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @upsample_both(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{exactly one of output_size and scale_factors must be given}}
  // expected-error @+1 {{'nn.upsample_nearest2d' op failed to infer returned types}}
  %0 = nn.upsample_nearest2d %x {output_size = array<i64: 16, 16>, scale_factors = array<f64: 2.0, 2.0>}
      : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @upsample_output_size_entries(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{output_size must be 2 positive sizes, got [16]}}
  // expected-error @+1 {{'nn.upsample_nearest2d' op failed to infer returned types}}
  %0 = nn.upsample_nearest2d %x {output_size = array<i64: 16>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @upsample_scale_entries(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{scale_factors must be 2 positive numbers}}
  // expected-error @+1 {{'nn.upsample_nearest2d' op failed to infer returned types}}
  %0 = nn.upsample_nearest2d %x {scale_factors = array<f64: 2.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @upsample_scale_not_positive(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{scale_factors must be 2 positive numbers}}
  // expected-error @+1 {{'nn.upsample_nearest2d' op failed to infer returned types}}
  %0 = nn.upsample_nearest2d %x {scale_factors = array<f64: 2.0, 0.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x0xf32>
  return
}

// -----

func.func @amax_repeated_dim(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{dim -1 appears more than once}}
  // expected-error @+1 {{'nn.amax' op failed to infer returned types}}
  %0 = nn.amax %x {dim = array<i64: 2, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @amax_integer(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'nn.amax' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<2x3xi32>'}}
  %0 = nn.amax %x {dim = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2xi32>
  return
}
