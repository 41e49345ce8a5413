// Round-trip of the decoder-specific operators (kv_cache, fan_out,
// token_positions, last_token) and of a
// small Llama-style attention block that chains the ops a decoder uses.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// kv_cache
//===----------------------------------------------------------------------===//

// Appends this step's keys/values after past_length cached positions (dim -2).
// CHECK-LABEL: func.func @kv_cache
// CHECK: %[[K:[^ ,]+]], %[[V:[^ ,]+]] = nn.kv_cache %arg0, %arg1 {past_length = 15 : i64} : (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>) -> (tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>)
// CHECK: return %[[K]], %[[V]] :
func.func @kv_cache(%k: tensor<1x8x1x64xf32>, %v: tensor<1x8x1x64xf32>) -> (tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>) {
  %0:2 = nn.kv_cache %k, %v {past_length = 15}
      : (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>) -> (tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>)
  return %0#0, %0#1 : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>
}

// The default past_length 0 is elided; keys and values may differ in head
// size; dynamic sequence lengths stay dynamic; rank 2 is enough.
// CHECK-LABEL: func.func @kv_cache_shapes
// CHECK: nn.kv_cache %arg0, %arg1 : (tensor<1x8x4x64xf16>, tensor<1x8x4x32xf16>) -> (tensor<1x8x4x64xf16>, tensor<1x8x4x32xf16>)
// CHECK: nn.kv_cache %arg2, %arg2 {past_length = 7 : i64} : (tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>) -> (tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>)
// CHECK: nn.kv_cache %arg3, %arg3 {past_length = 3 : i64} : (tensor<4x64xf32>, tensor<4x64xf32>) -> (tensor<7x64xf32>, tensor<7x64xf32>)
func.func @kv_cache_shapes(%k: tensor<1x8x4x64xf16>, %v: tensor<1x8x4x32xf16>, %d: tensor<2x4x?x16xf32>, %r: tensor<4x64xf32>) {
  %0:2 = nn.kv_cache %k, %v {past_length = 0}
      : (tensor<1x8x4x64xf16>, tensor<1x8x4x32xf16>) -> (tensor<1x8x4x64xf16>, tensor<1x8x4x32xf16>)
  %1:2 = nn.kv_cache %d, %d {past_length = 7}
      : (tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>) -> (tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>)
  %2:2 = nn.kv_cache %r, %r {past_length = 3}
      : (tensor<4x64xf32>, tensor<4x64xf32>) -> (tensor<7x64xf32>, tensor<7x64xf32>)
  return
}

//===----------------------------------------------------------------------===//
// fan_out
//===----------------------------------------------------------------------===//

