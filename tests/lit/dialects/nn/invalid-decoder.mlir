// Shape-inference diagnostics of the decoder-specific operators.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @kv_cache_rank(%k: tensor<64xf32>) {
  // expected-error @+2 {{key and value must share a rank >= 2}}
  // expected-error @+1 {{'nn.kv_cache' op failed to infer returned types}}
  %0:2 = nn.kv_cache %k, %k : (tensor<64xf32>, tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
  return
}

// -----

func.func @kv_cache_rank_mismatch(%k: tensor<1x8x1x64xf32>, %v: tensor<8x1x64xf32>) {
  // expected-error @+2 {{key and value must share a rank >= 2}}
  // expected-error @+1 {{'nn.kv_cache' op failed to infer returned types}}
  %0:2 = nn.kv_cache %k, %v : (tensor<1x8x1x64xf32>, tensor<8x1x64xf32>) -> (tensor<1x8x1x64xf32>, tensor<8x1x64xf32>)
  return
}

// -----

func.func @kv_cache_past_length(%k: tensor<1x8x1x64xf32>) {
  // expected-error @+2 {{past_length must be non-negative}}
  // expected-error @+1 {{'nn.kv_cache' op failed to infer returned types}}
  %0:2 = nn.kv_cache %k, %k {past_length = -1}
      : (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>) -> (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>)
  return
}

// -----

// The cache grows along dim -2.
func.func @kv_cache_result(%k: tensor<1x8x1x64xf32>) {
  // expected-error @+2 {{'nn.kv_cache' op inferred type(s) 'tensor<1x8x5x64xf32>', 'tensor<1x8x5x64xf32>' are incompatible with return type(s) of operation 'tensor<1x8x1x68xf32>', 'tensor<1x8x1x68xf32>'}}
  // expected-error @+1 {{'nn.kv_cache' op failed to infer returned types}}
  %0:2 = nn.kv_cache %k, %k {past_length = 4}
      : (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>) -> (tensor<1x8x1x68xf32>, tensor<1x8x1x68xf32>)
  return
}

// -----

func.func @fan_out_dim_range(%x: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{dim 4 is out of range for rank 4}}
  // expected-error @+1 {{'nn.fan_out' op failed to infer returned types}}
  %0 = nn.fan_out %x {repeats = 2, dim = 4} : (tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @fan_out_repeats(%x: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{repeats must be positive, got 0}}
  // expected-error @+1 {{'nn.fan_out' op failed to infer returned types}}
  %0 = nn.fan_out %x {repeats = 0} : (tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @fan_out_missing_repeats(%x: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{'nn.fan_out' op requires attribute 'repeats'}}
  %0 = nn.fan_out %x : (tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @token_positions_rank(%ids: tensor<i64>) {
  // expected-error @+1 {{'nn.token_positions' op numbers positions along the last dimension: ids need rank >= 1}}
  %0 = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<i64>) -> tensor<i64>
  return
}

// -----

func.func @token_positions_shape(%ids: tensor<1x12xi64>) {
  // expected-error @+1 {{'nn.token_positions' op result shape must be the ids' shape}}
  %0 = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<1x12xi64>) -> tensor<12xi64>
  return
}

// -----

func.func @token_positions_negative(%ids: tensor<1x12xi64>) {
  // expected-error @+1 {{'nn.token_positions' op padding_idx must be >= 0 and offset >= -1 (positions below the base), got -1 and 0}}
  %0 = nn.token_positions %ids {padding_idx = -1 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
  return
}

// -----

func.func @token_positions_offset(%ids: tensor<1x12xi64>) {
  // expected-error @+1 {{'nn.token_positions' op padding_idx must be >= 0 and offset >= -1 (positions below the base), got 0 and -2}}
  %0 = nn.token_positions %ids {padding_idx = 0 : i64, offset = -2 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
  return
}

// -----

func.func @token_positions_base(%ids: tensor<1x12xi64>) {
  // expected-error @+1 {{'nn.token_positions' op base must be >= 0, got -1}}
  %0 = nn.token_positions %ids {padding_idx = 0 : i64, base = -1 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
  return
}

// -----

func.func @token_positions_reals(%ids: tensor<1x12xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of signless integer values}}
  %0 = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<1x12xf32>) -> tensor<1x12xi64>
  return
}

// -----

func.func @last_token_ids_rank(%x: tensor<1x4x3xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{'nn.last_token' op needs ids of rank 2 (batch, length), got 'tensor<4xi64>'}}
  %0 = nn.last_token %x, %ids {padding_idx = 0 : i64} : (tensor<1x4x3xf32>, tensor<4xi64>) -> tensor<1x3xf32>
  return
}

// -----

func.func @last_token_input(%x: tensor<1x5x3xf32>, %ids: tensor<1x4xi64>) {
  // expected-error @+1 {{'nn.last_token' op needs an input (batch, length, ...) of the ids' (batch, length), got 'tensor<1x5x3xf32>'}}
  %0 = nn.last_token %x, %ids {padding_idx = 0 : i64} : (tensor<1x5x3xf32>, tensor<1x4xi64>) -> tensor<1x3xf32>
  return
}

// -----

func.func @last_token_result(%x: tensor<1x4x3xf32>, %ids: tensor<1x4xi64>) {
  // expected-error @+1 {{'nn.last_token' op result must be the input without its length dimension, 'tensor<1x3xf32>'}}
  %0 = nn.last_token %x, %ids {padding_idx = 0 : i64} : (tensor<1x4x3xf32>, tensor<1x4xi64>) -> tensor<1x4xf32>
  return
}
