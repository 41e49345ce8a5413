// MLIR's lexer lets white space separate the tokens of a dimension list:
// the oversized-shape screen reads such lists too (found by make fuzz).
// RUN: not %raptor-opt %s -o /dev/null 2>&1 | FileCheck %s

pim.chip @m cores 4 crossbars 8 of [128, 128] memory 65536 {
// CHECK: oversized-shapes-spaced.mlir:[[@LINE+1]]:30: error: tensor type with shape 4x9223372036854775807 has more than 2^63 - 1 elements
  pim.weight @w dense<1.0> : tensor<4x     9223372036854775807xf32>
}
