// RUN: %raptor-opt %s -split-input-file -verify-diagnostics
// Inputs that once crashed raptor-opt or were accepted with a wrong shape.

func.func @pool_zero_stride(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{stride must be positive, got [0, 0]}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 0, 0>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @pool_zero_kernel(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{kernel sizes must be positive, got [0, 0]}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 0, 0>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @pool_zero_dilation(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{dilation must be positive, got [0, 0]}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, dilation = array<i64: 0, 0>}
      : (tensor<1x1x8x8xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi64>)
  return
}

// -----

func.func @pool_window_larger_than_input(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{pooling window larger than the input}}
  // expected-error @+1 {{'nn.max_pool2d' op failed to infer returned types}}
  %0:2 = nn.max_pool2d %x {kernel_size = array<i64: 5, 5>}
      : (tensor<1x1x4x4xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>)
  return
}

// -----

func.func @conv_kernel_larger_than_input(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+2 {{spatial dim 0 of size 2 is too small for kernel 3}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @conv_negative_padding(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @+2 {{padding must be non-negative, got [-1, -1]}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: -1>, dilation = array<i64: 1>}
      : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @conv_groups_do_not_divide_outputs(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{weight has 3 output channels, not divisible by groups = 2}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>, groups = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @transposed_conv_empty_output(%x: tensor<1x1x1x1xf32>, %w: tensor<1x1x1x1xf32>) {
  // expected-error @+2 {{transposed convolution output size -9 of spatial dim 0 is not positive}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 5>, dilation = array<i64: 1>, transposed = true}
      : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @expand_invalid_size(%x: tensor<1x4xf32>) {
  // expected-error @+2 {{invalid expand size -2 for dim 0}}
  // expected-error @+1 {{'nn.expand' op failed to infer returned types}}
  %0 = nn.expand %x {size = array<i64: -2, 4>} : (tensor<1x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @upsample_negative_size(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{output_size must be 2 positive sizes, got [-3, 4]}}
  // expected-error @+1 {{'nn.upsample_nearest2d' op failed to infer returned types}}
  %0 = nn.upsample_nearest2d %x {output_size = array<i64: -3, 4>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x4xf32>
  return
}

// -----

// expected-error @+1 {{'nn.param' on argument #0 must be a non-empty string naming the weight}}
func.func private @declaration(tensor<2xf32> {nn.param = ""})

// -----

func.func @promotion_f16_f32(%a: tensor<4xf16>, %b: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'nn.add' op failed to infer returned types}}
  %0 = nn.add %a, %b : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf16>
  return
}
