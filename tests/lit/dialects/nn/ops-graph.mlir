// Round-trip of the graph values: nn.constant, the catch-all nn.aten, and
// the nn.input / nn.param argument attributes of a model function.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

// Weights and user inputs are function arguments marked with nn.param /
// nn.input; unmarked arguments are allowed.
// CHECK-LABEL: func.func @graph_arguments
// CHECK-SAME: (%arg0: tensor<1x3xf32> {nn.input = "x"}, %arg1: tensor<4x3xf32> {nn.param = "fc.weight"}, %arg2: tensor<4xf32> {nn.param = "fc.bias"}, %arg3: tensor<4xf32>, %arg4: i64)
// CHECK: nn.linear %arg0, %arg1, %arg2 : (tensor<1x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<1x4xf32>
func.func @graph_arguments(%x: tensor<1x3xf32> {nn.input = "x"}, %w: tensor<4x3xf32> {nn.param = "fc.weight"},
                           %b: tensor<4xf32> {nn.param = "fc.bias"}, %other: tensor<4xf32>, %n: i64) -> tensor<1x4xf32> {
  %0 = nn.linear %x, %w, %b : (tensor<1x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

// The result type is the value's type (inferred, not written).
// CHECK-LABEL: func.func @constant
// CHECK: nn.constant dense<1.000000e+00> : tensor<4x1x1xf32>
// CHECK: nn.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK: nn.constant dense<2.500000e+00> : tensor<f32>
// CHECK: nn.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>
// CHECK: nn.constant dense<true> : tensor<2xi1>
// CHECK: nn.constant dense<> : tensor<0x4xf32>
func.func @constant() -> (tensor<4x1x1xf32>, tensor<3xi64>, tensor<f32>, tensor<2x2xbf16>, tensor<2xi1>, tensor<0x4xf32>) {
  %0 = nn.constant dense<1.0> : tensor<4x1x1xf32>
  %1 = nn.constant dense<[1, 2, 3]> : tensor<3xi64>
  %2 = nn.constant dense<2.5> : tensor<f32>
  %3 = nn.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %4 = nn.constant dense<true> : tensor<2xi1>
  %5 = nn.constant dense<> : tensor<0x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x1x1xf32>, tensor<3xi64>, tensor<f32>, tensor<2x2xbf16>, tensor<2xi1>, tensor<0x4xf32>
}

// Any ElementsAttr: a resource-backed constant keeps its blob.
// CHECK-LABEL: func.func @constant_resource
// CHECK: nn.constant dense_resource<weight_blob> : tensor<2xf32>
// CHECK: nn.add {{.*}} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
func.func @constant_resource(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.constant dense_resource<weight_blob> : tensor<2xf32>
  %1 = nn.add %x, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// aten (catch-all)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @aten
// CHECK: nn.aten "aten.sub.Tensor"(%arg0, %arg1) {input_ports = ["self", "other"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: nn.aten "aten.cumsum.default"(%arg0) {params = {dim = 0 : i64, dtype = "float32"}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: nn.aten "aten.arange.start_step"() {params = {end = 8 : i64, start = 0 : i64, step = 1 : i64}} : () -> tensor<8xi64>
func.func @aten(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<8xi64>) {
  %0 = nn.aten "aten.sub.Tensor"(%a, %b) {input_ports = ["self", "other"]}
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nn.aten "aten.cumsum.default"(%a) {params = {dim = 0 : i64, dtype = "float32"}}
      : (tensor<4xf32>) -> tensor<4xf32>
  // No tensor operands.
  %2 = nn.aten "aten.arange.start_step"() {params = {start = 0 : i64, end = 8 : i64, step = 1 : i64}}
      : () -> tensor<8xi64>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<8xi64>
}

// Several results, no result, and non-tensor operands and results: types
// are not inferred for nn.aten.
// CHECK-LABEL: func.func @aten_results
// CHECK: %[[T:.*]]:2 = nn.aten "aten.topk.default"(%arg0) {input_ports = ["self"], params = {k = 3 : i64}} : (tensor<10xf32>) -> (tensor<3xf32>, tensor<3xi64>)
// CHECK: nn.aten "aten._assert_async.msg"(%arg1) {params = {assert_msg = "bad"}} : (tensor<i1>) -> ()
// CHECK: %[[S:.*]] = nn.aten "aten.sym_size.int"(%arg2) {params = {dim = 0 : i64}} : (tensor<?x4xf32>) -> index
// CHECK: nn.aten "aten.full.default"(%[[S]]) : (index) -> tensor<?xf32>
// CHECK: return %[[T]]#0, %[[T]]#1
func.func @aten_results(%x: tensor<10xf32>, %c: tensor<i1>, %d: tensor<?x4xf32>) -> (tensor<3xf32>, tensor<3xi64>, tensor<?xf32>) {
  %0:2 = nn.aten "aten.topk.default"(%x) {input_ports = ["self"], params = {k = 3 : i64}}
      : (tensor<10xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  nn.aten "aten._assert_async.msg"(%c) {params = {assert_msg = "bad"}} : (tensor<i1>) -> ()
  %n = nn.aten "aten.sym_size.int"(%d) {params = {dim = 0 : i64}} : (tensor<?x4xf32>) -> index
  %1 = nn.aten "aten.full.default"(%n) : (index) -> tensor<?xf32>
  return %0#0, %0#1, %1 : tensor<3xf32>, tensor<3xi64>, tensor<?xf32>
}

// The blob is printed after the last function.
// CHECK: dialect_resources
// CHECK-NEXT: builtin
// CHECK-NEXT: weight_blob: "0x040000000000803F00000040"
{-#
  dialect_resources: {
    builtin: {
      weight_blob: "0x040000000000803F00000040"
    }
  }
#-}
