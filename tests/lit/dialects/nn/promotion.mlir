// RUN: %raptor-opt %s | FileCheck %s
// Element types follow torch.result_type; true division of integers is float.

// CHECK-LABEL: func.func @promote
func.func @promote(%h: tensor<4xf16>, %f: tensor<4xf32>, %i: tensor<4xi32>, %l: tensor<4xi64>,
                   %z: tensor<f64>, %bf: tensor<4xbf16>, %b: tensor<4xi1>) {
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  %0 = nn.add %h, %f : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: nn.div %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  %1 = nn.div %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  // CHECK: nn.mul %{{.*}} scalar(5.000000e-01 : f64) : (tensor<4xi64>) -> tensor<4xf32>
  %2 = nn.mul %l scalar(0.5 : f64) : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  %3 = nn.add %i, %l : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  // A 0-d tensor of the same category does not widen a dimensioned one.
  // CHECK: nn.mul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
  %4 = nn.mul %f, %z : (tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
  // ... but one of a higher category decides the type.
  // CHECK: nn.mul %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<f64>) -> tensor<4xf64>
  %5 = nn.mul %i, %z : (tensor<4xi32>, tensor<f64>) -> tensor<4xf64>
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<4xbf16>) -> tensor<4xf32>
  %6 = nn.add %h, %bf : (tensor<4xf16>, tensor<4xbf16>) -> tensor<4xf32>
  // CHECK: nn.add %{{.*}} scalar(1 : i64) : (tensor<4xi1>) -> tensor<4xi64>
  %7 = nn.add %b scalar(1 : i64) : (tensor<4xi1>) -> tensor<4xi64>
  // CHECK: nn.add %{{.*}} scalar(2 : i64) : (tensor<4xf16>) -> tensor<4xf16>
  %8 = nn.add %h scalar(2 : i64) : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// CHECK-LABEL: func.func @dynamic_rope
func.func @dynamic_rope(%x: tensor<1x32x?x128xf32>, %c: tensor<7x128xf32>) {
  // CHECK: nn.rotary_embedding %{{.*}} -> tensor<1x32x?x128xf32>
  %0 = nn.rotary_embedding %x, %c, %c : (tensor<1x32x?x128xf32>, tensor<7x128xf32>, tensor<7x128xf32>) -> tensor<1x32x?x128xf32>
  return
}

// CHECK-LABEL: func.func @vector_linear_and_scalar_mean
func.func @vector_linear_and_scalar_mean(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %s: tensor<f32>) {
  // CHECK: nn.linear %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2xf32>
  %0 = nn.linear %x, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2xf32>
  // CHECK: nn.mean %{{.*}} {dim = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %1 = nn.mean %s {dim = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return
}

// CHECK-LABEL: func.func private @declared_weight
// CHECK-SAME: {nn.param = "w"}
func.func private @declared_weight(tensor<2xf32> {nn.param = "w"})
