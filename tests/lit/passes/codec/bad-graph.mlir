// Codec placement needs a dataflow graph: a single-block function without
// nested regions. Anything else is a located error, and unplaced markers are
// reported when a later step runs first.
// RUN: not %raptor-opt %s -split-input-file --raptor-place-codecs 2>&1 | FileCheck %s
// RUN: not %raptor-opt %s -split-input-file --raptor-assign-codec-semantics 2>&1 | FileCheck %s --check-prefix=ORDER

// CHECK: bad-graph.mlir:[[@LINE+1]]:1: error: codec placement needs a function with a single block (a dataflow graph)
func.func @branches(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %x : tensor<4xf32>
^b:
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ORDER: error: operand #0 reaches this op without a codec marker; run raptor-insert-codec-markers first
func.func @unmarked(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
