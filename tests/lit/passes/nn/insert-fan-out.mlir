// A feature read by several operands is read through one explicit fan-out
// node; weights, constants and data computed from them alone (known before
// run time), single readers and fan-out outputs are not.
// RUN: %raptor-opt %s --raptor-insert-fan-out | FileCheck %s
// Idempotent: a fan-out's output is not fanned out again.
// RUN: %raptor-opt %s --raptor-insert-fan-out --raptor-insert-fan-out | FileCheck %s

// CHECK-LABEL: func.func @residual
// The input (two readers: the add twice counts as two operands), and the
// relu (relu's output read by the mul and the return).
// CHECK:      %[[X:.*]] = nn.fan_out %arg0 {dim = 0 : i64, repeats = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = nn.add %[[X]], %[[X]]
// CHECK-NEXT: %[[R:.*]] = nn.relu %[[A]]
// CHECK-NEXT: %[[RF:.*]] = nn.fan_out %[[R]] {dim = 0 : i64, repeats = 1 : i64}
// CHECK-NEXT: %[[M:.*]] = nn.mul %[[RF]], %arg1
// CHECK-NEXT: %[[C:.*]] = nn.constant
// CHECK-NEXT: %[[V:.*]] = nn.view %[[C]]
// CHECK-NEXT: %[[N:.*]] = nn.mul %[[M]], %[[V]]
// CHECK-NEXT: %[[O:.*]] = nn.mul %[[N]], %[[V]]
// CHECK-NEXT: %[[P:.*]] = nn.mul %[[O]], %arg1
// CHECK-NEXT: return %[[P]], %[[RF]]
func.func @residual(%x: tensor<4xf32> {nn.input = "x"}, %w: tensor<4xf32> {nn.param = "w"}) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = nn.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = nn.relu %a : tensor<4xf32>
  %m = nn.mul %r, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = nn.constant dense<2.0> : tensor<2x2xf32>
  %v = nn.view %c {size = array<i64: 4>} : (tensor<2x2xf32>) -> tensor<4xf32>
  %n = nn.mul %m, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %o = nn.mul %n, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %p = nn.mul %o, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %p, %r : tensor<4xf32>, tensor<4xf32>
}
