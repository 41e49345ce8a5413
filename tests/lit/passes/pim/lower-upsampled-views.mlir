// An element-wise operator or a codec reading an upsampled view of a
// channels-last map writes a channels-last result: the upsampling's
// broadcast entries sit inside the pixel they repeat, so every vector
// instruction covers a pixel's 4 channels. (Sorted innermost, the
// broadcast entries gave a result whose channels are 4 elements apart, and
// one-element instructions: 64 of them for this 4 x 4 x 4 map; U-Net's
// int8 encoders ran 2.1x their cost.)
// RUN: %raptor-opt %s --split-input-file --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK:         pim.repeat 2 [{{r[0-9]+}} += 64] {
// CHECK-NEXT:      pim.repeat 2 [[[Y:r[0-9]+]] += 32, [[X:r[0-9]+]] += 16] {
// CHECK-NEXT:        pim.repeat 2 [[[Y]] += 16] {
// CHECK-NEXT:          pim.vrelu [[Y]], [[X]] len 4 : f32
// CHECK-NOT:     pim.vrelu
func.func @main(%x: tensor<1x4x2x2xf32> {nn.input = "x"}) -> tensor<1x4x4x4xf32> {
  %w = nn.constant dense<0.5> : tensor<4x4x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32> loc("conv")
  %1 = nn.upsample_nearest2d %0 {output_size = array<i64: 4, 4>} : (tensor<1x4x2x2xf32>) -> tensor<1x4x4x4xf32> loc("up")
  %2 = nn.relu %1 : tensor<1x4x4x4xf32> loc("relu")
  return %2 : tensor<1x4x4x4xf32>
}

// -----

// The encoder's codes are channels-last too, and the decoder after it one
// instruction over the whole map.
// CHECK-LABEL: pim.chip @main_chip
// CHECK:         pim.repeat 2 [[[Q:r[0-9]+]] += 8, [[X:r[0-9]+]] += 16] {
// CHECK-NEXT:      pim.repeat 2 [[[Q]] += 4] {
// CHECK-NEXT:        pim.sldi [[S:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:        pim.ext.vquant [[Q]], [[X]], [[S]] len 4 : i8
// CHECK-NOT:     pim.ext.vquant
// CHECK:         pim.ext.vdequant {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 64 : i8 {access = [#layout.layout<((2,2),(2,2),4,1):((4,8),(16,32),1,64)>
func.func @main(%x: tensor<1x4x2x2xf32> {nn.input = "x"}) -> tensor<1x4x4x4xf32> {
  %w = nn.constant dense<0.5> : tensor<4x4x1x1xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32> loc("conv")
  %1 = nn.upsample_nearest2d %0 {output_size = array<i64: 4, 4>} : (tensor<1x4x2x2xf32>) -> tensor<1x4x4x4xf32> loc("up")
  %2 = codec.encode %1 to <1 : f32 -> i8> : tensor<1x4x4x4xf32> loc("enc")
  %3 = codec.observe %2 for <1 : f32 -> i8> {scale = 5.000000e-01 : f32} : tensor<1x4x4x4xf32>
  %4 = codec.decode %3 from <1 : f32 -> i8> : tensor<1x4x4x4xf32> loc("dec")
  return %4 : tensor<1x4x4x4xf32>
}
