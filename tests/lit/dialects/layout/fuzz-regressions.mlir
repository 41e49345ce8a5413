// Inputs that aborted raptor-opt (an uncaught LayoutError, SIGFPE) or
// folded to a wrong layout (../shared/data/fuzz-repros): now diagnostics,
// or the right fold.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --canonicalize | FileCheck %s

// A negative stride: the chapter 4 algorithm does not apply (repro A).
func.func @negative_stride() -> !layout.layout {
  %a = layout.constant #layout.layout<16:-1>
  // expected-error @+1 {{16:-1 is not tractable (the chapter 4 algorithm requires it)}}
  %o = layout.compose_tractable %a, %a
  return %o : !layout.layout
}

// -----

// A zero and a negative stride divided by zero (SIGFPE, repro B).
func.func @zero_and_negative() -> !layout.layout {
  %a = layout.constant #layout.layout<1:1>
  %b = layout.constant #layout.layout<(1,1):(0,-1)>
  // expected-error @+1 {{(1,1):(0,-1) is not tractable}}
  %o = layout.compose_tractable %a, %b
  return %o : !layout.layout
}

// -----

// Codomain entries must be positive (repros D, D2, E).
func.func @zero_codomain() -> !layout.layout {
  // expected-error @+1 {{invalid morphism: codomain entries must be positive, (0,1) is not}}
  %o = layout.encode #layout.morphism<1 --(2)--> (0,1)>
  return %o : !layout.layout
}

// -----

func.func @negative_codomain() -> !layout.layout {
  // expected-error @+1 {{invalid morphism: codomain entries must be positive, (2,-1) is not}}
  %o = layout.encode #layout.morphism<2 --(1)--> (2,-1)>
  return %o : !layout.layout
}

// -----

// Entries above 2^32 are kept whole (they folded to 1:1, repro trunc).
// CHECK-LABEL: func.func @big
// CHECK: layout.constant <4294967297:1>
func.func @big() -> !layout.layout {
  %o = layout.encode #layout.morphism<4294967297 --(1)--> 4294967297>
  return %o : !layout.layout
}

// -----

// CHECK-LABEL: func.func @big_pair
// CHECK: layout.constant <(4,6442450946):(1,4)>
func.func @big_pair() -> !layout.layout {
  %o = layout.encode #layout.morphism<(4,6442450946) --(1,2)--> (4,6442450946)>
  return %o : !layout.layout
}

// -----

// All of a zero-stride layout lands on offset 0 (repro F aborted).
// CHECK-LABEL: func.func @zero_map
// CHECK: layout.constant <(1,4294967297):(0,0)>
func.func @zero_map() -> !layout.layout {
  %a = layout.constant #layout.layout<1:1>
  %b = layout.encode #layout.morphism<(1,4294967297) --(0,0)--> 1>
  %o = layout.compose_tractable %a, %b
  return %o : !layout.layout
}
