// A copy is added only when every lane, copies included, still packs onto
// the cores, largest first (first fit decreasing): on 4 cores of 8
// crossbars, lanes of 5 crossbars (a: 80 rows = 5 row tiles of 16, one
// column tile) and of 3 (b: 48 rows), four rows each, take four copies
// each with the whole chip as budget: 4 x 5 + 4 x 3 = 32 crossbars, one
// lane of each on every core (5 + 3 = 8). Packed smallest first, 3 + 3
// would share a core and strand a 5: the eighth lane would be refused.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/small-8bit-cells.json replicate=time replication-budget=1.0" | FileCheck %s

// CHECK-DAG: spatial.task "a#0@3" {{.*}}tiles = 5
// CHECK-DAG: spatial.task "b#0@3" {{.*}}tiles = 3
func.func @main(%x: tensor<1x4x80xf32> {nn.input = "x"}, %y: tensor<1x4x48xf32> {nn.input = "y"}) -> (tensor<1x4x16xf32>, tensor<1x4x16xf32>) {
  %wa = nn.constant dense<0.5> : tensor<16x80xf32>
  %wb = nn.constant dense<0.25> : tensor<16x48xf32>
  %0 = nn.linear %x, %wa : (tensor<1x4x80xf32>, tensor<16x80xf32>) -> tensor<1x4x16xf32> loc("a")
  %1 = nn.linear %y, %wb : (tensor<1x4x48xf32>, tensor<16x48xf32>) -> tensor<1x4x16xf32> loc("b")
  return %0, %1 : tensor<1x4x16xf32>, tensor<1x4x16xf32>
}
