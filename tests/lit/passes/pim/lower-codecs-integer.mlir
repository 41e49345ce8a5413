// An integer-only int8 program (`raptor.fixed_point_bits` F = 16 on the
// function): pimsim-nn's instructions alone, no f32 anywhere. The input
// arrives as int32 fixed point (x 2^16); the encoder multiplies it by
// 2^-16 / 0.5 = 2^-15 (fixed multiplier 2^29 = high 16384, low 0, shift
// 44: the term lo * low is dropped at shift >= 31), rounds, clamps to
// [-127, 127] and narrows to i8; the int8 linear layer MVMs as in float
// programs; the decoder multiplies its sums by 0.5 * (0.5 / 127) * 2^16
// into fixed point, and the relu runs on int32. Every vector instruction
// is preceded by the setbw of its widths (pimsim-nn's forms carry no types).
// RUN: %raptor-opt %s --mlir-print-elementsattrs-with-hex-if-larger=4096 --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK:       pim.chip
// CHECK-SAME:    fixed_point_bits = 16
// CHECK-DAG:   pim.io @in_x "input" name "x" at {{[0-9]+}} : tensor<1x12xi32>
// CHECK-DAG:   pim.io @out0 "output" name "out0" at {{[0-9]+}} : tensor<1x10xi32>
// (Each task's constants arrive in one load.)
// CHECK-DAG:   pim.data @{{.*}} dense<[{{(16, ){12}(0, ){12}(16384, ){12}.*}}]> : tensor<108xi32>
// The decoder's high half: 0.5 * (0.5 / 127) (in f32) * 2^16 = 129.00787
// times 2^22 is 541098240, whose bits above the 15th are 16513.
// CHECK-DAG:   pim.data @{{.*}} dense<[{{(16, ){10}(256, ){10}(16513, ){10}.*}}]> : tensor<100xi32>
// CHECK-NOT:   ext.v
// CHECK:       pim.core 0
// The encoder: hi = x >> 16, lo = x - (hi << 16), the products, the terms
// to the unit 2^-31, the final rounding shift by 13, the clamp, the narrowing.
// CHECK:         pim.setbw 32, 32
// CHECK:         pim.vvsra {{.*}} len 12 : i32
// CHECK:         pim.vvsll {{.*}} len 12 : i32
// CHECK-NEXT:    pim.vvsub {{.*}} len 12 : i32
// CHECK:         pim.vvmax {{.*}} len 12 : i32
// CHECK:         pim.setbw 32, 8
// CHECK:         pim.vmv [[Q:r[0-9]+]], {{r[0-9]+}} len 12 from i32 : i8
// CHECK:         pim.setbw 8, 32
// CHECK-NEXT:    pim.sldi
// CHECK-NEXT:    pim.mvmul {{r[0-9]+}}, [[Q]], group 0 mbiw 8
// CHECK:         pim.setbw 32, 32
// CHECK-NEXT:    pim.vvadd {{.*}} len 10 : i32
// CHECK:         pim.vrelu {{.*}} len 10 : i32
// CHECK-NOT:     f32
// CHECK-NOT:     ext.v
// CHECK:         pim.st

func.func @main(%x: tensor<1x12xf32> {nn.input = "x"}) -> tensor<1x10xf32> attributes {raptor.fixed_point_bits = 16 : i64} {
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
