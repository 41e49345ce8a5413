// raptor-fold-token-arithmetic, attention masks: an integer input read
// only as booleans (transformers' attention_mask.bool()) is a mask of two
// values, whose functions are tables of 2 rows; a function of it
// broadcast by an element-wise op (the keys' mask and-ed with a constant
// per query) becomes the lookup viewed and expanded, and ONNX's
// nan_to_num(softmax(s + where(c, 0, -inf))) the softmax of the scores
// plus the lookup of c ? 0 : -FLT_MAX, times min(mean(c) * 2S, 1).
// A constant in places (a causal triangle) is a product by a 0/1 constant.
// RUN: %raptor-opt %s --raptor-fold-token-arithmetic --split-input-file | FileCheck %s

// The keys' mask against 4 queries, read as floats: the lookup of [0, 1]
// by the mask, viewed as (1, 1, 1, 4) and expanded to (1, 1, 4, 4).
// CHECK-LABEL: func.func @torch_mask
// CHECK-SAME: (%[[MASK:[^:]*]]: tensor<1x4xi64> {nn.input = "attention_mask"}
// CHECK:      %[[T:.*]] = nn.constant dense<{{\[}}[0.000000e+00], [1.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: %[[L:.*]] = nn.embedding %[[T]], %[[MASK]] : (tensor<2x1xf32>, tensor<1x4xi64>) -> tensor<1x4x1xf32>
// CHECK-NEXT: %[[V:.*]] = nn.view %[[L]] {size = array<i64: 1, 4>}
// CHECK-NEXT: %[[W:.*]] = nn.view %[[V]] {size = array<i64: 1, 1, 1, 4>}
// CHECK-NEXT: %[[E:.*]] = nn.expand %[[W]] {size = array<i64: 1, 1, 4, 4>}
// CHECK-NOT:  nn.aten
// CHECK:      return %[[E]]
func.func @torch_mask(%mask: tensor<1x4xi64> {nn.input = "attention_mask"}) -> tensor<1x1x4x4xf32> {
  %0 = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %1 = nn.view %0 {size = array<i64: 1, 1, 1, 4>} : (tensor<1x4xi1>) -> tensor<1x1x1x4xi1>
  %2 = nn.constant dense<true> : tensor<1x1x4x1xi1>
  %3 = nn.aten "aten.bitwise_and.Tensor"(%2, %1) {input_ports = ["self", "other"]} : (tensor<1x1x4x1xi1>, tensor<1x1x1x4xi1>) -> tensor<1x1x4x4xi1>
  %4 = nn.aten "aten._to_copy.default"(%3) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x1x4x4xi1>) -> tensor<1x1x4x4xf32>
  return %4 : tensor<1x1x4x4xf32>
}

// -----

// A causal mask and-ed with the keys' mask: above the diagonal `false &
// mask` is false for both values, a constant; the lookup broadcast is
// multiplied by the constant 0/1 mask of the places it holds (no constant
// to add: float(false) is 0).
// CHECK-LABEL: func.func @causal
// CHECK:      %[[L:.*]] = nn.embedding %{{.*}}, %arg0 : (tensor<2x1xf32>, tensor<1x3xi64>)
// CHECK:      %[[E:.*]] = nn.expand %{{.*}} {size = array<i64: 1, 1, 3, 3>}
// CHECK-NEXT: %[[HELD:.*]] = nn.constant dense<{{\[\[\[\[}}1.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00]]]]>
// CHECK-NEXT: %[[OUT:.*]] = nn.mul %[[E]], %[[HELD]]
// CHECK-NOT:  nn.aten
// CHECK:      return %[[OUT]]
func.func @causal(%mask: tensor<1x3xi64> {nn.input = "attention_mask"}) -> tensor<1x1x3x3xf32> {
  %0 = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %1 = nn.view %0 {size = array<i64: 1, 1, 1, 3>} : (tensor<1x3xi1>) -> tensor<1x1x1x3xi1>
  %2 = nn.constant dense<[[[[true, false, false], [true, true, false], [true, true, true]]]]> : tensor<1x1x3x3xi1>
  %3 = nn.aten "aten.bitwise_and.Tensor"(%2, %1) {input_ports = ["self", "other"]} : (tensor<1x1x3x3xi1>, tensor<1x1x1x3xi1>) -> tensor<1x1x3x3xi1>
  %4 = nn.aten "aten._to_copy.default"(%3) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x1x3x3xi1>) -> tensor<1x1x3x3xf32>
  return %4 : tensor<1x1x3x3xf32>
}

