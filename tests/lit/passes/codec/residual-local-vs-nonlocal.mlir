// A residual block under policy W: conv -> view -> permute -> conv, plus a
// skip connection. Non-local placement keeps the data-layout chain encoded
// between the two convolutions; the local baseline decodes and re-encodes
// around every operator that needs encoded operands.
// RUN: %raptor-opt %s --raptor-place-codecs=placement=nonlocal-coalesced | FileCheck %s --check-prefix=NONLOCAL
// RUN: %raptor-opt %s --raptor-place-codecs=placement=local | FileCheck %s --check-prefix=LOCAL
// RUN: %raptor-opt %s --raptor-place-codecs="placement=nonlocal-coalesced materialize=false" --raptor-report-codec-costs=format=json -o /dev/null | FileCheck %s --check-prefix=COSTS-NL
// RUN: %raptor-opt %s --raptor-place-codecs="placement=local materialize=false" --raptor-report-codec-costs=format=json -o /dev/null | FileCheck %s --check-prefix=COSTS-L

// NONLOCAL-LABEL: func.func @block
// NONLOCAL:       nn.convolution
// The i32 accumulator is decoded and encoded once as i8 for the layout chain...
// NONLOCAL:       codec.decode {{.*}} from <{{[0-9]+}} : f32 -> i32>
// NONLOCAL-NEXT:  %[[E:.*]] = codec.encode {{.*}} to <[[S:[0-9]+]] : f32 -> i8>
// NONLOCAL-NEXT:  %[[V:.*]] = nn.view %[[E]]
// NONLOCAL-NEXT:  %[[P:.*]] = nn.permute %[[V]]
// ...which stays encoded into the second convolution, observed at the
// subgraph's absolute dominator (the marker in front of the convolution).
// NONLOCAL:       %[[O:.*]] = codec.observe %[[P]] for <[[S]] : f32 -> i8>
// NONLOCAL:       nn.convolution %[[O]]
// NONLOCAL-NEXT:  codec.observe
// NONLOCAL-NEXT:  codec.decode {{.*}} from <{{[0-9]+}} : f32 -> i32>
// NONLOCAL-NEXT:  nn.add

// Each layout operator's block (self -> out) is one subgraph of its own:
// encoded in front, observed and decoded behind.
// LOCAL-LABEL: func.func @block
// LOCAL:       codec.decode %{{.*}} from <{{[0-9]+}} : f32 -> i32>
// LOCAL-NEXT:  %[[EV:.*]] = codec.encode %{{.*}} to <[[SV:[0-9]+]] : f32 -> i8>
// LOCAL-NEXT:  nn.view %[[EV]]
// LOCAL-NEXT:  codec.observe %{{.*}} for <[[SV]] : f32 -> i8>
// LOCAL-NEXT:  codec.decode %{{.*}} from <[[SV]] : f32 -> i8>
// LOCAL-NEXT:  %[[EP:.*]] = codec.encode %{{.*}} to <[[SP:[0-9]+]] : f32 -> i8>
// LOCAL-NEXT:  nn.permute %[[EP]]
// LOCAL-NEXT:  codec.observe %{{.*}} for <[[SP]] : f32 -> i8>
// LOCAL-NEXT:  codec.decode %{{.*}} from <[[SP]] : f32 -> i8>
// LOCAL-NEXT:  codec.encode

// Weights are encoded ahead of time and not counted as codecs.
// COSTS-NL: "decoders": 2
// COSTS-NL: "encoders": 2
// COSTS-L:  "decoders": 4
// COSTS-L:  "encoders": 4

func.func @block(%x: tensor<1x4x8x8xf32> {nn.input = "x"},
                 %w1: tensor<4x4x3x3xf32> {nn.param = "conv1.weight"},
                 %w2: tensor<4x4x3x3xf32> {nn.param = "conv2.weight"}) -> tensor<1x4x8x8xf32> {
  %c1 = nn.convolution %x, %w1 {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>}
      : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %v = nn.view %c1 {size = array<i64: 1, 4, 8, 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = nn.permute %v {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = nn.convolution %p, %w2 {stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>}
      : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %r = nn.add %c2, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
