// RUN: %raptor-opt %s | FileCheck %s
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// The legal neighbours of near-misses.mlir, each printed back in canonical
// form (no blanks): the values below are the texts themselves, not the
// parser's output.

// CHECK-LABEL: func.func @legal
// CHECK-NEXT: layout.constant <(2,2):(1,2)>
// CHECK-NEXT: layout.constant <(2,2):(1,2)>
// CHECK-NEXT: layout.constant <((2,2),2):((1,2),4)>
// CHECK-NEXT: layout.constant <(2):(1)>
// CHECK-NEXT: layout.constant <(2,2):(1,-2)>
// CHECK-NEXT: layout.constant <1:0>
// CHECK-NEXT: layout.constant <(2,2):(0,0)>
// CHECK-NEXT: return
func.func @legal() {
  %a = layout.constant #layout.layout<(2,2):(1,2)>
  // Blanks between the tokens.
  %b = layout.constant #layout.layout< ( 2 , 2 ) : ( 1 , 2 ) >
  %c = layout.constant #layout.layout<((2,2),2):((1,2),4)>
  // A one-tuple, the legal spelling of (2,):(1,).
  %d = layout.constant #layout.layout<(2):(1)>
  // Negative and zero strides are strides (only shapes must be positive).
  %e = layout.constant #layout.layout<(2,2):(1,-2)>
  %f = layout.constant #layout.layout<1:0>
  %g = layout.constant #layout.layout<(2,2):(0,0)>
  return
}
