// Shapes whose sizes overflow int64 are diagnosed, not asserted on or
// wrapped (fuzz repros G, G2, H, I, J in ../shared/data/fuzz-repros).
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @kv_cache(%k: tensor<1x8x4x64xf16>) {
  // expected-error @+2 {{past_length 9223372036854775807 plus 4 new positions overflows int64}}
  // expected-error @+1 {{'nn.kv_cache' op failed to infer returned types}}
  %0:2 = nn.kv_cache %k, %k {past_length = 9223372036854775807} : (tensor<1x8x4x64xf16>, tensor<1x8x4x64xf16>) -> (tensor<1x8x4x64xf16>, tensor<1x8x4x64xf16>)
  return
}

// -----

// Near miss: the largest past_length whose dimension still fits passes the
// op's verifier (its element count fits too); its bytes do not, which
// raptor-opt's screen of every type (raptor-verify-tensor-sizes, before any
// pass) reports.
func.func @kv_cache_fits(%k: tensor<1x1x1x1xf32>) -> tensor<1x1x9223372036854775807x1xf32> {
  // expected-error @+1 {{result 0 of type tensor<1x1x9223372036854775807x1xf32> has more elements than int64 counts}}
  %0:2 = nn.kv_cache %k, %k {past_length = 9223372036854775806} : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x1x9223372036854775807x1xf32>, tensor<1x1x9223372036854775807x1xf32>)
  return %0#0 : tensor<1x1x9223372036854775807x1xf32>
}

// -----

// The dimension fits, the element count of the inferred result does not.
func.func @kv_cache_count(%k: tensor<1x8x1x64xf32>) {
  // expected-error @+2 {{inferred result shape [1, 8, 9223372036854775807, 64] has a negative size or more elements than int64 counts}}
  // expected-error @+1 {{'nn.kv_cache' op failed to infer returned types}}
  %0:2 = nn.kv_cache %k, %k {past_length = 9223372036854775806} : (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>) -> (tensor<1x8x9223372036854775807x64xf32>, tensor<1x8x9223372036854775807x64xf32>)
  return
}

// -----

// A concatenation whose summed dimension overflows (fuzz: an ONNX Concat of
// an input of 2^63 - 1 columns with itself aborted the importer).
func.func @cat(%x: tensor<1x9223372036854775807xf32>) {
  // expected-error @+2 {{cat along dim 1 of 'tensor<1x9223372036854775807xf32>' and 'tensor<1x9223372036854775807xf32>' overflows int64}}
  // expected-error @+1 {{'nn.cat' op failed to infer returned types}}
  %0 = nn.cat %x, %x {dim = 1} : (tensor<1x9223372036854775807xf32>, tensor<1x9223372036854775807xf32>) -> tensor<1x9223372036854775807xf32>
  return
}

// -----

func.func @fan_out(%x: tensor<1x8x16x64xf32>) {
  // expected-error @+2 {{repeats = 9223372036854775807 of 8 overflows int64}}
  // expected-error @+1 {{'nn.fan_out' op failed to infer returned types}}
  %0 = nn.fan_out %x {repeats = 9223372036854775807, dim = 1} : (tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
  return
}

// -----

func.func @view(%x: tensor<1x1x8xf32>) {
  // expected-error @+2 {{view sizes [1, 2, 9223372036854775807, -1] overflow int64}}
  // expected-error @+1 {{'nn.view' op failed to infer returned types}}
  %0 = nn.view %x {size = array<i64: 1, 2, 9223372036854775807, -1>} : (tensor<1x1x8xf32>) -> tensor<1x2x1x4xf32>
  return
}

// -----

func.func @groups(%gx: tensor<1x4x5x5xf32>, %gw: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{groups = 4611686018427387904 times 3 weight channels overflows int64}}
  // expected-error @+1 {{'nn.convolution' op failed to infer returned types}}
  %0 = nn.convolution %gx, %gw {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, groups = 4611686018427387904} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
  return
}
