// An offset encoding (zero point -127, data a ReLU made non-negative) and a
// W-policy max pooling of codes: the encoder adds the zero point before
// rounding, the convolution pads with the code of 0 (-127: byte 129) and
// removes the zero point through its bias (127 x the sum of each channel's
// codes: 127 x 18 x 127 = 290322, once per output of the 4 positions its
// packed last row tile serves), max pooling compares i8 codes, and the
// decoder of codes scales and adds 127 x scale (31.75).
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// A task's constants arrive in one load (the decoder's scale and offset).
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[{{(2\.500000e-01, ){8}(3\.175000e\+01, ){7}3\.175000e\+01}}]> : tensor<16xf32>
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<290322> : tensor<8xi32>
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<9.842520e-04> : tensor<32xf32>
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[{{([-0-9.e+]+, ){32}(-1\.270000e\+02, ){32}1\.000000e\+00}}]> : tensor<65xf32>
// CHECK:       pim.core 0
// CHECK:         pim.vrelu
// CHECK:         pim.vvmul [[T:r[0-9]+]], {{r[0-9]+}}, {{r[0-9]+}} len 32 : f32
// CHECK:         pim.vvadd [[T]], [[T]], {{r[0-9]+}} len 32 : f32
// CHECK:         pim.ext.vquant {{r[0-9]+}}, [[T]], {{r[0-9]+}} len 32 : i8
// CHECK:         pim.lldi {{r[0-9]+}}, 129 len 72
// CHECK:         pim.setbw 8, 32
// CHECK:         pim.mvmul
// CHECK:         pim.ext.vdequant {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 32 : i32
// CHECK:         pim.ext.vquant {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 32 : i8
// CHECK:         pim.vvmax {{.*}} len 2 : i8
// CHECK:         pim.ext.vdequant [[Y:r[0-9]+]], {{r[0-9]+}}, {{r[0-9]+}} len 8 : i8
// CHECK:         pim.vvadd [[Y]], [[Y]], {{r[0-9]+}} len 8 : f32
// CHECK:         pim.st

func.func @main(%x: tensor<1x2x4x4xf32> {nn.input = "x"}) -> tensor<1x2x2x2xf32> {
  %w = nn.constant dense<0.25> : tensor<2x2x3x3xf32>
  %r = nn.relu %x : tensor<1x2x4x4xf32> loc("relu")
  %0 = codec.encode %r to <1 : f32 -> i8> : tensor<1x2x4x4xf32> loc("enc")
  %1 = codec.observe %0 for <1 : f32 -> i8> {scale = 0.5 : f32, zero_point = -127 : i32} : tensor<1x2x4x4xf32>
  %2 = codec.encode %w to <2 : f32 -> i8> : tensor<2x2x3x3xf32>
  %3 = codec.observe %2 for <2 : f32 -> i8> : tensor<2x2x3x3xf32>
  %4 = nn.convolution %1, %3 {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %5 = codec.observe %4 for <3 : f32 -> i32> : tensor<1x2x4x4xf32>
  %6 = codec.decode %5 from <3 : f32 -> i32> : tensor<1x2x4x4xf32> loc("dec")
  %7 = codec.encode %6 to <4 : f32 -> i8> : tensor<1x2x4x4xf32> loc("enc2")
  %out, %idx = nn.max_pool2d %7 {kernel_size = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) loc("pool")
  %8 = codec.observe %out for <4 : f32 -> i8> {scale = 0.25 : f32, zero_point = -127 : i32} : tensor<1x2x2x2xf32>
  %9 = codec.decode %8 from <4 : f32 -> i8> : tensor<1x2x2x2xf32> loc("dec2")
  return %9 : tensor<1x2x2x2xf32>
}
