// A dense attribute of a type whose element count overflows int64 made
// upstream MLIR's parser assert (fuzzing, docs/fuzzing.md). raptor-opt now
// screens its input first: one located error, exit 1, no output file.
// RUN: rm -f %t.out
// RUN: not %raptor-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// RUN: not %raptor-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// A type in a comment is not screened: tensor<4x9223372036854775807xf32>
pim.chip @m cores 4 crossbars 8 of [128, 128] memory 65536 {
// CHECK: oversized-shapes.mlir:[[@LINE+2]]:30: error: tensor type with shape 4x9223372036854775807 has more than 2^63 - 1 elements
// STDIN: <stdin>:[[@LINE+1]]:30: error: tensor type
  pim.weight @w dense<1.0> : tensor<4x9223372036854775807xf32>
}
