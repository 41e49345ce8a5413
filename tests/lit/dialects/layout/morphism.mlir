// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic -o /dev/null

// CHECK-LABEL: func.func @morphisms
// CHECK: layout.encode <((5,5),8) --(1, 3, 2)--> (5,8,5)>
// CHECK: layout.encode <(4) --(1,)--> (4)>
// The encoded layout L_f folds (paper §1.4: ((5,5),8):((1,40),5)).
// FOLD: layout.constant <((5,5),8):((1,40),5)>
func.func @morphisms() -> (!layout.layout, !layout.layout) {
  %f = layout.encode #layout.morphism<((5,5),8) --(1, 3, 2)--> (5,8,5)>
  %g = layout.encode #layout.morphism<(4) --(1,)--> (4)>
  return %f, %g : !layout.layout, !layout.layout
}
