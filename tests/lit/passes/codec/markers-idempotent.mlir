// Marker insertion is idempotent (Theorem 3) and adds one input marker per
// edge plus one output marker per used output port (Theorems 7 and 10).
// RUN: %raptor-opt %s --raptor-insert-codec-markers > %t.once.mlir
// RUN: %raptor-opt %t.once.mlir --raptor-insert-codec-markers > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: FileCheck %s < %t.once.mlir
// RUN: FileCheck %s --check-prefix=COUNT < %t.once.mlir

// 6 edges (x->add twice, add->relu, relu->mul, x->mul, mul->return) give 6
// input markers; 4 used output ports (x, add, relu, mul) give 4 output markers.
// COUNT-LABEL: func.func @residual
// COUNT-COUNT-1: codec.mark_output
// COUNT-COUNT-2: codec.mark_input
// COUNT-COUNT-1: codec.mark_output
// COUNT-COUNT-1: codec.mark_input
// COUNT-COUNT-1: codec.mark_output
// COUNT-COUNT-2: codec.mark_input
// COUNT-COUNT-1: codec.mark_output
// COUNT-COUNT-1: codec.mark_input
// COUNT-NOT:     codec.mark

// CHECK-LABEL: func.func @residual
// CHECK-SAME:  attributes {codec.policy = "W"}
// CHECK-COUNT-1: codec.mark_output %arg0
// CHECK-NOT:   codec.mark_output %arg0
// CHECK:       codec.mark_input
// CHECK-NEXT:  codec.mark_input
// CHECK-NEXT:  nn.add
// CHECK-NEXT:  codec.mark_output
// CHECK-NEXT:  codec.mark_input
// CHECK-NEXT:  nn.relu
// CHECK-NEXT:  codec.mark_output
// CHECK-NEXT:  codec.mark_input
// CHECK-NEXT:  codec.mark_input
// CHECK-NEXT:  nn.mul
// CHECK-NEXT:  codec.mark_output
// CHECK-NEXT:  codec.mark_input
// CHECK-NEXT:  return
func.func @residual(%x: tensor<4xf32> {nn.input = "x"}) -> tensor<4xf32> {
  %0 = nn.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.relu %0 : tensor<4xf32>
  %2 = nn.mul %1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
