// Codec IR the PIM lowering refuses, each with a diagnostic: an encoded
// subgraph without a calibrated scale, encoded data reaching an f32
// operator or the model's output, an int8 matrix operator whose weight is
// not encoded, an encoding other than f32 to i8.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim -o /dev/null

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  // expected-error @+1 {{encoded subgraph 1 has no calibrated scale}}
  %0 = codec.encode %x to <1 : f32 -> i8> : tensor<1x8xf32>
  %1 = codec.observe %0 for <1 : f32 -> i8> : tensor<1x8xf32>
  %2 = codec.decode %1 from <1 : f32 -> i8> : tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  %0 = codec.encode %x to <1 : f32 -> i8> {scale = 1.0 : f32} : tensor<1x8xf32>
  %1 = codec.observe %0 for <1 : f32 -> i8> {scale = 1.0 : f32} : tensor<1x8xf32>
  // expected-error @+1 {{'nn.relu' op reads i8 (encoded) data, which its PIM lowering does not take}}
  %2 = nn.relu %1 : tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  %0 = codec.encode %x to <1 : f32 -> i8> : tensor<1x8xf32>
  // expected-error @+1 {{a model output is i8 data: decode it (codec.decode) before returning it}}
  %1 = codec.observe %0 for <1 : f32 -> i8> {scale = 1.0 : f32} : tensor<1x8xf32>
  return %1 : tensor<1x8xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x4xf32> {
  %w = nn.constant dense<0.5> : tensor<4x8xf32>
  %0 = codec.encode %x to <1 : f32 -> i8> : tensor<1x8xf32>
  %1 = codec.observe %0 for <1 : f32 -> i8> {scale = 1.0 : f32} : tensor<1x8xf32>
  // expected-error @+1 {{'nn.linear' op reads encoded data but its weight is not encoded}}
  %2 = nn.linear %1, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  %3 = codec.decode %2 from <3 : f32 -> i32> : tensor<1x4xf32>
  return %3 : tensor<1x4xf32>
}

// -----

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  // expected-error @+1 {{'codec.encode' op the PIM lowering encodes f32 data as i8 only, not 'f32' as 'i16'}}
  %0 = codec.encode %x to <1 : f32 -> i16> : tensor<1x8xf32>
  %1 = codec.observe %0 for <1 : f32 -> i16> {scale = 1.0 : f32} : tensor<1x8xf32>
  %2 = codec.decode %1 from <1 : f32 -> i16> : tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}
