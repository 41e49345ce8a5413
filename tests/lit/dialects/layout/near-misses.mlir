// RUN: %raptor-opt %s -split-input-file -verify-diagnostics
// Near misses of the #layout.layout<SHAPE:STRIDE> parser (LayoutAttr::parse
// and parseLayout in dialects/layout): each is one edit away from
// <(2,2):(1,2)> or <((2,2),2):((1,2),4)>, whose legal neighbours
// near-misses-legal.mlir prints back exactly.

func.func @trailing_comma_after() {
  // expected-error @+1 {{invalid layout: unexpected ',' after the layout}}
  %a = layout.constant #layout.layout<(2,2):(1,2),>
  return
}

// -----

func.func @trailing_integer() {
  // expected-error @+1 {{invalid layout: unexpected '3' after the layout}}
  %a = layout.constant #layout.layout<(2,2):(1,2) 3>
  return
}

// -----

func.func @a_third_part() {
  // expected-error @+1 {{invalid layout: unexpected ':3' after the layout}}
  %a = layout.constant #layout.layout<(2,2):(1,2):3>
  return
}

// -----

func.func @no_colon() {
  // expected-error @+1 {{invalid layout: expected ':' between shape and stride in '(2,2)(1,2)'}}
  %a = layout.constant #layout.layout<(2,2)(1,2)>
  return
}

// -----

func.func @shape_only() {
  // expected-error @+1 {{invalid layout: expected ':' between shape and stride in '4'}}
  %a = layout.constant #layout.layout<4>
  return
}

// -----

func.func @two_colons() {
  // expected-error @+1 {{invalid layout: expected an integer or '(' at position 7 of '(2,2)::(1,2)'}}
  %a = layout.constant #layout.layout<(2,2)::(1,2)>
  return
}

// -----

func.func @no_shape() {
  // expected-error @+1 {{invalid layout: expected an integer or '(' at position 1 of ':1'}}
  %a = layout.constant #layout.layout<:1>
  return
}

// -----

func.func @empty() {
  // expected-error @+1 {{invalid layout: expected an integer or '(' at position 1 of ''}}
  %a = layout.constant #layout.layout<>
  return
}

// -----

// A trailing comma inside a tuple is not a one-tuple (write (2):(1)).
func.func @trailing_comma_inside() {
  // expected-error @+1 {{invalid layout: expected an integer or '(' at position 4 of '(2,):(1,)'}}
  %a = layout.constant #layout.layout<(2,):(1,)>
  return
}

// -----

// MLIR's lexer balances the brackets of an attribute body before the layout
// parser sees it.
func.func @unclosed_stride() {
  // expected-error @+1 {{unbalanced '(' character in pretty dialect name}}
  %a = layout.constant #layout.layout<(2,2):(1,2>
  return
}

// -----

func.func @missing_comma_nested() {
  // expected-error @+1 {{invalid layout: expected ',' or ')' at position 17 of '((2,2),2):((1,2)4)'}}
  %a = layout.constant #layout.layout<((2,2),2):((1,2)4)>
  return
}

// -----

func.func @negative_shape() {
  // expected-error @+1 {{invalid layout: shape (2,-2) has an entry below 1}}
  %a = layout.constant #layout.layout<(2,-2):(1,2)>
  return
}

// -----

func.func @zero_size() {
  // expected-error @+1 {{invalid layout: shape 0 has an entry below 1}}
  %a = layout.constant #layout.layout<0:1>
  return
}

// -----

func.func @stride_nested_once_more() {
  // expected-error @+1 {{invalid layout: shape (2,2) and stride ((1,2)) do not have the same profile}}
  %a = layout.constant #layout.layout<(2,2):((1,2))>
  return
}

// -----

func.func @one_stride_too_many() {
  // expected-error @+1 {{invalid layout: shape (2,2) and stride (1,2,4) do not have the same profile}}
  %a = layout.constant #layout.layout<(2,2):(1,2,4)>
  return
}

// -----

func.func @swapped_nesting() {
  // expected-error @+1 {{invalid layout: shape ((2,2),2) and stride (1,(2,4)) do not have the same profile}}
  %a = layout.constant #layout.layout<((2,2),2):(1,(2,4))>
  return
}
