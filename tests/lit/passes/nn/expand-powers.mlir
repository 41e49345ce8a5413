// raptor-expand-powers: squares, cubes and fourth powers as products (in
// torch's order), whole powers to 64 by squaring, x**-0.5 as rsqrt; quotients by square roots (also clamped
// below, also broadcast) as products by reciprocal roots.
// RUN: %raptor-opt %s --raptor-expand-powers | FileCheck %s

// CHECK-LABEL: func.func @normalize
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK: %[[SQ:.*]] = nn.mul %[[X]], %[[X]]
// CHECK: %[[M:.*]] = nn.mean %[[SQ]]
// CHECK: %[[C:.*]] = nn.clamp %[[M]] {min = 9.9999999999999992E-25 : f64}
// CHECK: %[[R:.*]] = nn.rsqrt %[[C]]
// CHECK: %[[E:.*]] = nn.expand %[[R]] {size = array<i64: 2, 8>}
// CHECK: %[[Y:.*]] = nn.mul %[[X]], %[[E]]
// CHECK-NOT: nn.pow
// CHECK-NOT: nn.div
// CHECK: return %[[Y]]
func.func @normalize(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = nn.pow %x {exponent = 2.0 : f64} : tensor<2x8xf32>
  %1 = nn.mean %0 {dim = array<i64: 1>, keepdim = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %2 = nn.pow %1 {exponent = 0.5 : f64} : tensor<2x1xf32>
  %3 = nn.clamp %2 {min = 1.0e-12 : f64} : tensor<2x1xf32>
  %4 = nn.expand %3 {size = array<i64: 2, 8>} : (tensor<2x1xf32>) -> tensor<2x8xf32>
  %5 = nn.div %x, %4 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %5 : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @whole
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = nn.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[C:.*]] = nn.mul %[[S]], %[[X]]
// CHECK-NEXT: %[[S2:.*]] = nn.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[F:.*]] = nn.mul %[[S2]], %[[S2]]
// CHECK-NEXT: %[[R:.*]] = nn.rsqrt %[[X]]
// CHECK-NOT: nn.pow
// CHECK: return %[[C]], %[[F]], %[[R]]
func.func @whole(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = nn.pow %x {exponent = 3.0 : f64} : tensor<4xf32>
  %1 = nn.pow %x {exponent = 4.0 : f64} : tensor<4xf32>
  %2 = nn.pow %x {exponent = -0.5 : f64} : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Whole exponents from 5 to 64 by squaring (Yoso's ** 9: x^8 times x).
// CHECK-LABEL: func.func @squared
// CHECK-NEXT: %[[X2:.*]] = nn.mul %arg0, %arg0
// CHECK-NEXT: %[[X4:.*]] = nn.mul %[[X2]], %[[X2]]
// CHECK-NEXT: %[[X8:.*]] = nn.mul %[[X4]], %[[X4]]
// CHECK-NEXT: %[[X9:.*]] = nn.mul %arg0, %[[X8]]
// CHECK-NEXT: return %[[X9]]
func.func @squared(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.pow %x {exponent = 9.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A root that is not a divisor becomes the reciprocal of its reciprocal
// root; other exponents stay powers; a negative lower clamp never binds a
// root and is dropped.
// CHECK-LABEL: func.func @kept
// CHECK: %[[ONE:.*]] = nn.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[Q:.*]] = nn.rsqrt %arg0
// CHECK-NEXT: %[[ROOT:.*]] = nn.div %[[ONE]], %[[Q]] : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: nn.pow %{{.*}} {exponent = 5.500000e+00 : f64}
// CHECK-NEXT: %[[R:.*]] = nn.rsqrt %arg0
// CHECK-NEXT: nn.mul %arg0, %[[R]]
// CHECK-NOT: exponent = 5.000000e-01
// CHECK: return %[[ROOT]]
func.func @kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = nn.pow %x {exponent = 0.5 : f64} : tensor<4xf32>
  %1 = nn.pow %x {exponent = 5.5 : f64} : tensor<4xf32>
  %2 = nn.clamp %0 {min = -1.0 : f64} : tensor<4xf32>
  %3 = nn.div %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A known root stays a power (the compiler computes it).
// CHECK-LABEL: func.func @known
// CHECK: nn.pow %{{.*}} {exponent = 5.000000e-01 : f64}
// CHECK-NOT: nn.rsqrt
func.func @known(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = nn.constant dense<[1.0, 4.0, 9.0, 0.0]> : tensor<4xf32>
  %0 = nn.pow %c {exponent = 0.5 : f64} : tensor<4xf32>
  %1 = nn.add %x, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
