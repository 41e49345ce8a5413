// Diagnostics of the element-wise operators: broadcasting (NNShapes.cpp),
// the `other`/`scalar` rule of add/sub/mul/div, gelu's `approximate` and
// softmax's `dim` (NNOps.cpp).
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @add_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{shapes [2, 3] and [4, 3] are not broadcast-compatible}}
  // expected-error @+1 {{'nn.add' op failed to infer returned types}}
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @div_not_broadcastable(%a: tensor<2x1x3xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+2 {{shapes [2, 1, 3] and [5, 2] are not broadcast-compatible}}
  // expected-error @+1 {{'nn.div' op failed to infer returned types}}
  %0 = nn.div %a, %b : (tensor<2x1x3xf32>, tensor<5x2xf32>) -> tensor<2x5x3xf32>
  return
}

// -----

func.func @add_both_other_and_scalar(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'nn.add' op needs exactly one of a tensor 'other' and a 'scalar' attribute}}
  %0 = nn.add %a, %b scalar(1.0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sub_neither_other_nor_scalar(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.sub' op needs exactly one of a tensor 'other' and a 'scalar' attribute}}
  %0 = nn.sub %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @mul_both_other_and_scalar(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.mul' op needs exactly one of a tensor 'other' and a 'scalar' attribute}}
  %0 = "nn.mul"(%a, %a) <{scalar = 2 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @div_neither_other_nor_scalar(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.div' op needs exactly one of a tensor 'other' and a 'scalar' attribute}}
  %0 = "nn.div"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @scalar_not_a_number(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.mul' op attribute 'scalar' failed to satisfy constraint: 64-bit float attribute or 64-bit signless integer attribute}}
  %0 = nn.mul %a scalar("two") : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @scalar_f32(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.add' op attribute 'scalar' failed to satisfy constraint: 64-bit float attribute or 64-bit signless integer attribute}}
  %0 = nn.add %a scalar(1.0 : f32) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// An integer self with a floating-point other gives a floating-point result.
func.func @binary_promoted_result(%i: tensor<4xi64>, %f: tensor<4xf32>) {
  // expected-error @+2 {{'nn.mul' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{'nn.mul' op failed to infer returned types}}
  %0 = nn.mul %i, %f : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @gelu_approximate(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.gelu' op approximate must be "none" or "tanh", got "exact"}}
  %0 = nn.gelu %x {approximate = "exact"} : tensor<4xf32>
  return
}

// -----

func.func @gelu_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nn.gelu' op expects a floating-point tensor}}
  %0 = nn.gelu %x : tensor<4xi32>
  return
}

// -----

func.func @softmax_dim_too_large(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'nn.softmax' op dim 2 is out of range for rank 2}}
  %0 = nn.softmax %x {dim = 2} : tensor<2x8xf32>
  return
}

// -----

func.func @softmax_dim_too_small(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'nn.softmax' op dim -3 is out of range for rank 2}}
  %0 = nn.softmax %x {dim = -3} : tensor<2x8xf32>
  return
}

// -----

func.func @softmax_scalar_dim(%x: tensor<f32>) {
  // expected-error @+1 {{'nn.softmax' op dim 1 is out of range for rank 0}}
  %0 = nn.softmax %x {dim = 1} : tensor<f32>
  return
}

// -----

func.func @softmax_missing_dim(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'nn.softmax' op requires attribute 'dim'}}
  %0 = "nn.softmax"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.relu' op requires the same type for all operands and results}}
  %0 = "nn.relu"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}
