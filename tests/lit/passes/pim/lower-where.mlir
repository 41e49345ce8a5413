// A where of compile-time operands is computed by the compiler (T5's
// position bias over its mask): [1, 2, 3] where [true, false, true] else 9
// is [1, 9, 3], a linear layer's bias read off by hand; a where of values
// computed at run time is refused (the instruction set has no select),
// naming the pass that turns a known condition into arithmetic
// (raptor compile runs it first; expand-selects.mlir).
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[1.000000e+00, 9.000000e+00, 3.000000e+00]> : tensor<3xf32>
func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %c = nn.constant dense<[true, false, true]> : tensor<3xi1>
  %a = nn.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %k = nn.constant dense<9.0> : tensor<f32>
  %b = nn.where %c, %a, %k : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}

// -----

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x4xf32> {
  %c = nn.constant dense<[true, false, true, false]> : tensor<4xi1>
  %k = nn.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{'nn.where' op on operands computed at run time has no PIM lowering (the instruction set has no select; a where of compile-time operands is computed by the compiler, one whose condition alone is known becomes products by it in raptor-expand-selects)}}
  %0 = nn.where %c, %x, %k : (tensor<4xi1>, tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
