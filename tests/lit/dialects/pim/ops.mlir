// Every pim op in its custom form, printed back the same; and the generic
// form parses to the same program.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

// CHECK-LABEL: pim.chip @m cores 4 crossbars 8 of [128, 128] memory 65536 {
pim.chip @m cores 4 crossbars 8 of [128, 128] memory 65536 {
  // CHECK: pim.weight @w dense<1.000000e+00> : tensor<64x32xf32>
  pim.weight @w dense<1.0> : tensor<64x32xf32>
  // CHECK: pim.data @c at 256 dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  pim.data @c at 256 dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: pim.io @x "input" name "x" at 0 : tensor<1x32xf32> layout #layout.layout<(32,1):(1,32)>
  pim.io @x "input" name "x" at 0 : tensor<1x32xf32> layout #layout.layout<(32,1):(1,32)>
  // CHECK: pim.io @ids "input" name "ids" at 128 : tensor<1x8xi32> layout #layout.layout<(8,1):(1,8)> {vocabulary = 500 : i64}
  pim.io @ids "input" name "ids" at 128 : tensor<1x8xi32> layout #layout.layout<(8,1):(1,8)> {vocabulary = 500 : i64}
  // CHECK: pim.io @y "output" name "out0" at 128 : tensor<1x64xf32> layout #layout.layout<(64,1):(1,64)>
  pim.io @y "output" name "out0" at 128 : tensor<1x64xf32> layout #layout.layout<(64,1):(1,64)>
  // CHECK: pim.core 0 {
  pim.core 0 {
    // CHECK-NEXT: pim.group 0 crossbars 1 weight @w matrix #layout.layout<(32,64):(1,32)> rows [0, 32] cols [0, 64]
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(32,64):(1,32)> rows [0, 32] cols [0, 64]
    // CHECK-NEXT: pim.setbw 32, 32
    pim.setbw 32, 32
    // CHECK-NEXT: pim.nop
    pim.nop
    // CHECK-NEXT: pim.sldi r2, 1024
    pim.sldi r2, 1024
    // CHECK-NEXT: pim.sld r3, r2
    pim.sld r3, r2
    // CHECK-NEXT: pim.sadd r4, r2, r3
    pim.sadd r4, r2, r3
    // CHECK-NEXT: pim.ssub r4, r2, r3
    pim.ssub r4, r2, r3
    // CHECK-NEXT: pim.smul r4, r2, r3
    pim.smul r4, r2, r3
    // CHECK-NEXT: pim.saddi r4, r2, -16
    pim.saddi r4, r2, -16
    // CHECK-NEXT: pim.smuli r4, r2, 3
    pim.smuli r4, r2, 3
    // CHECK-NEXT: pim.sldi r5, 0
    pim.sldi r5, 0
    // CHECK-NEXT: pim.repeat 4 [r2 += 512, r5 += -4] {
    pim.repeat 4 [r2 += 512, r5 += -4] {
      // CHECK-NEXT: pim.mvmul r2, r2, group 0 mbiw 8 {relu = true}
      pim.mvmul r2, r2, group 0 mbiw 8 {relu = true}
      // CHECK-NEXT: pim.repeat 2 [] {
      pim.repeat 2 [] {
        // CHECK-NEXT: pim.vrelu r2, r2 len 16 : f32
        pim.vrelu r2, r2 len 16 : f32
      }
    }
    // CHECK: pim.vvadd r2, r2, r2 len 8 : f32
    pim.vvadd r2, r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vvsub r2, r2, r2 len 8 : f32
    pim.vvsub r2, r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vvmul r2, r2, r2 len 8 : f32
    pim.vvmul r2, r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vvdmul r2, r2, r2 len 8 : f32
    pim.vvdmul r2, r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vvmax r2, r2, r2 len 8 : f32
    pim.vvmax r2, r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vvsll r2, r2, r2 len 8 : i32
    pim.vvsll r2, r2, r2 len 8 : i32
    // CHECK-NEXT: pim.vvsra r2, r2, r2 len 8 : i32
    pim.vvsra r2, r2, r2 len 8 : i32
    // CHECK-NEXT: pim.vrsu r2, r2, r2 len 8 : i8
    pim.vrsu r2, r2, r2 len 8 : i8
    // CHECK-NEXT: pim.vrsl r2, r2, r2 len 8 : i16
    pim.vrsl r2, r2, r2 len 8 : i16
    // CHECK-NEXT: pim.vavg r2, r2 len 8 : f32
    pim.vavg r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vtanh r2, r2 len 8 : f32
    pim.vtanh r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vsigm r2, r2 len 8 : f32
    pim.vsigm r2, r2 len 8 : f32
    // CHECK-NEXT: pim.vmv r2, r2 len 8 : f32
    pim.vmv r2, r2 len 8 : f32
    // Conversions: sign-extended i8 to i32, i32 narrowed to i8.
    // CHECK-NEXT: pim.vmv r2, r3 len 8 from i8 : i32
    pim.vmv r2, r3 len 8 from i8 : i32
    // CHECK-NEXT: pim.vmv r2, r3 len 8 from i32 : i8
    pim.vmv r2, r3 len 8 from i32 : i8
    // CHECK-NEXT: pim.ext.vexp r2, r2 len 8 : f32
    pim.ext.vexp r2, r2 len 8 : f32
    // CHECK-NEXT: pim.ext.vrsqrt r2, r2 len 8 : f32
    pim.ext.vrsqrt r2, r2 len 8 : f32
    // CHECK-NEXT: pim.ext.verf r2, r2 len 8 : f32
    pim.ext.verf r2, r2 len 8 : f32
    // CHECK-NEXT: pim.ext.vlog1p r2, r2 len 8 : f32
    pim.ext.vlog1p r2, r2 len 8 : f32
    // CHECK-NEXT: pim.ext.vredmax r2, r2 len 8 : f32
    pim.ext.vredmax r2, r2 len 8 : f32
    // CHECK-NEXT: pim.ext.vbcast r2, r2 len 8 : f32
    pim.ext.vbcast r2, r2 len 8 : f32
    // CHECK-NEXT: pim.ext.vvdiv r2, r2, r2 len 8 : f32
    pim.ext.vvdiv r2, r2, r2 len 8 : f32
    // CHECK-NEXT: pim.ext.vmatvec r2, r2, r2 rows 4 len 8 : f32
    pim.ext.vmatvec r2, r2, r2 rows 4 len 8 : f32
    // CHECK-NEXT: pim.ext.vvecmat r2, r2, r2 rows 4 len 8 : f32
    pim.ext.vvecmat r2, r2, r2 rows 4 len 8 : f32
    // CHECK-NEXT: pim.sldi r0, 0
    pim.sldi r0, 0
    // CHECK-NEXT: pim.ld r2, r0 size 64
    pim.ld r2, r0 size 64
    // CHECK-NEXT: pim.st r0, r2 size 64
    pim.st r0, r2 size 64
    // CHECK-NEXT: pim.lldi r2, 254 len 64
    pim.lldi r2, 254 len 64
    // CHECK-NEXT: pim.lmv r2, r2 len 0
    pim.lmv r2, r2 len 0
    // CHECK-NEXT: pim.send r2 to 1 size 64 tag 7
    pim.send r2 to 1 size 64 tag 7
    // CHECK-NEXT: pim.sync 1 event 3
    pim.sync 1 event 3
    // CHECK-NEXT: pim.wait event 0 value 2
    pim.wait event 0 value 2
  }
  // CHECK: pim.core 1 {
  pim.core 1 {
    pim.sldi r4, 0
    // CHECK: pim.recv r4 from 0 size 64 tag 7
    pim.recv r4 from 0 size 64 tag 7
  }
}
