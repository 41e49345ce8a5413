// Views move no data: a permute is a permuted layout (the relu after it
// runs over the input's storage in one instruction), a view composes the
// layout with the new shape's row-major layout (here a nested mode
// (3,4,2):(4,1,12) for the flattened dimension), and cat only collects
// pieces. The output keeps the pieces' storage order (each half
// contiguous); data moves to assemble it, through the layouts the kernels
// show (`access`): the permuted half element by element, the other in one
// move.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK:      pim.io @out0 "output" name "out0" at [[OUT:[0-9]+]] : tensor<1x24x2xf32> layout #layout.layout<(2,24,1):(24,1,24)>
// CHECK:      pim.ld [[X:r[0-9]+]], r0 size 96
// CHECK-NEXT: pim.sldi [[R:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.vrelu [[R]], [[X]] len 24 : f32 {access = [#layout.layout<(3,4,2,1):(4,1,12,24)>, #layout.layout<(3,4,2,1):(4,1,12,24)>]}
// CHECK-NOT:  pim.vrelu
// CHECK:      pim.repeat 2 [{{r[0-9]+}} += 48, {{r[0-9]+}} += 48] attributes {access = [#layout.layout<(1,24,1):(24,1,0)>, #layout.layout<(1,(3,4,2),1):(12,(4,1,12),24)>]}
// CHECK:            pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 4
// CHECK:      pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 96 {access = [#layout.layout<(1,24,1):(24,1,0)>, #layout.layout<(1,24,1):(1,1,24)>]}
// CHECK:      pim.sldi r1, [[OUT]]
// CHECK:      pim.st r0, {{r[0-9]+}} size 192
// CHECK-NOT:  pim.

func.func @main(%x: tensor<1x2x3x4xf32> {nn.input = "x"}, %y: tensor<1x2x3x4xf32> {nn.input = "y"}) -> tensor<1x24x2xf32> {
  %0 = nn.permute %x {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x4x3xf32> loc("perm")
  %1 = nn.relu %0 : tensor<1x2x4x3xf32> loc("relu")
  %2 = nn.view %1 {size = array<i64: 1, 24>} : (tensor<1x2x4x3xf32>) -> tensor<1x24xf32> loc("flat")
  %3 = nn.view %y {size = array<i64: 1, 24>} : (tensor<1x2x3x4xf32>) -> tensor<1x24xf32> loc("flat2")
  %4 = nn.view %2 {size = array<i64: 1, 24, 1>} : (tensor<1x24xf32>) -> tensor<1x24x1xf32> loc("u1")
  %5 = nn.view %3 {size = array<i64: 1, 24, 1>} : (tensor<1x24xf32>) -> tensor<1x24x1xf32> loc("u2")
  %6 = nn.cat %4, %5 {dim = 2 : i64} : (tensor<1x24x1xf32>, tensor<1x24x1xf32>) -> tensor<1x24x2xf32> loc("cat")
  return %6 : tensor<1x24x2xf32>
}
