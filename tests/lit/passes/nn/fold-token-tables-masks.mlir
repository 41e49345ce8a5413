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

// -----

// DeBERTa's mask of query-key pairs, m_i m_j, each element a function of
// the mask at two positions (no lookup states it): the select's
// conditions are read through the integer product, [not(m_i m_j)] as
// 1 - L_i L_j and [m_i m_j] as L_i L_j, with L the lookup of [0, 1] by the
// mask broadcast along keys and along queries. The mask is also read as
// numbers (the embeddings times it), and as booleans: a mask of 0s and 1s.
// CHECK-LABEL: func.func @pairs
// CHECK-SAME: (%[[S:[^:]*]]: tensor<1x2x3x3xf32> {nn.input = "scores"}, %[[MASK:[^:]*]]: tensor<1x3xi64>
// CHECK:      %[[MIN:.*]] = nn.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK:      %[[K:.*]] = nn.view %{{.*}} {size = array<i64: 1, 1, 1, 3>} : (tensor<1x3x1xf32>)
// CHECK:      %[[Q:.*]] = nn.view %{{.*}} {size = array<i64: 1, 1, 3, 1>} : (tensor<1x3x1xf32>)
// CHECK-NEXT: %[[KQ:.*]] = nn.mul %[[K]], %[[Q]] : (tensor<1x1x1x3xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x3x3xf32>
// CHECK-NEXT: %[[NEG:.*]] = nn.mul %[[KQ]] scalar(-1.000000e+00 : f64)
// CHECK-NEXT: %[[NOT:.*]] = nn.add %[[NEG]] scalar(1.000000e+00 : f64)
// CHECK:      %[[KQ2:.*]] = nn.mul %{{.*}}, %{{.*}} : (tensor<1x1x1x3xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x3x3xf32>
// CHECK-NEXT: %[[A:.*]] = nn.mul %[[MIN]], %[[NOT]]
// CHECK-NEXT: %[[B:.*]] = nn.mul %[[S]], %[[KQ2]]
// CHECK-NEXT: %[[OUT:.*]] = nn.add %[[A]], %[[B]]
// CHECK-NOT:  nn.aten
// CHECK:      return %[[OUT]]
func.func @pairs(%s: tensor<1x2x3x3xf32> {nn.input = "scores"}, %mask: tensor<1x3xi64> {nn.input = "attention_mask"}, %x: tensor<1x3x4xf32> {nn.input = "x"}) -> (tensor<1x2x3x3xf32>, tensor<1x3x4xf32>) {
  %0 = nn.view %mask {size = array<i64: 1, 3, 1>} : (tensor<1x3xi64>) -> tensor<1x3x1xi64>
  %1 = nn.aten "aten._to_copy.default"(%0) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3x1xi64>) -> tensor<1x3x1xf32>
  %2 = nn.mul %x, %1 : (tensor<1x3x4xf32>, tensor<1x3x1xf32>) -> tensor<1x3x4xf32>
  %3 = nn.view %mask {size = array<i64: 1, 1, 1, 3>} : (tensor<1x3xi64>) -> tensor<1x1x1x3xi64>
  %4 = nn.view %mask {size = array<i64: 1, 1, 3, 1>} : (tensor<1x3xi64>) -> tensor<1x1x3x1xi64>
  %5 = nn.mul %3, %4 : (tensor<1x1x1x3xi64>, tensor<1x1x3x1xi64>) -> tensor<1x1x3x3xi64>
  %6 = nn.aten "aten._to_copy.default"(%5) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x1x3x3xi64>) -> tensor<1x1x3x3xi1>
  %7 = nn.aten "aten.bitwise_not.default"(%6) {input_ports = ["self"]} : (tensor<1x1x3x3xi1>) -> tensor<1x1x3x3xi1>
  %min = nn.constant dense<-3.40282347E+38> : tensor<f32>
  %8 = nn.where %7, %min, %s : (tensor<1x1x3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %8, %2 : tensor<1x2x3x3xf32>, tensor<1x3x4xf32>
}

// -----

// A pair of ids read through a sum: ids of a vocabulary of 5 take more
// values than a composed reading takes (4): left as it was.
// CHECK-LABEL: func.func @too_many_values
// CHECK: nn.aten "aten._to_copy.default"
func.func @too_many_values(%ids: tensor<1x3xi64> {nn.input = "ids"}) -> tensor<1x3x3xf32> {
  %t = nn.constant dense<1.0> : tensor<5x2xf32>
  %e = nn.embedding %t, %ids : (tensor<5x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
  %0 = nn.view %ids {size = array<i64: 1, 1, 3>} : (tensor<1x3xi64>) -> tensor<1x1x3xi64>
  %1 = nn.view %ids {size = array<i64: 1, 3, 1>} : (tensor<1x3xi64>) -> tensor<1x3x1xi64>
  %2 = nn.add %0, %1 : (tensor<1x1x3xi64>, tensor<1x3x1xi64>) -> tensor<1x3x3xi64>
  %3 = nn.aten "aten._to_copy.default"(%2) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3x3xi64>) -> tensor<1x3x3xf32>
  return %3 : tensor<1x3x3xf32>
}

