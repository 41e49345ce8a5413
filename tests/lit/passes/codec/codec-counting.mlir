// What each codec costs (policy W; every figure derived by hand in the
// comments: f32 elements read at 4 bytes, codes at 1).
// RUN: %raptor-opt %s --raptor-place-codecs="placement=nonlocal materialize=false" --raptor-report-codec-costs=format=json -o /dev/null | FileCheck %s --check-prefix=NL
// RUN: %raptor-opt %s --raptor-place-codecs="placement=local materialize=false" --raptor-report-codec-costs=format=json -o /dev/null | FileCheck %s --check-prefix=LOCAL
// RUN: %raptor-opt %s --raptor-place-codecs=placement=nonlocal | FileCheck %s --check-prefix=IR
// RUN: %raptor-opt %s --raptor-place-codecs=placement=nonlocal --raptor-expand-requantizers | FileCheck %s --check-prefix=EXPAND

// Two compatible encoded subgraphs meet at a cat: one requantizer per cat
// input, reading its 16 codes once (not a decode and an encode). Codecs:
// encoders of x1, x2 (64 + 64 bytes, 32 items), requantizers (16 + 16,
// 32 items), decoders of the cat (32 codes) and of r3 (16 codes).
// NL:      "codec_items": 112,
// NL:      "codec_traffic_bytes": 208,
// NL:      "decoders": 2,
// NL:      "encoders": 2,
// NL:      "function": "requantized",
// NL:      "requantizers": 2,
// IR-LABEL: func.func @requantized
// IR:       codec.requantize %{{.*}} from <[[A:[0-9]+]] : f32 -> i8> to <[[C:[0-9]+]] : f32 -> i8>
// IR-NEXT:  codec.requantize %{{.*}} from <{{[0-9]+}} : f32 -> i8> to <[[C]] : f32 -> i8>
// IR-NEXT:  nn.cat
// EXPAND-LABEL: func.func @requantized
// EXPAND:       %[[D:.*]] = codec.decode %{{.*}} from <[[A:[0-9]+]] : f32 -> i8>
// EXPAND-NEXT:  codec.encode %[[D]] to <[[C:[0-9]+]] : f32 -> i8>
// EXPAND-NOT:   codec.requantize
func.func @requantized(%x1: tensor<2x8xf32> {nn.input = "x1"}, %x2: tensor<2x8xf32> {nn.input = "x2"})
    -> (tensor<32xf32>, tensor<16xf32>) {
  %r1 = nn.view %x1 {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %r2 = nn.view %x2 {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %c = nn.cat %r1, %r2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %r3 = nn.view %r2 {size = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  return %c, %r3 : tensor<32xf32>, tensor<16xf32>
}

// One value read twice by an fp32 operator: one decoder (16 codes), not
// two. Operators: view 16 codes, mul 2 x 64 bytes; codecs: encoder 64 +
// decoder 16 bytes, 32 items.
// NL:      "codec_items": 32,
// NL:      "codec_traffic_bytes": 80,
// NL:      "decoders": 1,
// NL:      "encoders": 1,
// NL:      "function": "read_twice",
// NL:      "operator_traffic_bytes": 144,
// IR-LABEL: func.func @read_twice
// IR:       %[[D:.*]] = codec.decode
// IR-NEXT:  nn.mul %[[D]], %[[D]]
func.func @read_twice(%x: tensor<2x8xf32> {nn.input = "x"}) -> tensor<16xf32> {
  %v = nn.view %x {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %m = nn.mul %v, %v : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %m : tensor<16xf32>
}

// A sum read by an fp32 operator and, re-encoded, by an INT8 one is
// decoded once (found on torchvision's MobileNetV3, a projection read by
// its residual add and the next block): encoder of x (64 bytes), decoder
// of the i32 sums (64), encoder of the decoded sums (64), decoder of the
// returned view (16 codes); 16 items each. Operators: linear 16 + 64 codes,
// view 16 codes, add 2 x 64 bytes.
// NL:      "codec_items": 64,
// NL:      "codec_traffic_bytes": 208,
// NL:      "decoders": 2,
// NL:      "encoders": 2,
// NL:      "function": "decoded_once",
// NL:      "operator_traffic_bytes": 224,
// IR-LABEL: func.func @decoded_once
// IR:       %[[D:.*]] = codec.decode %{{.*}} from <{{[0-9]+}} : f32 -> i32>
// IR-NEXT:  %[[E:.*]] = codec.encode %[[D]] to <{{[0-9]+}} : f32 -> i8>
// IR-NEXT:  nn.view %[[E]]
// IR-NEXT:  nn.add %[[D]], %arg0
// IR-NOT:   from <{{[0-9]+}} : f32 -> i32>
// IR:       return
func.func @decoded_once(%x: tensor<2x8xf32> {nn.input = "x"}, %w: tensor<8x8xf32> {nn.param = "w"})
    -> (tensor<16xf32>, tensor<2x8xf32>) {
  %a = nn.linear %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %v = nn.view %a {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %r = nn.add %a, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %v, %r : tensor<16xf32>, tensor<2x8xf32>
}

// A constant (a RoPE table) and its view are known before run time, like
// weights: their codecs run ahead of time and cost nothing at run time;
// the operators' reads remain (view: 16 codes; mul: 2 x 64 bytes).
// NL:      "codec_items": 0,
// NL:      "codec_traffic_bytes": 0,
// NL:      "decoders": 0,
// NL:      "encoders": 0,
// NL:      "function": "table",
// NL:      "operator_traffic_bytes": 144,
func.func @table(%x: tensor<16xf32> {nn.input = "x"}) -> tensor<16xf32> {
  %c = nn.constant dense<1.0> : tensor<2x8xf32>
  %v = nn.view %c {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %m = nn.mul %v, %x : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %m : tensor<16xf32>
}

// An explicit fan-out moves no data: only its reader's reads count
// (mul: 2 x 64 bytes), and the two reads share one decoder.
// NL:      "codec_items": 32,
// NL:      "codec_traffic_bytes": 80,
// NL:      "decoders": 1,
// NL:      "encoders": 1,
// NL:      "function": "fanned",
// NL:      "operator_traffic_bytes": 128,
func.func @fanned(%x: tensor<16xf32> {nn.input = "x"}) -> tensor<16xf32> {
  %f = nn.fan_out %x {repeats = 1 : i64, dim = 0 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  %m = nn.mul %f, %f : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %m : tensor<16xf32>
}

// Local placement keeps a cat's port block (tensors[*] -> out): both
// inputs take the cat's one semantics, so the two encoders of %v are one.
// Codecs: view's encoder 64 and decoder 16, the cat's encoder 64 and
// decoder 32 bytes; items 16 + 16 + 16 + 32.
// LOCAL:   "function": "fanned",
// LOCAL:   "codec_items": 80,
// LOCAL:   "codec_traffic_bytes": 176,
// LOCAL:   "decoders": 2,
// LOCAL:   "encoders": 2,
// LOCAL:   "function": "cat_twice",
func.func @cat_twice(%x: tensor<2x8xf32> {nn.input = "x"}) -> tensor<32xf32> {
  %r = nn.relu %x : tensor<2x8xf32>
  %v = nn.view %r {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %c = nn.cat %v, %v : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  return %c : tensor<32xf32>
}
