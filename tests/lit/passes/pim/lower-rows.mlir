// Row-wise operators: a loop over the rows (8 of 8 elements here) whose body
// is the operator's instruction sequence, with Raptor's extensions where
// pimsim-nn has none. Scratch and constants are set up once, before the loop.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// The input and output stay row-major: no copy.
// CHECK:      pim.io @in_x "input" name "x" at 0 : tensor<1x2x4x8xf32> layout #layout.layout<(8,4,2,1):(1,8,32,64)>
// CHECK:      pim.io @out0 "output" name "out0" at {{[0-9]+}} : tensor<1x2x4x8xf32> layout #layout.layout<(8,4,2,1):(1,8,32,64)>
// Layer norm: mean (dot with 1/n), centre, variance, rsqrt, scale, shift.
// CHECK:      pim.repeat 8 [[[X:r[0-9]+]] += 32, [[Y:r[0-9]+]] += 32] {
// CHECK-NEXT:   pim.vvdmul [[S:r[0-9]+]], [[X]], [[INV:r[0-9]+]] len 8 : f32
// CHECK-NEXT:   pim.ext.vbcast [[T:r[0-9]+]], [[S]] len 8 : f32
// CHECK-NEXT:   pim.vvsub [[Y]], [[X]], [[T]] len 8 : f32
// CHECK-NEXT:   pim.vvdmul [[S]], [[Y]], [[Y]] len 8 : f32
// CHECK-NEXT:   pim.vvmul [[S]], [[S]], [[INV]] len 1 : f32
// CHECK-NEXT:   pim.vvadd [[S]], [[S]], {{r[0-9]+}} len 1 : f32
// CHECK-NEXT:   pim.ext.vrsqrt [[S]], [[S]] len 1 : f32
// CHECK-NEXT:   pim.ext.vbcast [[T]], [[S]] len 8 : f32
// CHECK-NEXT:   pim.vvmul [[Y]], [[Y]], [[T]] len 8 : f32
// CHECK-NEXT:   pim.vvmul [[Y]], [[Y]], {{r[0-9]+}} len 8 : f32
// CHECK-NEXT:   pim.vvadd [[Y]], [[Y]], {{r[0-9]+}} len 8 : f32
// CHECK-NEXT: }
// Softmax: max, subtract, exp, sum (dot with ones), divide.
// CHECK:      pim.repeat 8
// CHECK-NEXT:   pim.ext.vredmax
// CHECK-NEXT:   pim.ext.vbcast
// CHECK-NEXT:   pim.vvsub
// CHECK-NEXT:   pim.ext.vexp
// CHECK-NEXT:   pim.vvdmul
// CHECK-NEXT:   pim.ext.vbcast
// CHECK-NEXT:   pim.ext.vvdiv
// CHECK-NEXT: }
// Causal attention over (batch, key head, query head of the group, row):
// scores = K q (4 keys of 8), scaled, masked, softmax, out = p^T V.
// CHECK:      pim.repeat 2 [{{.*}}] {
// CHECK-NEXT:   pim.repeat 4 [{{.*}}] {
// CHECK-NEXT:     pim.ext.vmatvec [[P:r[0-9]+]], [[K:r[0-9]+]], [[Q:r[0-9]+]] rows 4 len 8 : f32
// CHECK-NEXT:     pim.vvmul [[P]], [[P]], {{r[0-9]+}} len 4 : f32
// CHECK-NEXT:     pim.vvadd [[P]], [[P]], [[MASK:r[0-9]+]] len 4 : f32
// CHECK:          pim.ext.vvecmat {{r[0-9]+}}, [[K]], [[P]] rows 4 len 8 : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: pim.sldi r1,
// CHECK-NEXT: pim.sldi [[R:r[0-9]+]],
// CHECK-NEXT: pim.st r0, [[R]] size 256

func.func @main(%x: tensor<1x2x4x8xf32> {nn.input = "x"}) -> tensor<1x2x4x8xf32> {
  %g = nn.constant dense<2.0> : tensor<8xf32>
  %b = nn.constant dense<0.5> : tensor<8xf32>
  %0 = nn.layer_norm %x weight %g bias %b {normalized_shape = array<i64: 8>, eps = 1.0e-5 : f64} : (tensor<1x2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x2x4x8xf32> loc("ln")
  %1 = nn.softmax %0 {dim = -1 : i64} : tensor<1x2x4x8xf32> loc("softmax")
  %2 = nn.scaled_dot_product_attention %1, %1, %1 {is_causal = true} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> loc("sdpa")
  return %2 : tensor<1x2x4x8xf32>
}
