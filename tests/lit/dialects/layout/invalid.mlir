// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @profile() {
  // expected-error @+1 {{invalid layout: shape (2,2) and stride (1) do not have the same profile}}
  %a = layout.constant #layout.layout<(2,2):(1)>
  return
}

// -----

func.func @zero_shape() {
  // expected-error @+1 {{invalid layout: shape (2,0) has an entry below 1}}
  %a = layout.constant #layout.layout<(2,0):(1,2)>
  return
}

// -----

// Sizes and offsets are int64; a layout whose extent overflows is refused.
func.func @overflow() {
  // expected-error @+1 {{invalid layout: layout (4294967296,4294967296):(1,4294967296) is too large: its size or offsets overflow 64-bit integers}}
  %a = layout.constant #layout.layout<(4294967296,4294967296):(1,4294967296)>
  return
}

// -----

func.func @not_complementable() {
  %a = layout.constant #layout.layout<(2,2):(1,1)>
  // expected-error @+1 {{(2,2):(1,1) is not complementable}}
  %b = layout.complement %a size 8
  return
}

// -----

func.func @not_composable() {
  %a = layout.constant #layout.layout<(3,4):(1,5)>
  %b = layout.constant #layout.layout<2:2>
  // expected-error @+1 {{stride 2 and mode size 3 do not divide one another}}
  %c = layout.compose %a, %b
  return
}

// -----

func.func @outside() {
  %a = layout.constant #layout.layout<4:1>
  %b = layout.constant #layout.layout<3:2>
  // expected-error @+1 {{outside the domain of size 4}}
  %c = layout.compose %a, %b
  return
}

// -----

func.func @not_tractable() {
  %a = layout.constant #layout.layout<(2,2,2):(1,7,4)>
  %b = layout.constant #layout.layout<64:1>
  // expected-error @+1 {{(2,2,2):(1,7,4) is not tractable (the chapter 4 algorithm requires it)}}
  %c = layout.compose_tractable %b, %a
  return
}
