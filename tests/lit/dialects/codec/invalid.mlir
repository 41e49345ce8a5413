// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @input_marker_identity(%x: tensor<4xf32>) {
  // expected-error @+1 {{'port_in' must be an identity semantics (source = target), got #codec.sem<1 : f32 -> i8>}}
  %0 = codec.mark_input %x ports(<1 : f32 -> i8>, <2 : f32 -> i8>) : tensor<4xf32>
  return
}

// -----

func.func @output_marker_identity(%x: tensor<4xf32>) {
  // expected-error @+1 {{'port_out' must be an identity semantics (source = target), got #codec.sem<2 : f32 -> i8>}}
  %0 = codec.mark_output %x ports(<1 : f32 -> i8>, <2 : f32 -> i8>) : tensor<4xf32>
  return
}

// -----

func.func @wrong_source(%x: tensor<4xf32>) {
  // expected-error @+1 {{port semantics must have the tensor's element type 'f32' as source}}
  %0 = codec.mark_input %x ports(<1 : f16 -> f16>, <2 : f16 -> i8>) : tensor<4xf32>
  return
}

// -----

func.func @same_ids(%x: tensor<4xf32>) {
  // expected-error @+1 {{port semantics need distinct ids}}
  %0 = codec.mark_input %x ports(<1 : f32 -> f32>, <1 : f32 -> i8>) : tensor<4xf32>
  return
}

// -----

func.func @dominator_of(%x: tensor<4xf32>) {
  // expected-error @+1 {{'codec.dominator_of' must be an array<i64: ...> of subgraph ids}}
  %0 = codec.encode %x to <1 : f32 -> i8> {codec.dominator_of = 3} : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'codec.policy' must be one of "Z", "Y", "X", "W", "local"}}
func.func @policy() attributes {codec.policy = "V"} {
  return
}

// -----

// expected-error @+1 {{unknown codec attribute 'codec.colour'}}
func.func @unknown(%x: tensor<4xf32> {codec.colour = 1}) {
  return
}

// -----

func.func @types(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "codec.encode"(%x) <{semantics = #codec.sem<1 : f32 -> i8>}> : (tensor<4xf32>) -> tensor<4xi8>
  return
}

// -----

func.func @requantize_decoded(%x: tensor<4xf32>) {
  // expected-error @+1 {{maps codes to codes: both semantics must be encoded, got #codec.sem<1 : f32 -> f32> and #codec.sem<2 : f32 -> i8>}}
  %0 = codec.requantize %x from <1 : f32 -> f32> to <2 : f32 -> i8> : tensor<4xf32>
  return
}

// -----

func.func @requantize_incompatible(%x: tensor<4xf32>) {
  // expected-error @+1 {{needs compatible semantics (the same source and target types), got #codec.sem<1 : f32 -> i32> and #codec.sem<2 : f32 -> i8>; a decode and an encode convert between others}}
  %0 = codec.requantize %x from <1 : f32 -> i32> to <2 : f32 -> i8> : tensor<4xf32>
  return
}

// -----

func.func @requantize_itself(%x: tensor<4xf32>) {
  // expected-error @+1 {{maps a subgraph onto itself (semantics 3 on both sides)}}
  %0 = codec.requantize %x from <3 : f32 -> i8> to <3 : f32 -> i8> : tensor<4xf32>
  return
}

// -----

func.func @rescale_codes(%x: tensor<4xf32>) {
  // expected-error @+1 {{reads the int32 sums of an int8 matrix operator (f32 -> i32), not #codec.sem<1 : f32 -> i8>}}
  %0 = codec.rescale %x from <1 : f32 -> i8> to <2 : f32 -> i8> : tensor<4xf32>
  return
}

// -----

func.func @rescale_to_sums(%x: tensor<4xf32>) {
  // expected-error @+1 {{writes int8 codes (f32 -> i8), not #codec.sem<2 : f32 -> i32>}}
  %0 = codec.rescale %x from <1 : f32 -> i32> to <2 : f32 -> i32> : tensor<4xf32>
  return
}

// -----

func.func @rescale_empty(%x: tensor<4xf32>) {
  // expected-error @+1 {{clamps to an empty range [6.000000e+00, 0.000000e+00]}}
  %0 = codec.rescale %x from <1 : f32 -> i32> to <2 : f32 -> i8> min 6.0 max 0.0 : tensor<4xf32>
  return
}
