// A norm over more than 4096 elements sums pairwise (AttentionOps.cpp,
// kOrderedSumLimit): a dot product adds in order and loses about sqrt(n)
// ulps, 2.6e-5 of a group norm's output over 64 x 56 x 56 elements. Here
// 4101 elements: their halves into the scratch row (2050 pairs and the odd
// one out), then the scratch halved in place down to one sum, times 1/n,
// which is one constant where the ordered sum reads a row of them. The same
// for the sum of squares. (Within the limit: lower-rows.mlir.)
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK:      pim.data @{{c[0-9]+}} at {{[0-9]+}} dense<2.43842966E-4> : tensor<1xf32>
// CHECK:      pim.repeat 2 [[[X:r[0-9]+]] += 16404, [[Y:r[0-9]+]] += 16404] {
// CHECK-NOT:    pim.vvdmul
// CHECK:        pim.saddi [[H:r[0-9]+]], [[X]], 8200
// CHECK-NEXT:   pim.vvadd [[T:r[0-9]+]], [[X]], [[H]] len 2050 : f32
// CHECK-NEXT:   pim.saddi [[ODD:r[0-9]+]], [[X]], 16400
// CHECK-NEXT:   pim.vvadd [[T]], [[T]], [[ODD]] len 1 : f32
// CHECK-NEXT:   pim.saddi [[H:r[0-9]+]], [[T]], 4100
// CHECK-NEXT:   pim.vvadd [[T]], [[T]], [[H]] len 1025 : f32
// CHECK-NEXT:   pim.saddi [[H:r[0-9]+]], [[T]], 2048
// CHECK-NEXT:   pim.vvadd [[T]], [[T]], [[H]] len 512 : f32
// CHECK-NEXT:   pim.saddi [[ODD:r[0-9]+]], [[T]], 4096
// CHECK-NEXT:   pim.vvadd [[T]], [[T]], [[ODD]] len 1 : f32
// CHECK:        pim.vvadd [[T]], [[T]], {{r[0-9]+}} len 2 : f32
// CHECK-NEXT:   pim.saddi [[H:r[0-9]+]], [[T]], 4
// CHECK-NEXT:   pim.vvadd [[T]], [[T]], [[H]] len 1 : f32
// CHECK-NEXT:   pim.vvmul [[S:r[0-9]+]], [[T]], [[I:r[0-9]+]] len 1 : f32
// CHECK-NEXT:   pim.ext.vbcast [[T]], [[S]] len 4101 : f32
// CHECK-NEXT:   pim.vvsub [[Y]], [[X]], [[T]] len 4101 : f32
// CHECK-NEXT:   pim.vvmul [[T]], [[Y]], [[Y]] len 4101 : f32
// CHECK-NEXT:   pim.saddi [[H:r[0-9]+]], [[T]], 8200
// CHECK-NEXT:   pim.vvadd [[T]], [[T]], [[H]] len 2050 : f32
// CHECK:        pim.vvadd [[T]], [[T]], {{r[0-9]+}} len 2 : f32
// CHECK-NEXT:   pim.saddi [[H:r[0-9]+]], [[T]], 4
// CHECK-NEXT:   pim.vvadd [[T]], [[T]], [[H]] len 1 : f32
// CHECK-NEXT:   pim.vvmul [[S]], [[T]], [[I]] len 1 : f32
// CHECK-NEXT:   pim.vvadd [[S]], [[S]], {{r[0-9]+}} len 1 : f32
// CHECK-NEXT:   pim.ext.vrsqrt [[S]], [[S]] len 1 : f32
// CHECK-NOT:    pim.vvdmul
// CHECK:      }

func.func @main(%x: tensor<2x4101xf32> {nn.input = "x"}) -> tensor<2x4101xf32> {
  %0 = nn.layer_norm %x {normalized_shape = array<i64: 4101>} : (tensor<2x4101xf32>) -> tensor<2x4101xf32> loc("norm")
  return %0 : tensor<2x4101xf32>
}
