// Shape-inference diagnostics of the normalizations and rotary_embedding.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @batch_norm_rank(%x: tensor<16xf32>, %p: tensor<16xf32>) {
  // expected-error @+2 {{input must have rank >= 2 (N, C, ...)}}
  // expected-error @+1 {{'nn.batch_norm' op failed to infer returned types}}
  %0:3 = nn.batch_norm %x, %p, %p, %p, %p
      : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<16xf32>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

func.func @batch_norm_weight(%x: tensor<2x16x8x8xf32>, %p: tensor<16xf32>, %w: tensor<8xf32>) {
  // expected-error @+2 {{per-channel operands must have shape [16], got 'tensor<8xf32>'}}
  // expected-error @+1 {{'nn.batch_norm' op failed to infer returned types}}
  %0:3 = nn.batch_norm %x, %w, %p, %p, %p
      : (tensor<2x16x8x8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<2x16x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

func.func @batch_norm_running_var(%x: tensor<2x16x8x8xf32>, %p: tensor<16xf32>, %v: tensor<1x16xf32>) {
  // expected-error @+2 {{per-channel operands must have shape [16], got 'tensor<1x16xf32>'}}
  // expected-error @+1 {{'nn.batch_norm' op failed to infer returned types}}
  %0:3 = nn.batch_norm %x, %p, %p, %p, %v
      : (tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<1x16xf32>)
      -> (tensor<2x16x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// The saved statistics are empty in inference mode.
func.func @batch_norm_saved_stats(%x: tensor<2x16x8x8xf32>, %p: tensor<16xf32>) {
  // expected-error @+2 {{'nn.batch_norm' op inferred type(s) 'tensor<2x16x8x8xf32>', 'tensor<0xf32>', 'tensor<0xf32>' are incompatible with return type(s) of operation 'tensor<2x16x8x8xf32>', 'tensor<16xf32>', 'tensor<16xf32>'}}
  // expected-error @+1 {{'nn.batch_norm' op failed to infer returned types}}
  %0:3 = nn.batch_norm %x, %p, %p, %p, %p
      : (tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @layer_norm_empty_shape(%x: tensor<2x64xf32>) {
  // expected-error @+2 {{normalized_shape [] does not fit input 'tensor<2x64xf32>'}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x {normalized_shape = array<i64>} : (tensor<2x64xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_shape_too_long(%x: tensor<2x64xf32>) {
  // expected-error @+2 {{normalized_shape [1, 2, 64] does not fit input 'tensor<2x64xf32>'}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x {normalized_shape = array<i64: 1, 2, 64>} : (tensor<2x64xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @layer_norm_trailing_dims(%x: tensor<2x10x64xf32>) {
  // expected-error @+2 {{normalized_shape [32] does not match the trailing dims of 'tensor<2x10x64xf32>'}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x {normalized_shape = array<i64: 32>} : (tensor<2x10x64xf32>) -> tensor<2x10x64xf32>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<2x10x64xf32>, %w: tensor<32xf32>) {
  // expected-error @+2 {{weight and bias must have shape [64], got 'tensor<32xf32>'}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x weight %w {normalized_shape = array<i64: 64>}
      : (tensor<2x10x64xf32>, tensor<32xf32>) -> tensor<2x10x64xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<2x10x64xf32>, %w: tensor<64xf32>, %b: tensor<1x64xf32>) {
  // expected-error @+2 {{weight and bias must have shape [64], got 'tensor<1x64xf32>'}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x weight %w bias %b {normalized_shape = array<i64: 64>}
      : (tensor<2x10x64xf32>, tensor<64xf32>, tensor<1x64xf32>) -> tensor<2x10x64xf32>
  return
}

// -----

func.func @rms_norm_trailing_dims(%x: tensor<1x7x4096xf32>) {
  // expected-error @+2 {{normalized_shape [7, 4096, 1] does not match the trailing dims of 'tensor<1x7x4096xf32>'}}
  // expected-error @+1 {{'nn.rms_norm' op failed to infer returned types}}
  %0 = nn.rms_norm %x {normalized_shape = array<i64: 7, 4096, 1>} : (tensor<1x7x4096xf32>) -> tensor<1x7x4096xf32>
  return
}

// -----

func.func @rms_norm_empty_shape(%x: tensor<1x7x4096xf32>) {
  // expected-error @+2 {{normalized_shape [] does not fit input 'tensor<1x7x4096xf32>'}}
  // expected-error @+1 {{'nn.rms_norm' op failed to infer returned types}}
  %0 = nn.rms_norm %x {normalized_shape = array<i64>} : (tensor<1x7x4096xf32>) -> tensor<1x7x4096xf32>
  return
}

// -----

func.func @rms_norm_weight(%x: tensor<1x7x4096xf32>, %w: tensor<1x4096xf32>) {
  // expected-error @+2 {{weight and bias must have shape [4096], got 'tensor<1x4096xf32>'}}
  // expected-error @+1 {{'nn.rms_norm' op failed to infer returned types}}
  %0 = nn.rms_norm %x weight %w {normalized_shape = array<i64: 4096>}
      : (tensor<1x7x4096xf32>, tensor<1x4096xf32>) -> tensor<1x7x4096xf32>
  return
}

// -----

func.func @rotary_not_broadcastable(%x: tensor<1x32x7x128xf32>, %c: tensor<7x64xf32>) {
  // expected-error @+2 {{shapes [1, 32, 7, 128] and [7, 64] are not broadcast-compatible}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %c
      : (tensor<1x32x7x128xf32>, tensor<7x64xf32>, tensor<7x64xf32>) -> tensor<1x32x7x128xf32>
  return
}

// -----

// cos/sin must broadcast *to* the input, not widen it.
func.func @rotary_widens_input(%x: tensor<1x32x7x128xf32>, %c: tensor<1x1x7x128xf32>, %s: tensor<2x1x7x128xf32>) {
  // expected-error @+2 {{cos/sin 'tensor<2x1x7x128xf32>' must broadcast to the input 'tensor<1x32x7x128xf32>'}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %s
      : (tensor<1x32x7x128xf32>, tensor<1x1x7x128xf32>, tensor<2x1x7x128xf32>) -> tensor<1x32x7x128xf32>
  return
}

// -----

func.func @rotary_table_rank(%x: tensor<7x128xf32>, %c: tensor<1x7x128xf32>) {
  // expected-error @+2 {{cos/sin 'tensor<1x7x128xf32>' must broadcast to the input 'tensor<7x128xf32>'}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %c : (tensor<7x128xf32>, tensor<1x7x128xf32>, tensor<1x7x128xf32>) -> tensor<7x128xf32>
  return
}

// -----

func.func @rotary_odd(%x: tensor<1x4x7x7xf32>, %c: tensor<7x7xf32>) {
  // expected-error @+2 {{rotary embedding needs an even last dimension, got 7}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %c : (tensor<1x4x7x7xf32>, tensor<7x7xf32>, tensor<7x7xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @rotary_head_dim_divides(%x: tensor<1x7x100xf32>, %c: tensor<7x64xf32>) {
  // expected-error @+2 {{head_dim 64 does not divide the last dimension 100 of the input}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %c {head_dim = 64 : i64} : (tensor<1x7x100xf32>, tensor<7x64xf32>, tensor<7x64xf32>) -> tensor<1x7x100xf32>
  return
}

// -----

// A table of one head must not widen it (two batches against one).
func.func @rotary_head_table(%x: tensor<1x7x128xf32>, %c: tensor<2x7x64xf32>) {
  // expected-error @+2 {{cos/sin 'tensor<2x7x64xf32>' must broadcast to one head of the input 'tensor<1x7x128xf32>'}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %c {head_dim = 64 : i64} : (tensor<1x7x128xf32>, tensor<2x7x64xf32>, tensor<2x7x64xf32>) -> tensor<1x7x128xf32>
  return
}

// -----

func.func @rotary_odd_head(%x: tensor<1x7x14xf32>, %c: tensor<7x7xf32>) {
  // expected-error @+2 {{rotary embedding needs an even head_dim, got 7}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %c {head_dim = 7 : i64} : (tensor<1x7x14xf32>, tensor<7x7xf32>, tensor<7x7xf32>) -> tensor<1x7x14xf32>
  return
}

// -----

func.func @rotary_head_dim_positive(%x: tensor<1x7x128xf32>, %c: tensor<7x64xf32>) {
  // expected-error @+1 {{attribute 'head_dim' failed to satisfy constraint}}
  %0 = nn.rotary_embedding %x, %c, %c {head_dim = 0 : i64} : (tensor<1x7x128xf32>, tensor<7x64xf32>, tensor<7x64xf32>) -> tensor<1x7x128xf32>
  return
}

// -----

func.func @rotary_scalar(%x: tensor<f32>, %c: tensor<f32>) {
  // expected-error @+2 {{rotary embedding needs an input of rank >= 1}}
  // expected-error @+1 {{'nn.rotary_embedding' op failed to infer returned types}}
  %0 = nn.rotary_embedding %x, %c, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}