// -----

// Read around the most frequent value only where that is exact: around
// 1e9 (three of the four pairs), 1e9 + float32(1 - 1e9) = 1e9 - 1e9 reads
// 0, not 1, at the fourth; around 1, each of the three terms adds
// float32(1e9 - 1) = 1e9, and 1 + 1e9 rounds to 1e9, as the cast does.
// CHECK-LABEL: func.func @exact_around
// CHECK-COUNT-3: scalar(1.000000e+09 : f64)
// CHECK:      %[[OUT:.*]] = nn.add %{{.*}} scalar(1.000000e+00 : f64)
// CHECK-NEXT: return %[[OUT]]
func.func @exact_around(%mask: tensor<1x3xi64> {nn.input = "attention_mask"}) -> tensor<1x3x3xf32> {
  %b = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %0 = nn.view %mask {size = array<i64: 1, 1, 3>} : (tensor<1x3xi64>) -> tensor<1x1x3xi64>
  %1 = nn.view %mask {size = array<i64: 1, 3, 1>} : (tensor<1x3xi64>) -> tensor<1x3x1xi64>
  %2 = nn.mul %0, %1 : (tensor<1x1x3xi64>, tensor<1x3x1xi64>) -> tensor<1x3x3xi64>
  %3 = nn.mul %2 scalar(-999999999 : i64) : (tensor<1x3x3xi64>) -> tensor<1x3x3xi64>
  %4 = nn.add %3 scalar(1000000000 : i64) : (tensor<1x3x3xi64>) -> tensor<1x3x3xi64>
  %5 = nn.aten "aten._to_copy.default"(%4) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3x3xi64>) -> tensor<1x3x3xf32>
  return %5 : tensor<1x3x3xf32>
}

// -----

// ESM's embeddings times its mask, read as numbers by float arithmetic
// itself (torch promotes the integers): the lookup of [0, 1] by the mask.
// CHECK-LABEL: func.func @promoted
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x3x4xf32> {nn.input = "x"}, %[[MASK:[^:]*]]: tensor<1x3xi64>
// CHECK:      %[[L:.*]] = nn.embedding %{{.*}}, %[[MASK]] : (tensor<2x1xf32>, tensor<1x3xi64>) -> tensor<1x3x1xf32>
// CHECK:      nn.mul %[[X]], %{{.*}} : (tensor<1x3x4xf32>, tensor<1x3x1xf32>) -> tensor<1x3x4xf32>
func.func @promoted(%x: tensor<1x3x4xf32> {nn.input = "x"}, %mask: tensor<1x3xi64> {nn.input = "attention_mask"}) -> (tensor<1x3x4xf32>, tensor<1x3xi1>) {
  %0 = nn.view %mask {size = array<i64: 1, 3, 1>} : (tensor<1x3xi64>) -> tensor<1x3x1xi64>
  %1 = nn.mul %x, %0 : (tensor<1x3x4xf32>, tensor<1x3x1xi64>) -> tensor<1x3x4xf32>
  %b = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  return %1, %b : tensor<1x3x4xf32>, tensor<1x3xi1>
}

// -----

