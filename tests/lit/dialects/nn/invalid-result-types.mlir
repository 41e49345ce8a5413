// Declared result types that disagree with shape inference. Compatibility is
// shape compatibility (a dynamic size matches any size) with equal element
// types. MLIR reports the mismatch and then "failed to infer returned types".
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @linear_features(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{'nn.linear' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @linear_element_type(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{'nn.linear' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf16>'}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf16>
  return
}

// -----

func.func @linear_rank(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{'nn.linear' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<1x2x4xf32>'}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

// A dynamic input size gives a dynamic inferred size, compatible with any
// declared size; a static inferred size still has to match.
func.func @linear_dynamic(%x: tensor<?x8xf32>, %w: tensor<4x8xf32>) {
  %ok = nn.linear %x, %w : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  // expected-error @+2 {{'nn.linear' op inferred type(s) 'tensor<?x4xf32>' are incompatible with return type(s) of operation 'tensor<?x5xf32>'}}
  // expected-error @+1 {{'nn.linear' op failed to infer returned types}}
  %0 = nn.linear %x, %w : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<?x5xf32>
  return
}

// -----

func.func @conv_spatial(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'nn.convolution' op inferred type(s) 'tensor<1x16x16x16xf32>' are incompatible with return type(s) of operation 'tensor<1x16x15x15xf32>'}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %x, %w {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x15x15xf32>
  return
}

// -----

func.func @matmul_vector(%a: tensor<4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'nn.matmul' op inferred type(s) 'tensor<5xf32>' are incompatible with return type(s) of operation 'tensor<1x5xf32>'}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<1x5xf32>
  return
}

// -----

func.func @sdpa_value_size(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x32x64xf32>, %v: tensor<1x8x32x32xf32>) {
  // expected-error @+2 {{'nn.scaled_dot_product_attention' op inferred type(s) 'tensor<1x8x16x32xf32>' are incompatible with return type(s) of operation 'tensor<1x8x16x64xf32>'}}
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op failed to infer returned types}}
  %0 = nn.scaled_dot_product_attention %q, %k, %v
      : (tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x32xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @add_broadcast_result(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'nn.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{'nn.add' op failed to infer returned types}}
  %0 = nn.add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @cat_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'nn.cat' op inferred type(s) 'tensor<2x6xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'nn.cat' op failed to infer returned types}}
  %0 = nn.cat %a, %a {dim = 1} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<2x10xf32>) {
  // expected-error @+2 {{'nn.slice' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %x {dim = 1, start = 1, end = 8, step = 2} : (tensor<2x10xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @view_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'nn.view' op inferred type(s) 'tensor<6x4xf32>' are incompatible with return type(s) of operation 'tensor<4x6xf32>'}}
  // expected-error @+1 {{'nn.view' op failed to infer returned types}}
  %0 = nn.view %x {size = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @embedding_result(%w: tensor<10x4xbf16>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'nn.embedding' op inferred type(s) 'tensor<3x4xbf16>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{'nn.embedding' op failed to infer returned types}}
  %0 = nn.embedding %w, %i : (tensor<10x4xbf16>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @fan_out_result(%x: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{'nn.fan_out' op inferred type(s) 'tensor<1x8x32x64xf32>' are incompatible with return type(s) of operation 'tensor<1x16x16x64xf32>'}}
  // expected-error @+1 {{'nn.fan_out' op failed to infer returned types}}
  %0 = nn.fan_out %x {repeats = 2, dim = 2} : (tensor<1x8x16x64xf32>) -> tensor<1x16x16x64xf32>
  return
}
