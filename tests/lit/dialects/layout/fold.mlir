// RUN: %raptor-opt %s --canonicalize | FileCheck %s
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s --check-prefix=ROUND

// A chain of layout ops on constants folds to one attribute (pycute agrees:
// ((4,4),4):((16,1),4) / (4,2):(2,8) = (((2,2),2),(2,4)):(((32,1),2),(16,4))).
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:  %[[C:.*]] = layout.constant <(((2,2),2),(2,4)):(((32,1),2),(16,4))>
// CHECK-NEXT:  return %[[C]]
func.func @chain() -> !layout.layout {
  %a = layout.constant #layout.layout<((4,4),4):((16,1),4)>
  %b = layout.constant #layout.layout<(4,2):(2,8)>
  %c = layout.compose %a, %b
  %d = layout.coalesce %c
  %e = layout.complement %d size 64
  %f = layout.logical_divide %a, %b
  return %f : !layout.layout
}

// CHECK-LABEL: func.func @each
// CHECK-DAG: layout.constant <(2,2):(1,8)>
// CHECK-DAG: layout.constant <16:1>
// CHECK-DAG: layout.constant <((2,2),3):((24,2),8)>
// CHECK-DAG: layout.constant <((2,2),(2,3)):((4,1),(2,8))>
func.func @each() -> (!layout.layout, !layout.layout, !layout.layout, !layout.layout) {
  %a = layout.constant #layout.layout<4:2>
  %c = layout.complement %a size 16
  %s = layout.constant #layout.layout<((2,2),(2,2)):((1,2),(4,8))>
  %co = layout.coalesce %s
  %x = layout.constant #layout.layout<(6,2):(8,2)>
  %y = layout.constant #layout.layout<(4,3):(3,1)>
  %xy = layout.compose %x, %y
  %p = layout.constant #layout.layout<(2,2):(4,1)>
  %q = layout.constant #layout.layout<6:1>
  %pq = layout.logical_product %p, %q
  return %c, %co, %xy, %pq : !layout.layout, !layout.layout, !layout.layout, !layout.layout
}

// Ops on values that are not constants stay.
// ROUND-LABEL: func.func @opaque
// ROUND: layout.compose %arg0, %arg1
func.func @opaque(%a: !layout.layout, %b: !layout.layout) -> !layout.layout {
  %c = layout.compose %a, %b
  return %c : !layout.layout
}

// One constant operand is not enough to fold: the ops stay.
// CHECK-LABEL: func.func @half_constant
// CHECK: %[[C:.*]] = layout.constant <(4,2):(2,8)>
// CHECK: layout.compose %arg0, %[[C]]
// CHECK: layout.logical_divide %[[C]], %arg0
// CHECK: layout.logical_product %arg0, %[[C]]
func.func @half_constant(%a: !layout.layout) -> (!layout.layout, !layout.layout, !layout.layout) {
  %b = layout.constant #layout.layout<(4,2):(2,8)>
  %c = layout.compose %a, %b
  %d = layout.logical_divide %b, %a
  %p = layout.logical_product %a, %b
  return %c, %d, %p : !layout.layout, !layout.layout, !layout.layout
}

// The chapter 4 algorithm folds too (4.1.4.2).
// CHECK-LABEL: func.func @tractable
// CHECK-NEXT: layout.constant <((2,3),6):((6,72),1)>
func.func @tractable() -> !layout.layout {
  %b = layout.constant #layout.layout<(12,3,6):(1,72,12)>
  %a = layout.constant #layout.layout<(6,6):(6,1)>
  %c = layout.compose_tractable %b, %a
  return %c : !layout.layout
}
