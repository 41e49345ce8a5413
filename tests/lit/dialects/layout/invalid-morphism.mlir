// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @tuple_condition() {
  // expected-error @+1 {{invalid morphism: the Tuple condition fails: domain entry 2 is 4 but codomain entry 2 is 2}}
  %f = layout.encode #layout.morphism<(4,4) --(1, 2)--> (4,2,4)>
  return
}

// -----

func.func @not_injective() {
  // expected-error @+1 {{invalid morphism: the map sends two entries to codomain entry 1}}
  %f = layout.encode #layout.morphism<(4,4) --(1, 1)--> (4,4)>
  return
}

// -----

func.func @arity() {
  // expected-error @+1 {{invalid morphism: the map has 1 entries but the domain (4,4) has 2}}
  %f = layout.encode #layout.morphism<(4,4) --(1,)--> (4,4)>
  return
}

// -----

func.func @morphism_overflow() {
  // expected-error @+1 {{is too large: its size overflows 64-bit integers}}
  %f = layout.encode #layout.morphism<(4294967296,4294967296) --(1, 2)--> (4294967296,4294967296)>
  return
}
