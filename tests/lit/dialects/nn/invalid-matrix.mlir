// Shape-inference diagnostics of the matrix operators (NNShapes.cpp). When
// inference fails, the verifier reports our message and then MLIR's
// "failed to infer returned types".
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @conv_input_rank(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+2 {{input must have rank >= 3 (N, C, spatial...), got 2}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+2 {{weight rank 3 differs from input rank 4}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_stride_entries(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'stride' has 3 entries but the op has 2 spatial dimensions}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1, 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding_entries(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'padding' has 3 entries but the op has 2 spatial dimensions}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_dilation_entries(%x: tensor<2x3x10xf32>, %w: tensor<5x3x3xf32>) {
  // expected-error @+2 {{'dilation' has 2 entries but the op has 1 spatial dimensions}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1, 1>}
      : (tensor<2x3x10xf32>, tensor<5x3x3xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @conv_output_padding_entries(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x4x4xf32>) {
  // expected-error @+2 {{'output_padding' has 3 entries but the op has 2 spatial dimensions}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 1, 1, 1>}
      : (tensor<1x4x8x8xf32>, tensor<4x2x4x4xf32>) -> tensor<1x2x17x17xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{stride must be positive, got [1, 0]}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 0>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_negative_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{dilation must be positive, got [-1, -1]}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: -1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{groups must be positive, got 0}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 0}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x5x3x3xf32>) {
  // expected-error @+2 {{input has 3 channels but weight expects 5 (groups = 1)}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x5x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// With groups, the weight holds C/groups input channels.
func.func @conv_channels_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{input has 4 channels but weight expects 8 (groups = 2)}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 2}
      : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// A transposed weight is (C, O/groups, k...): dim 0 must match the input.
func.func @conv_transposed_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{input has 3 channels but weight expects 4 (groups = 1)}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true}
      : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  return
}

// -----

func.func @conv_bias_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+2 {{bias must have shape [4], got 'tensor<5xf32>'}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w, %b {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+2 {{bias must have shape [4], got 'tensor<1x4xf32>'}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w, %b {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x4xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_input_too_small(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{spatial dim 0 of size 2 is too small for kernel 3}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x0x6xf32>
  return
}

// -----

func.func @conv_integer_input(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'nn.convolution' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<1x3x8x8xi8>'}}
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{expects input of rank >= 1 and a 1-d or 2-d weight, got 'tensor<f32>' and 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<f32>, tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<2x8xf32>, %w: tensor<2x4x8xf32>) {
  // expected-error @+2 {{expects input of rank >= 1 and a 1-d or 2-d weight, got 'tensor<2x8xf32>' and 'tensor<2x4x8xf32>'}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_in_features(%x: tensor<2x7xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{input features 7 do not match weight in-features 8}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<2x7xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{bias must have shape [4], got 'tensor<8xf32>'}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w, %b : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{matmul operands must have rank >= 1}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+2 {{contraction sizes differ: 4 vs 5}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @matmul_vector_contraction(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{contraction sizes differ: 4 vs 3}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+2 {{shapes [2] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @sdpa_rank(%q: tensor<1x8x16x64xf32>, %k: tensor<8x16x64xf32>) {
  // expected-error @+2 {{query, key and value must share a rank >= 2}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %k, %k
      : (tensor<1x8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @sdpa_rank_one(%q: tensor<64xf32>) {
  // expected-error @+2 {{query, key and value must share a rank >= 2}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %q, %q : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @sdpa_embedding(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x32xf32>) {
  // expected-error @+2 {{query and key embedding sizes differ: 64 vs 32}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %k, %k
      : (tensor<1x8x16x64xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return
}

// -----

func.func @sdpa_sequence(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x8x64xf32>) {
  // expected-error @+2 {{key and value sequence lengths differ: 16 vs 8}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %k, %v
      : (tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x8x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @sdpa_heads_without_gqa(%q: tensor<1x32x16x64xf32>, %k: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{query has 32 heads but key has 8; set enable_gqa for grouped-query attention}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %k, %k
      : (tensor<1x32x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32>
  return
}

// -----

func.func @sdpa_gqa_divide(%q: tensor<1x32x16x64xf32>, %k: tensor<1x6x16x64xf32>) {
  // expected-error @+2 {{grouped-query attention needs key heads (6) to divide query heads (32)}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %k, %k {enable_gqa = true}
      : (tensor<1x32x16x64xf32>, tensor<1x6x16x64xf32>, tensor<1x6x16x64xf32>) -> tensor<1x32x16x64xf32>
  return
}

// -----

func.func @sdpa_gqa_zero_heads(%q: tensor<1x4x16x64xf32>, %k: tensor<1x0x16x64xf32>) {
  // expected-error @+2 {{grouped-query attention needs key heads (0) to divide query heads (4)}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %k, %k {enable_gqa = true}
      : (tensor<1x4x16x64xf32>, tensor<1x0x16x64xf32>, tensor<1x0x16x64xf32>) -> tensor<1x4x16x64xf32>
  return
}
