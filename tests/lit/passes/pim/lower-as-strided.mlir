// nn.as_strided reads its operand's row-major element sequence through its
// sizes and strides (the importer's form of a gather by a constant affine
// index: DeBERTa's relative positions). It is lowered as a copy into a
// row-major result: one repeated move per row, the source stepping 7
// elements (28 bytes) a row from element 1 (the storage offset), the
// access layout (3,3,1):(1,7,18) over the relu's storage.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK:      pim.io @out0 "output" name "out0" at [[OUT:[0-9]+]] : tensor<1x3x3xf32> layout #layout.layout<(3,3,1):(1,3,9)>
// CHECK:      pim.ld
// CHECK-NEXT: pim.sldi [[R:r[0-9]+]], [[#RELU:]]
// CHECK-NEXT: pim.vrelu [[R]], {{r[0-9]+}} len 18
// CHECK:      pim.sldi [[S:r[0-9]+]], [[#RELU+4]]
// CHECK-NEXT: pim.repeat 3 [[[D:r[0-9]+]] += 12, [[S]] += 28] attributes {access = [#layout.layout<(3,3,1):(1,3,0)>, #layout.layout<(3,3,1):(1,7,18)>]}
// CHECK-NEXT:   pim.lmv [[D]], [[S]] len 12
// CHECK:      pim.sldi r1, [[OUT]]
// CHECK:      pim.st r0, {{r[0-9]+}} size 36
// CHECK-NOT:  pim.

func.func @main(%x: tensor<1x3x6xf32> {nn.input = "x"}) -> tensor<1x3x3xf32> {
  %0 = nn.relu %x : tensor<1x3x6xf32> loc("relu")
  %1 = nn.as_strided %0 {size = array<i64: 1, 3, 3>, stride = array<i64: 18, 7, 1>, storage_offset = 1 : i64} : (tensor<1x3x6xf32>) -> tensor<1x3x3xf32> loc("skew")
  return %1 : tensor<1x3x3xf32>
}