// -----

// ONNX's guarded softmax over the keys' mask (2 keys, so 2S = 4).
// CHECK-LABEL: func.func @onnx_guard
// CHECK-SAME: (%[[S:[^:]*]]: tensor<1x2x2x2xf32>, %[[MASK:[^:]*]]: tensor<1x2xi64>
// CHECK:      %[[BT:.*]] = nn.constant dense<{{\[}}[-3.40282347E+38], [0.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: %[[B:.*]] = nn.embedding %[[BT]], %[[MASK]]
// CHECK:      %[[BE:.*]] = nn.expand %{{.*}} {size = array<i64: 1, 1, 2, 2>}
// CHECK-NEXT: %[[KT:.*]] = nn.constant dense<{{\[}}[0.000000e+00], [1.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: %[[K:.*]] = nn.embedding %[[KT]], %[[MASK]]
// CHECK:      %[[KE:.*]] = nn.expand %{{.*}} {size = array<i64: 1, 1, 2, 2>}
// CHECK-NEXT: %[[SUM:.*]] = nn.add %[[S]], %[[BE]]
// CHECK-NEXT: %[[P:.*]] = nn.softmax %[[SUM]] {dim = 3 : i64}
// CHECK-NEXT: %[[MEAN:.*]] = nn.mean %[[KE]] {dim = array<i64: 3>, keepdim = true}
// CHECK-NEXT: %[[TWICE:.*]] = nn.mul %[[MEAN]] scalar(4.000000e+00 : f64)
// CHECK-NEXT: %[[SOME:.*]] = nn.clamp %[[TWICE]] {max = 1.000000e+00 : f64}
// CHECK-NEXT: %[[OUT:.*]] = nn.mul %[[P]], %[[SOME]] : (tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NOT:  nn.where
// CHECK-NOT:  nn.nan_to_num
// CHECK:      return %[[OUT]]
func.func @onnx_guard(%s: tensor<1x2x2x2xf32>, %mask: tensor<1x2xi64> {nn.input = "attention_mask"}) -> tensor<1x2x2x2xf32> {
  %0 = nn.aten "onnx.Cast"(%mask) {input_ports = ["input"], params = {to = 9 : i64}} : (tensor<1x2xi64>) -> tensor<1x2xi1>
  %1 = nn.view %0 {size = array<i64: 1, 1, 1, 2>} : (tensor<1x2xi1>) -> tensor<1x1x1x2xi1>
  %2 = nn.constant dense<true> : tensor<1x1x2x1xi1>
  %3 = nn.aten "onnx.And"(%2, %1) {input_ports = ["A", "B"]} : (tensor<1x1x2x1xi1>, tensor<1x1x1x2xi1>) -> tensor<1x1x2x2xi1>
  %4 = nn.constant dense<0.000000e+00> : tensor<1xf32>
  %5 = nn.constant dense<0xFF800000> : tensor<1xf32>
  %6 = nn.where %3, %4, %5 : (tensor<1x1x2x2xi1>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  %7 = nn.add %s, %6 : (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %8 = nn.softmax %7 {dim = 3 : i64} : tensor<1x2x2x2xf32>
  %9 = nn.nan_to_num %8 {neginf = 0xFFF0000000000000 : f64, posinf = 0x7FF0000000000000 : f64} : tensor<1x2x2x2xf32>
  return %9 : tensor<1x2x2x2xf32>
}

// -----

// An integer input read as numbers (not only as booleans) is no mask: its
// float cast is left for the compile to name.
// CHECK-LABEL: func.func @numbers
// CHECK:      nn.aten "aten._to_copy.default"(%arg0)
// CHECK-NOT:  nn.embedding
func.func @numbers(%n: tensor<1x4xi64> {nn.input = "count"}) -> tensor<1x4xf32> {
  %0 = nn.aten "aten._to_copy.default"(%n) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x4xi64>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
