// raptor-normalize-row-ops: rank-5 attention whose keys do not share the
// queries' leading dimensions cannot be folded into (batch, heads); a mask of
// higher rank than the queries does not broadcast to them; dynamic shapes.
// RUN: %raptor-opt %s --raptor-normalize-row-ops --verify-diagnostics --split-input-file

func.func @grouped_blocks(%q: tensor<1x4x2x16x8xf32>, %k: tensor<1x2x2x16x8xf32>) -> tensor<1x4x2x16x8xf32> {
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op attention of rank 5 needs keys and values with the queries' leading dimensions to fold them into (batch, heads)}}
  %0 = nn.scaled_dot_product_attention %q, %k, %k {enable_gqa = true}
      : (tensor<1x4x2x16x8xf32>, tensor<1x2x2x16x8xf32>, tensor<1x2x2x16x8xf32>) -> tensor<1x4x2x16x8xf32>
  return %0 : tensor<1x4x2x16x8xf32>
}

// -----

func.func @mask_of_higher_rank(%q: tensor<2x16x8xf32>, %m: tensor<1x1x2x16x16xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op an attention mask of rank 5 does not broadcast to rank-3 queries}}
  %0 = nn.scaled_dot_product_attention %q, %q, %q, %m
      : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<1x1x2x16x16xf32>) -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

// The views need every size: dynamic shapes are refused (a softmax's
// permutations take them).
func.func @dynamic(%x: tensor<?x5xf32>, %q: tensor<2x?x4x16x8xf32>) -> (tensor<?x5xf32>, tensor<5xf32>, tensor<2x?x4x16x8xf32>) {
  %0 = nn.softmax %x {dim = 0} : tensor<?x5xf32>
  // expected-error @+1 {{'nn.amax' op raptor-normalize-row-ops needs static shapes, not 'tensor<?x5xf32>'}}
  %1 = nn.amax %x {dim = array<i64: 0>} : (tensor<?x5xf32>) -> tensor<5xf32>
  // expected-error @+1 {{'nn.scaled_dot_product_attention' op raptor-normalize-row-ops needs static shapes, not 'tensor<2x?x4x16x8xf32>'}}
  %2 = nn.scaled_dot_product_attention %q, %q, %q : (tensor<2x?x4x16x8xf32>, tensor<2x?x4x16x8xf32>, tensor<2x?x4x16x8xf32>) -> tensor<2x?x4x16x8xf32>
  return %0, %1, %2 : tensor<?x5xf32>, tensor<5xf32>, tensor<2x?x4x16x8xf32>
}
