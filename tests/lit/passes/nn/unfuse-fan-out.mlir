// A KV-head fan-out becomes Llama's repeat_kv: a unit dimension after the
// heads, broadcast to the repeats, copied, and viewed as repeats x heads.
// Explicit fan-out nodes (repeats = 1) stay.
// RUN: %raptor-opt %s --raptor-unfuse-fan-out | FileCheck %s

// CHECK-LABEL: func.func @gqa
// CHECK:      %[[U:.*]] = nn.view %arg0 {size = array<i64: 1, 3, 1, 16, 8>} : (tensor<1x3x16x8xf32>) -> tensor<1x3x1x16x8xf32>
// CHECK-NEXT: %[[E:.*]] = nn.expand %[[U]] {size = array<i64: 1, 3, 4, 16, 8>} : (tensor<1x3x1x16x8xf32>) -> tensor<1x3x4x16x8xf32>
// CHECK-NEXT: %[[C:.*]] = nn.clone %[[E]] : tensor<1x3x4x16x8xf32>
// CHECK-NEXT: %[[V:.*]] = nn.view %[[C]] {size = array<i64: 1, 12, 16, 8>} : (tensor<1x3x4x16x8xf32>) -> tensor<1x12x16x8xf32>
// CHECK-NEXT: %[[F:.*]] = nn.fan_out %[[V]] {repeats = 1 : i64}
// CHECK-NEXT: return %[[F]]
func.func @gqa(%k: tensor<1x3x16x8xf32> {nn.input = "k"}) -> tensor<1x12x16x8xf32> {
  %f = nn.fan_out %k {repeats = 4 : i64} : (tensor<1x3x16x8xf32>) -> tensor<1x12x16x8xf32>
  %g = nn.fan_out %f {repeats = 1 : i64} : (tensor<1x12x16x8xf32>) -> tensor<1x12x16x8xf32>
  return %g : tensor<1x12x16x8xf32>
}

// A negative dimension counts from the end: -3 of a rank-4 tensor is 1.
// CHECK-LABEL: func.func @from_the_end
// CHECK:      nn.view %arg0 {size = array<i64: 1, 3, 1, 16, 8>}
// CHECK-NEXT: nn.expand %{{.*}} {size = array<i64: 1, 3, 2, 16, 8>}
// CHECK-NEXT: nn.clone
// CHECK-NEXT: nn.view %{{.*}} {size = array<i64: 1, 6, 16, 8>}
func.func @from_the_end(%k: tensor<1x3x16x8xf32> {nn.input = "k"}) -> tensor<1x6x16x8xf32> {
  %f = nn.fan_out %k {repeats = 2 : i64, dim = -3 : i64} : (tensor<1x3x16x8xf32>) -> tensor<1x6x16x8xf32>
  return %f : tensor<1x6x16x8xf32>
}
