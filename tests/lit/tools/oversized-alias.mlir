// A type alias of an oversized type is screened where an elements attribute
// uses it, through the comments the lexer skips (found by review).
// RUN: not %raptor-opt %s -o /dev/null 2>&1 | FileCheck %s

!big = tensor<4x9223372036854775807xf32>
func.func @f() {
// CHECK: oversized-alias.mlir:[[@LINE+2]]:4: error: type alias !big: tensor type with shape 4x9223372036854775807 has more than 2^63 - 1 elements
  %0 = arith.constant dense<1.0> : // the alias
   !big
  return
}