// MPT's mask made reals, where(c, 0, min), and cast back to booleans for
// its masked_fill: the reals are functions of the mask too (float32
// values, kept exactly), so the whole chain is the select's condition,
// read as [c] = L * triangle and [not c] = (1 - L) * triangle + its
// complement, with L the lookup of the keys' mask; no reals in between.
// CHECK-LABEL: func.func @reals_to_booleans
// CHECK-SAME: (%[[S:[^:]*]]: tensor<1x2x3x3xf32> {nn.input = "scores"}, %[[MASK:[^:]*]]: tensor<1x3xi64>
// CHECK:      nn.constant dense<{{\[}}[1.000000e+00], [0.000000e+00]]> : tensor<2x1xf32>
// CHECK:      %[[DROP:.*]] = nn.add %{{.*}}, %{{.*}} : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>)
// CHECK:      nn.constant dense<{{\[}}[0.000000e+00], [1.000000e+00]]> : tensor<2x1xf32>
// CHECK:      %[[KEEP:.*]] = nn.mul %{{.*}}, %{{.*}} : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>)
// CHECK-NEXT: %[[A:.*]] = nn.mul %{{.*}}, %[[DROP]]
// CHECK-NEXT: %[[B:.*]] = nn.mul %[[S]], %[[KEEP]]
// CHECK-NEXT: %[[OUT:.*]] = nn.add %[[A]], %[[B]]
// CHECK-NOT:  nn.aten
// CHECK-NOT:  nn.where
// CHECK:      return %[[OUT]]
func.func @reals_to_booleans(%s: tensor<1x2x3x3xf32> {nn.input = "scores"}, %mask: tensor<1x3xi64> {nn.input = "attention_mask"}) -> tensor<1x2x3x3xf32> {
  %0 = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %1 = nn.view %0 {size = array<i64: 1, 1, 1, 3>} : (tensor<1x3xi1>) -> tensor<1x1x1x3xi1>
  %2 = nn.constant dense<[[[[true, false, false], [true, true, false], [true, true, true]]]]> : tensor<1x1x3x3xi1>
  %3 = nn.aten "aten.bitwise_and.Tensor"(%2, %1) {input_ports = ["self", "other"]} : (tensor<1x1x3x3xi1>, tensor<1x1x1x3xi1>) -> tensor<1x1x3x3xi1>
  %zero = nn.constant dense<0.0> : tensor<f32>
  %min = nn.constant dense<-3.40282347E+38> : tensor<f32>
  %4 = nn.where %3, %zero, %min : (tensor<1x1x3x3xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %5 = nn.aten "aten._to_copy.default"(%4) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xi1>
  %6 = nn.where %5, %min, %s : (tensor<1x1x3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %6 : tensor<1x2x3x3xf32>
}

// -----

// Float arithmetic on the mask, cast back to booleans: mask * (-FLT_MAX)
// is -0.0 for 0 (false: a cast reads the number, not its bits) and
// -FLT_MAX for 1 (true); the select by it reads the lookups of [0, 1] and
// [1, 0] by the mask.
// CHECK-LABEL: func.func @real_arithmetic
// CHECK-SAME: (%[[S:[^:]*]]: tensor<1x3x1xf32> {nn.input = "scores"}, %[[MASK:[^:]*]]: tensor<1x3xi64>
// CHECK:      %[[MIN:.*]] = nn.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK-NEXT: %[[T:.*]] = nn.constant dense<{{\[}}[0.000000e+00], [1.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: %[[C:.*]] = nn.embedding %[[T]], %[[MASK]]
// CHECK-NEXT: %[[U:.*]] = nn.constant dense<{{\[}}[1.000000e+00], [0.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: %[[NOTC:.*]] = nn.embedding %[[U]], %[[MASK]]
// CHECK-NEXT: %[[A:.*]] = nn.mul %[[MIN]], %[[C]]
// CHECK-NEXT: %[[B:.*]] = nn.mul %[[S]], %[[NOTC]]
// CHECK-NEXT: %[[OUT:.*]] = nn.add %[[A]], %[[B]]
// CHECK-NEXT: return %[[OUT]]
func.func @real_arithmetic(%s: tensor<1x3x1xf32> {nn.input = "scores"}, %mask: tensor<1x3xi64> {nn.input = "attention_mask"}) -> (tensor<1x3x1xf32>, tensor<1x3xi1>) {
  %b = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %0 = nn.view %mask {size = array<i64: 1, 3, 1>} : (tensor<1x3xi64>) -> tensor<1x3x1xi64>
  %1 = nn.aten "aten._to_copy.default"(%0) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3x1xi64>) -> tensor<1x3x1xf32>
  %2 = nn.mul %1 scalar(-3.4028234663852886E+38 : f64) : (tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  %3 = nn.aten "aten._to_copy.default"(%2) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x3x1xf32>) -> tensor<1x3x1xi1>
  %min = nn.constant dense<-3.40282347E+38> : tensor<f32>
  %4 = nn.where %3, %min, %s : (tensor<1x3x1xi1>, tensor<f32>, tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  return %4, %b : tensor<1x3x1xf32>, tensor<1x3xi1>
}

// -----

// Positions counted past a padding index other than 0 compare the input
// with that index, which says nothing of its values being 0 and 1: no
// mask, its cast left as it was.
// CHECK-LABEL: func.func @positions_past_one
// CHECK: nn.token_positions
// CHECK: nn.aten "aten._to_copy.default"
func.func @positions_past_one(%ids: tensor<1x3xi64> {nn.input = "ids"}) -> (tensor<1x3xi64>, tensor<1x3xf32>) {
  %p = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<1x3xi64>) -> tensor<1x3xi64>
  %b = nn.aten "aten._to_copy.default"(%ids) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %f = nn.aten "aten._to_copy.default"(%b) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3xi1>) -> tensor<1x3xf32>
  return %p, %f : tensor<1x3xi64>, tensor<1x3xf32>
}
