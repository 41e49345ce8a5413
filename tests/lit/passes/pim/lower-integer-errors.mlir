// Integer-only programs (`raptor.fixed_point_bits`) refuse, at the model's
// location, every operator they cannot compute on pimsim-nn's instructions:
// a GELU (erf), a float32 matrix operator, a quotient of two tensors, an
// exponential and a log1p (extensions in float32 programs); and a fixed
// point outside 0..30.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim -o /dev/null

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> attributes {raptor.fixed_point_bits = 16 : i64} {
  // expected-error @+1 {{'nn.gelu' op has no integer-only lowering}}
  %0 = nn.gelu %x : tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> attributes {raptor.fixed_point_bits = 16 : i64} {
  // expected-error @+1 {{'nn.exp' op has no integer-only lowering}}
  %0 = nn.exp %x : tensor<1x8xf32>
  %1 = nn.log1p %0 : tensor<1x8xf32>
  return %1 : tensor<1x8xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> attributes {raptor.fixed_point_bits = 16 : i64} {
  // expected-error @+1 {{'nn.log1p' op has no integer-only lowering}}
  %0 = nn.log1p %x : tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x4xf32> attributes {raptor.fixed_point_bits = 16 : i64} {
  %w = nn.constant dense<0.5> : tensor<4x8xf32>
  // expected-error @+1 {{'nn.linear' op has no integer-only lowering}}
  %0 = nn.linear %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> attributes {raptor.fixed_point_bits = 16 : i64} {
  // expected-error @+1 {{'nn.div' op has no integer-only lowering}}
  %0 = nn.div %x, %x : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// expected-error @+1 {{raptor.fixed_point_bits 31 is outside 0..30}}
func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> attributes {raptor.fixed_point_bits = 31 : i64} {
  %0 = nn.relu %x : tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}
