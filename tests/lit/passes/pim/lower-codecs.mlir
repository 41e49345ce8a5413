// Materialized codecs become conversions at exactly their positions: the
// encoder of x an ext.vquant to i8 with 1 / scale (2.0, one multiplier), the int8 linear
// layer MVMs on i8 inputs summed in i32 (setbw 8, 32) with its bias in
// accumulator units, the decoder an ext.vdequant of the i32 sums by the
// input scale times each channel's weight scale, before the f32 relu.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// Weight codes per output channel: 0.5 is its channel's maximum, code 127,
// scale 0.5 / 127. The bias in units of 0.5 * 0.5 / 127: b * 508.
// CHECK-DAG:   pim.data @[[S:.*]] at {{[0-9]+}} dense<0.00196850393> : tensor<10xf32>
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[0, 508, 1016, 1524, 2032, 2540, 3048, 3556, 4064, 4572]> : tensor<10xi32>
// CHECK-DAG:   pim.weight @[[W:.*]] dense<1.270000e+02> : tensor<10x12xf32>
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<2.000000e+00> : tensor<1xf32>
// CHECK:       pim.core 0
// CHECK:         pim.setbw 32, 32
// CHECK:         pim.ext.vquant [[Q:r[0-9]+]], {{r[0-9]+}}, {{r[0-9]+}} len 12 : i8
// CHECK-NOT:     pim.ext.v
// CHECK:         pim.setbw 8, 32
// CHECK-NEXT:    pim.sldi
// CHECK-NEXT:    pim.mvmul [[Y:r[0-9]+]], [[Q]], group 0 mbiw 8
// The second row tile reads the 9th code: byte 8 of the i8 input.
// CHECK:         pim.mvmul [[P:r[0-9]+]], {{r[0-9]+}}, group 1 mbiw 8
// CHECK-NEXT:    pim.vvadd [[Y]], [[Y]], [[P]] len 10 : i32
// CHECK-NEXT:    pim.vvadd [[Y]], [[Y]], {{r[0-9]+}} len 10 : i32
// CHECK:         pim.ext.vdequant [[F:r[0-9]+]], [[Y]], {{r[0-9]+}} len 10 : i32
// CHECK-NEXT:    pim.vrelu {{r[0-9]+}}, [[F]] len 10 : f32
// CHECK-NOT:     pim.ext.v
// CHECK:         pim.st

func.func @main(%x: tensor<1x12xf32> {nn.input = "x"}) -> tensor<1x10xf32> {
  %w = nn.constant dense<0.5> : tensor<10x12xf32>
  %b = nn.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>
  %0 = codec.encode %x to <1 : f32 -> i8> : tensor<1x12xf32> loc("enc_x")
  %1 = codec.observe %0 for <1 : f32 -> i8> {scale = 5.000000e-01 : f32} : tensor<1x12xf32>
  %2 = codec.encode %w to <2 : f32 -> i8> : tensor<10x12xf32>
  %3 = codec.observe %2 for <2 : f32 -> i8> : tensor<10x12xf32>
  %4 = nn.linear %1, %3, %b : (tensor<1x12xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<1x10xf32> loc("fc")
  %5 = codec.observe %4 for <3 : f32 -> i32> : tensor<1x10xf32>
  %6 = codec.decode %5 from <3 : f32 -> i32> : tensor<1x10xf32> loc("dec_fc")
  %7 = nn.relu %6 : tensor<1x10xf32> loc("relu")
  return %7 : tensor<1x10xf32>
}
