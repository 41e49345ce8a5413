// A model input lies in global memory channels-last when an image operator
// reads it, directly or through the codecs that encode it (which keep its
// order): the int8 convolution's padded rows are then copied in runs of a
// whole row (W x C codes), not one local move per element, which a
// row-major input needed (one lmv per pixel and channel: 72,616 per copy
// of ShuffleNetV2's stem). A model input no image operator reads stays
// row-major.
// RUN: %raptor-opt %s --split-input-file --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// (1, C=3, H=4, W=5) channels-last: C stride 1, W stride 3, H stride 15.
// CHECK:       pim.io @in_x "input" name "x" at {{[0-9]+}} : tensor<1x3x4x5xf32> layout #layout.layout<(5,4,3,1):(3,15,1,60)>
// The encoder runs over the whole input at once, in its order.
// CHECK:       pim.ext.vquant {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 60 : i8
// CHECK-NOT:   pim.lmv {{.*}} len 1{{$}}
// CHECK:       pim.mvmul
func.func @encoded(%x: tensor<1x3x4x5xf32> {nn.input = "x"}) -> tensor<1x2x4x5xf32> {
  %w = nn.constant dense<0.25> : tensor<2x3x3x3xf32>
  %0 = codec.encode %x to <1 : f32 -> i8> : tensor<1x3x4x5xf32> loc("enc")
  %1 = codec.observe %0 for <1 : f32 -> i8> {scale = 0.5 : f32} : tensor<1x3x4x5xf32>
  %2 = codec.encode %w to <2 : f32 -> i8> : tensor<2x3x3x3xf32>
  %3 = codec.observe %2 for <2 : f32 -> i8> : tensor<2x3x3x3xf32>
  %4 = nn.convolution %1, %3 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x4x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x4x5xf32> loc("conv")
  %5 = codec.observe %4 for <3 : f32 -> i32> : tensor<1x2x4x5xf32>
  %6 = codec.decode %5 from <3 : f32 -> i32> : tensor<1x2x4x5xf32> loc("dec")
  return %6 : tensor<1x2x4x5xf32>
}

// -----

// CHECK:       pim.io @in_x "input" name "x" at {{[0-9]+}} : tensor<1x3x4x5xf32> layout #layout.layout<(5,4,3,1):(1,5,20,60)>
func.func @not_an_image(%x: tensor<1x3x4x5xf32> {nn.input = "x"}) -> tensor<1x3x4x5xf32> {
  %0 = codec.encode %x to <1 : f32 -> i8> : tensor<1x3x4x5xf32> loc("enc")
  %1 = codec.observe %0 for <1 : f32 -> i8> {scale = 0.5 : f32} : tensor<1x3x4x5xf32>
  %2 = codec.decode %1 from <1 : f32 -> i8> : tensor<1x3x4x5xf32> loc("dec")
  %3 = nn.relu %2 : tensor<1x3x4x5xf32> loc("relu")
  return %3 : tensor<1x3x4x5xf32>
}
