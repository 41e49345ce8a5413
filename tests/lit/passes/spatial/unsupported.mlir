// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/../../../../python/raptor/spatial/targets/small.json

// Only nn ops become tasks: anything else is named, not skipped.
func.func @not_nn(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{compute graphs take nn ops and materialized codecs (codec.encode, decode, rescale, observe) only; this op is neither}}
  %y = arith.addf %x, %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Costs come from static shapes: a dynamic batch has no crossbar schedule.
func.func @dynamic_linear(%x: tensor<?x4xf32>, %w: tensor<3x4xf32> {nn.param = "w"}) -> tensor<?x3xf32> {
  // expected-error @+1 {{compute graphs need static shapes and a 2-d weight on nn.linear}}
  %y = nn.linear %x, %w : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// A shape whose element count overflows int64 is reported, not asserted on
// (fuzz repro K).
func.func @huge(%x: tensor<4x9223372036854775807xf32> {nn.input = "x"}) -> tensor<4x9223372036854775807xf32> {
  // expected-error @+1 {{result 0 of type tensor<4x9223372036854775807xf32> has more elements than int64 counts}}
  %0 = nn.relu %x : tensor<4x9223372036854775807xf32>
  return %0 : tensor<4x9223372036854775807xf32>
}