// Repeats each head (dim 1 by default) `repeats` times.
// CHECK-LABEL: func.func @fan_out
// CHECK: nn.fan_out %arg0 {repeats = 4 : i64} : (tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32>
// CHECK: nn.fan_out %arg0 {dim = -3 : i64, repeats = 4 : i64} : (tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32>
// CHECK: nn.fan_out %arg0 {dim = 0 : i64, repeats = 3 : i64} : (tensor<1x8x16x64xf32>) -> tensor<3x8x16x64xf32>
// CHECK: nn.fan_out %arg0 {repeats = 1 : i64} : (tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
// CHECK: nn.fan_out %arg1 {repeats = 2 : i64} : (tensor<1x?x16xi8>) -> tensor<1x?x16xi8>
func.func @fan_out(%x: tensor<1x8x16x64xf32>, %d: tensor<1x?x16xi8>) {
  %0 = nn.fan_out %x {repeats = 4} : (tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32>
  %1 = nn.fan_out %x {repeats = 4, dim = -3} : (tensor<1x8x16x64xf32>) -> tensor<1x32x16x64xf32>
  %2 = nn.fan_out %x {repeats = 3, dim = 0} : (tensor<1x8x16x64xf32>) -> tensor<3x8x16x64xf32>
  %3 = nn.fan_out %x {repeats = 1, dim = 1} : (tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
  %4 = nn.fan_out %d {repeats = 2} : (tensor<1x?x16xi8>) -> tensor<1x?x16xi8>
  return
}

//===----------------------------------------------------------------------===//
// A decode step of grouped-query attention (4 query heads, 2 KV heads,
// head size 8, hidden 32, 5 cached positions, 1 new token).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attention_decode_step
// CHECK-SAME: %arg0: tensor<1x1xi64> {nn.input = "input_ids"}
// CHECK-SAME: %arg5: tensor<32x32xf32> {nn.param = "layers.0.self_attn.o_proj.weight"}
// CHECK: nn.embedding %arg1, %arg0 : (tensor<100x32xf32>, tensor<1x1xi64>) -> tensor<1x1x32xf32>
// CHECK: nn.rms_norm {{.*}} weight %arg2 {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 32>} : (tensor<1x1x32xf32>, tensor<32xf32>) -> tensor<1x1x32xf32>
// CHECK: nn.linear {{.*}} : (tensor<1x1x32xf32>, tensor<32x32xf32>) -> tensor<1x1x32xf32>
// CHECK: nn.linear {{.*}} : (tensor<1x1x32xf32>, tensor<16x32xf32>) -> tensor<1x1x16xf32>
// CHECK: nn.split_with_sizes {{.*}} {dim = -1 : i64, split_sizes = array<i64: 8, 8>} : (tensor<1x1x16xf32>) -> (tensor<1x1x8xf32>, tensor<1x1x8xf32>)
// CHECK: nn.view {{.*}} {size = array<i64: 1, 1, 4, 8>} : (tensor<1x1x32xf32>) -> tensor<1x1x4x8xf32>
// CHECK: nn.permute {{.*}} {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x1x4x8xf32>) -> tensor<1x4x1x8xf32>
// CHECK: nn.rotary_embedding {{.*}} : (tensor<1x4x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x1x8xf32>
// CHECK: nn.kv_cache {{.*}} {past_length = 5 : i64} : (tensor<1x2x1x8xf32>, tensor<1x2x1x8xf32>) -> (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>)
// CHECK: nn.fan_out {{.*}} {repeats = 2 : i64} : (tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
// CHECK: nn.scaled_dot_product_attention {{.*}} {scale = 0.35355339059327379 : f64} : (tensor<1x4x1x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x1x8xf32>
// CHECK: nn.view {{.*}} {size = array<i64: 1, 1, 32>} : (tensor<1x1x4x8xf32>) -> tensor<1x1x32xf32>
// CHECK: nn.add {{.*}} : (tensor<1x1x32xf32>, tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
func.func @attention_decode_step(
    %ids: tensor<1x1xi64> {nn.input = "input_ids"},
    %emb: tensor<100x32xf32> {nn.param = "embed_tokens.weight"},
    %norm: tensor<32xf32> {nn.param = "layers.0.input_layernorm.weight"},
    %wq: tensor<32x32xf32> {nn.param = "layers.0.self_attn.q_proj.weight"},
    %wkv: tensor<16x32xf32> {nn.param = "layers.0.self_attn.kv_proj.weight"},
    %wo: tensor<32x32xf32> {nn.param = "layers.0.self_attn.o_proj.weight"},
    %cos: tensor<1x1x1x8xf32> {nn.input = "cos"},
    %sin: tensor<1x1x1x8xf32> {nn.input = "sin"}) -> tensor<1x1x32xf32> {
  %h = nn.embedding %emb, %ids : (tensor<100x32xf32>, tensor<1x1xi64>) -> tensor<1x1x32xf32>
  %n = nn.rms_norm %h weight %norm {normalized_shape = array<i64: 32>, eps = 1.0e-6}
      : (tensor<1x1x32xf32>, tensor<32xf32>) -> tensor<1x1x32xf32>
  %q0 = nn.linear %n, %wq : (tensor<1x1x32xf32>, tensor<32x32xf32>) -> tensor<1x1x32xf32>
  %kv = nn.linear %n, %wkv : (tensor<1x1x32xf32>, tensor<16x32xf32>) -> tensor<1x1x16xf32>
  %k0, %v0 = nn.split_with_sizes %kv {split_sizes = array<i64: 8, 8>, dim = -1}
      : (tensor<1x1x16xf32>) -> (tensor<1x1x8xf32>, tensor<1x1x8xf32>)
  %q1 = nn.view %q0 {size = array<i64: 1, 1, 4, 8>} : (tensor<1x1x32xf32>) -> tensor<1x1x4x8xf32>
  %q2 = nn.permute %q1 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x1x4x8xf32>) -> tensor<1x4x1x8xf32>
  %q = nn.rotary_embedding %q2, %cos, %sin
      : (tensor<1x4x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x1x8xf32>
  %k1 = nn.view %k0 {size = array<i64: 1, 1, 2, 4>} : (tensor<1x1x8xf32>) -> tensor<1x1x2x4xf32>
  %k2 = nn.expand %k1 {size = array<i64: 1, 1, 2, 4>} : (tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %k3 = nn.view %k2 {size = array<i64: 1, 2, 1, 4>} : (tensor<1x1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %k4 = nn.cat %k3, %k3 {dim = -1} : (tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x1x8xf32>
  %v1 = nn.view %v0 {size = array<i64: 1, 2, 1, -1>} : (tensor<1x1x8xf32>) -> tensor<1x2x1x4xf32>
  %v2 = nn.constant_pad_nd %v1 {pad = array<i64: 0, 4>} : (tensor<1x2x1x4xf32>) -> tensor<1x2x1x8xf32>
  %keys, %values = nn.kv_cache %k4, %v2 {past_length = 5}
      : (tensor<1x2x1x8xf32>, tensor<1x2x1x8xf32>) -> (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>)
  %k = nn.fan_out %keys {repeats = 2} : (tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  %v = nn.fan_out %values {repeats = 2} : (tensor<1x2x6x8xf32>) -> tensor<1x4x6x8xf32>
  %a = nn.scaled_dot_product_attention %q, %k, %v {scale = 0.35355339059327379}
      : (tensor<1x4x1x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x1x8xf32>
  %a1 = nn.permute %a {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x4x1x8xf32>) -> tensor<1x1x4x8xf32>
  %a2 = nn.view %a1 {size = array<i64: 1, 1, 32>} : (tensor<1x1x4x8xf32>) -> tensor<1x1x32xf32>
  %o = nn.linear %a2, %wo : (tensor<1x1x32xf32>, tensor<32x32xf32>) -> tensor<1x1x32xf32>
  %r = nn.add %h, %o : (tensor<1x1x32xf32>, tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
  return %r : tensor<1x1x32xf32>
}

// token_positions: the result has the ids' shape, in any integer type;
// offset 0 is the default, and the base is the padding index unless given.
// CHECK-LABEL: func.func @token_positions
// CHECK: nn.token_positions %arg0 {padding_idx = 1 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
// CHECK: nn.token_positions %arg1 {offset = 2 : i64, padding_idx = 0 : i64} : (tensor<2x5xi32>) -> tensor<2x5xi64>
// CHECK: nn.token_positions %arg0 {base = 1 : i64, padding_idx = 0 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
func.func @token_positions(%ids: tensor<1x12xi64>, %short: tensor<2x5xi32>) -> (tensor<1x12xi64>, tensor<2x5xi64>, tensor<1x12xi64>) {
  %0 = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
  %1 = nn.token_positions %short {padding_idx = 0 : i64, offset = 2 : i64} : (tensor<2x5xi32>) -> tensor<2x5xi64>
  %2 = nn.token_positions %ids {padding_idx = 0 : i64, base = 1 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
  return %0, %1, %2 : tensor<1x12xi64>, tensor<2x5xi64>, tensor<1x12xi64>
}

// last_token: the row at the last id that is not padding, or (counted) at
// the count of such ids less one.
// CHECK-LABEL: func.func @last_token
// CHECK: nn.last_token %arg0, %arg1 {padding_idx = 0 : i64} : (tensor<2x12x3xf32>, tensor<2x12xi64>) -> tensor<2x3xf32>
// CHECK: nn.last_token %arg0, %arg1 {counted, padding_idx = 1 : i64} : (tensor<2x12x3xf32>, tensor<2x12xi64>) -> tensor<2x3xf32>
func.func @last_token(%x: tensor<2x12x3xf32>, %ids: tensor<2x12xi64>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = nn.last_token %x, %ids {padding_idx = 0 : i64} : (tensor<2x12x3xf32>, tensor<2x12xi64>) -> tensor<2x3xf32>
  %1 = nn.last_token %x, %ids {padding_idx = 1 : i64, counted} : (tensor<2x12x3xf32>, tensor<2x12xi64>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}
