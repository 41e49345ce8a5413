// raptor-expand-selects: a where whose condition is known (a mask sliced
// from a constant) becomes products by the mask and a sum; the masks and
// the known side where it is picked are wheres of compile-time values (the
// compiler computes them: lower-where.mlir).
// RUN: %raptor-opt %s --raptor-expand-selects | FileCheck %s

// The causal mask of eager attention: where(mask, scores, min) is
// scores * where(mask, 1, 0) + where(mask, 0, min).
// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[S:.*]]: tensor<1x2x3x3xf32>)
// CHECK: %[[MASK:.*]] = nn.slice %{{.*}} {dim = 3 : i64, end = 3 : i64}
// CHECK: %[[MIN:.*]] = nn.constant dense<-1.000000e+04> : tensor<f32>
// CHECK: %[[ZERO:.*]] = nn.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[ONE:.*]] = nn.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[M:.*]] = nn.where %[[MASK]], %[[ONE]], %[[ZERO]] : (tensor<1x1x3x3xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x3x3xf32>
// CHECK: %[[P:.*]] = nn.mul %[[S]], %[[M]]
// CHECK: %[[B:.*]] = nn.where %[[MASK]], %[[ZERO]], %[[MIN]]
// CHECK: %[[R:.*]] = nn.add %[[P]], %[[B]] : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NOT: nn.where
// CHECK: return %[[R]]
func.func @causal(%s: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %buf = nn.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %rows = nn.slice %buf {dim = 2 : i64, end = 3 : i64} : (tensor<1x1x4x4xi1>) -> tensor<1x1x3x4xi1>
  %mask = nn.slice %rows {dim = 3 : i64, end = 3 : i64} : (tensor<1x1x3x4xi1>) -> tensor<1x1x3x3xi1>
  %min = nn.constant dense<-1.0e+04> : tensor<f32>
  %0 = nn.where %mask, %s, %min : (tensor<1x1x3x3xi1>, tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// The known side first: other * where(c, 0, 1) + where(c, self, 0).
// CHECK-LABEL: func.func @known_self
// CHECK-SAME: (%[[Y:.*]]: tensor<2xf32>)
// CHECK: %[[C:.*]] = nn.constant dense<[true, false]>
// CHECK: %[[A:.*]] = nn.constant dense<5.000000e+00>
// CHECK: %[[ZERO:.*]] = nn.constant dense<0.000000e+00>
// CHECK: %[[ONE:.*]] = nn.constant dense<1.000000e+00>
// CHECK: %[[N:.*]] = nn.where %[[C]], %[[ZERO]], %[[ONE]]
// CHECK: %[[P:.*]] = nn.mul %[[Y]], %[[N]]
// CHECK: %[[K:.*]] = nn.where %[[C]], %[[A]], %[[ZERO]]
// CHECK: nn.add %[[P]], %[[K]]
func.func @known_self(%y: tensor<2xf32>) -> tensor<2xf32> {
  %c = nn.constant dense<[true, false]> : tensor<2xi1>
  %a = nn.constant dense<5.0> : tensor<f32>
  %0 = nn.where %c, %a, %y : (tensor<2xi1>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Both sides at run time, the mask broadcast over a wider result: the sum
// of the two products.
// CHECK-LABEL: func.func @both
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>, %[[Y:.*]]: tensor<2x2xf32>)
// CHECK: %[[C:.*]] = nn.constant dense<[false, true]>
// CHECK: %[[ZERO:.*]] = nn.constant dense<0.000000e+00>
// CHECK: %[[ONE:.*]] = nn.constant dense<1.000000e+00>
// CHECK: %[[M:.*]] = nn.where %[[C]], %[[ONE]], %[[ZERO]]
// CHECK: %[[PX:.*]] = nn.mul %[[X]], %[[M]] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
// CHECK: %[[N:.*]] = nn.where %[[C]], %[[ZERO]], %[[ONE]]
// CHECK: %[[PY:.*]] = nn.mul %[[Y]], %[[N]] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
// CHECK: nn.add %[[PX]], %[[PY]]
func.func @both(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = nn.constant dense<[false, true]> : tensor<2xi1>
  %0 = nn.where %c, %x, %y : (tensor<2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Kept: a condition computed at run time, and a where of known operands
// only (the compiler computes it).
// CHECK-LABEL: func.func @kept
// CHECK: nn.where
// CHECK: nn.where
func.func @kept(%x: tensor<2xf32>, %c: tensor<2xi1>) -> (tensor<2xf32>, tensor<2xf32>) {
  %k = nn.constant dense<[true, false]> : tensor<2xi1>
  %a = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = nn.where %c, %x, %a : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = nn.where %k, %a, %a : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
