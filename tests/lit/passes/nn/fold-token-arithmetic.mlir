// raptor-fold-token-arithmetic: RoBERTa's position ids from its padding,
// as torch.export and the ONNX exporter give them, become
// nn.token_positions; a gather from a tensor of one value becomes that
// value; other arithmetic on ids is left as it was.
// RUN: %raptor-opt %s --raptor-fold-token-arithmetic --split-input-file | FileCheck %s

// torch.export: ne, casts, cumsum, type_as, + 0, * mask, cast, + pad. The
// token-type ids gathered by the positions from a buffer of zeros are zeros.
// CHECK-LABEL: func.func @roberta_export
// CHECK-SAME: (%[[IDS:.*]]: tensor<1x12xi64>
// CHECK-NEXT: %[[POS:.*]] = nn.token_positions %[[IDS]] {padding_idx = 1 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
// CHECK-NEXT: %[[TYPES:.*]] = nn.constant dense<0> : tensor<1x12xi64>
// CHECK-NEXT: %[[T:.*]] = nn.embedding %{{.*}}, %[[TYPES]]
// CHECK-NEXT: %[[P:.*]] = nn.embedding %{{.*}}, %[[POS]]
// CHECK-NOT: nn.aten
func.func @roberta_export(%ids: tensor<1x12xi64>, %types: tensor<2x4xf32>, %table: tensor<32x4xf32>) -> (tensor<1x12x4xf32>, tensor<1x12x4xf32>) {
  %0 = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 1 : i64}} : (tensor<1x12xi64>) -> tensor<1x12xi1>
  %1 = nn.aten "aten._to_copy.default"(%0) {input_ports = ["self"], params = {dtype = "torch.int32"}} : (tensor<1x12xi1>) -> tensor<1x12xi32>
  %2 = nn.aten "aten.cumsum.default"(%1) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<1x12xi32>) -> tensor<1x12xi64>
  %3 = nn.aten "aten._to_copy.default"(%2) {input_ports = ["self"], params = {dtype = "torch.int32"}} : (tensor<1x12xi64>) -> tensor<1x12xi32>
  %4 = nn.add %3 scalar(0 : i64) : (tensor<1x12xi32>) -> tensor<1x12xi32>
  %5 = nn.mul %4, %1 : (tensor<1x12xi32>, tensor<1x12xi32>) -> tensor<1x12xi32>
  %6 = nn.aten "aten._to_copy.default"(%5) {input_ports = ["self"], params = {dtype = "torch.int64"}} : (tensor<1x12xi32>) -> tensor<1x12xi64>
  %7 = nn.add %6 scalar(1 : i64) : (tensor<1x12xi64>) -> tensor<1x12xi64>
  %8 = nn.constant dense<0> : tensor<1x32xi64>
  %9 = nn.expand %8 {size = array<i64: 1, -1>} : (tensor<1x32xi64>) -> tensor<1x32xi64>
  %10 = nn.aten "aten.gather.default"(%9, %7) {input_ports = ["self", "index"], params = {dim = 1 : i64}} : (tensor<1x32xi64>, tensor<1x12xi64>) -> tensor<1x12xi64>
  %11 = nn.embedding %types, %10 : (tensor<2x4xf32>, tensor<1x12xi64>) -> tensor<1x12x4xf32>
  %12 = nn.embedding %table, %7 {padding_idx = 1 : i64} : (tensor<32x4xf32>, tensor<1x12xi64>) -> tensor<1x12x4xf32>
  return %11, %12 : tensor<1x12x4xf32>, tensor<1x12x4xf32>
}

// -----

// The ONNX exporter: Not(Equal(ids, pad)), Cast, CumSum by an axis
// constant, Mul with the mask first, Cast, Add of a constant tensor; a past
// length of 3 added to the sums is the offset.
// CHECK-LABEL: func.func @roberta_onnx
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x5xi64>)
// CHECK-NEXT: %[[POS:.*]] = nn.token_positions %[[IDS]] {offset = 3 : i64, padding_idx = 0 : i64}
// CHECK-NEXT: return %[[POS]]
func.func @roberta_onnx(%ids: tensor<2x5xi64>) -> tensor<2x5xi64> {
  %pad = nn.constant dense<0> : tensor<1xi64>
  %0 = nn.aten "onnx.Equal"(%pad, %ids) {input_ports = ["A", "B"]} : (tensor<1xi64>, tensor<2x5xi64>) -> tensor<2x5xi1>
  %1 = nn.aten "onnx.Not"(%0) {input_ports = ["X"]} : (tensor<2x5xi1>) -> tensor<2x5xi1>
  %2 = nn.aten "onnx.Cast"(%1) {input_ports = ["input"], params = {to = 6 : i64}} : (tensor<2x5xi1>) -> tensor<2x5xi32>
  %axis = nn.constant dense<-1> : tensor<1xi32>
  %3 = nn.aten "onnx.CumSum"(%2, %axis) {input_ports = ["x", "axis"]} : (tensor<2x5xi32>, tensor<1xi32>) -> tensor<2x5xi32>
  %4 = nn.add %3 scalar(3 : i64) : (tensor<2x5xi32>) -> tensor<2x5xi32>
  %5 = nn.mul %2, %4 : (tensor<2x5xi32>, tensor<2x5xi32>) -> tensor<2x5xi32>
  %6 = nn.aten "onnx.Cast"(%5) {input_ports = ["input"], params = {to = 7 : i64}} : (tensor<2x5xi32>) -> tensor<2x5xi64>
  %c = nn.constant dense<0> : tensor<1xi64>
  %7 = nn.add %6, %c : (tensor<2x5xi64>, tensor<1xi64>) -> tensor<2x5xi64>
  return %7 : tensor<2x5xi64>
}

// -----

// Not the positions: the sum runs along the first dimension, the mask
// multiplied is another comparison's, the sum is exclusive. All left as
// they were.
// CHECK-LABEL: func.func @not_positions
// CHECK-NOT: nn.token_positions
// CHECK-COUNT-3: nn.add %{{.*}} scalar(1 : i64)
func.func @not_positions(%ids: tensor<2x5xi64>) -> (tensor<2x5xi64>, tensor<2x5xi64>, tensor<2x5xi64>) {
  %0 = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 2 : i64}} : (tensor<2x5xi64>) -> tensor<2x5xi1>
  %1 = nn.aten "aten._to_copy.default"(%0) {input_ports = ["self"], params = {dtype = "torch.int64"}} : (tensor<2x5xi1>) -> tensor<2x5xi64>
  %4 = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 1 : i64}} : (tensor<2x5xi64>) -> tensor<2x5xi1>
  %5 = nn.aten "aten._to_copy.default"(%4) {input_ports = ["self"], params = {dtype = "torch.int64"}} : (tensor<2x5xi1>) -> tensor<2x5xi64>
  %6 = nn.aten "aten.cumsum.default"(%5) {input_ports = ["self"], params = {dim = 0 : i64}} : (tensor<2x5xi64>) -> tensor<2x5xi64>
  %7 = nn.mul %6, %5 : (tensor<2x5xi64>, tensor<2x5xi64>) -> tensor<2x5xi64>
  %first_dim = nn.add %7 scalar(1 : i64) : (tensor<2x5xi64>) -> tensor<2x5xi64>
  %8 = nn.aten "aten.cumsum.default"(%5) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<2x5xi64>) -> tensor<2x5xi64>
  %9 = nn.mul %8, %1 : (tensor<2x5xi64>, tensor<2x5xi64>) -> tensor<2x5xi64>
  %other_mask = nn.add %9 scalar(1 : i64) : (tensor<2x5xi64>) -> tensor<2x5xi64>
  %axis = nn.constant dense<1> : tensor<1xi32>
  %10 = nn.aten "onnx.CumSum"(%5, %axis) {input_ports = ["x", "axis"], params = {exclusive = 1 : i64}} : (tensor<2x5xi64>, tensor<1xi32>) -> tensor<2x5xi64>
  %11 = nn.mul %10, %5 : (tensor<2x5xi64>, tensor<2x5xi64>) -> tensor<2x5xi64>
  %exclusive = nn.add %11 scalar(1 : i64) : (tensor<2x5xi64>) -> tensor<2x5xi64>
  return %first_dim, %other_mask, %exclusive : tensor<2x5xi64>, tensor<2x5xi64>, tensor<2x5xi64>
}

// -----

// Padding numbered other than by the padding index compared with: the
// integers added after the product (here - 1, then + 3: 2) are the base,
// matched from the last addition.
// CHECK-LABEL: func.func @base
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x5xi64>)
// CHECK-NEXT: %[[POS:.*]] = nn.token_positions %[[IDS]] {base = 2 : i64, padding_idx = 1 : i64}
// CHECK-NEXT: return %[[POS]]
func.func @base(%ids: tensor<2x5xi64>) -> tensor<2x5xi64> {
  %0 = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 1 : i64}} : (tensor<2x5xi64>) -> tensor<2x5xi1>
  %1 = nn.aten "aten._to_copy.default"(%0) {input_ports = ["self"], params = {dtype = "torch.int64"}} : (tensor<2x5xi1>) -> tensor<2x5xi64>
  %2 = nn.aten "aten.cumsum.default"(%1) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<2x5xi64>) -> tensor<2x5xi64>
  %3 = nn.mul %2, %1 : (tensor<2x5xi64>, tensor<2x5xi64>) -> tensor<2x5xi64>
  %4 = nn.add %3 scalar(-1 : i64) : (tensor<2x5xi64>) -> tensor<2x5xi64>
  %5 = nn.add %4 scalar(3 : i64) : (tensor<2x5xi64>) -> tensor<2x5xi64>
  return %5 : tensor<2x5xi64>
}

// -----

// OPT's positions from its attention mask of 0s and 1s (read elsewhere
// only as booleans): cumsum(mask) * mask - 1, then its table's offset of 2.
// CHECK-LABEL: func.func @opt
// CHECK-SAME: (%[[MASK:.*]]: tensor<1x6xi64>
// CHECK: %[[POS:.*]] = nn.token_positions %[[MASK]] {base = 1 : i64, padding_idx = 0 : i64}
// CHECK-NOT: cumsum
// CHECK: return %[[POS]]
func.func @opt(%mask: tensor<1x6xi64> {nn.input = "attention_mask"}) -> (tensor<1x6xi64>, tensor<1x6xi1>) {
  %0 = nn.aten "aten.cumsum.default"(%mask) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %1 = nn.mul %0, %mask : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi64>
  %2 = nn.sub %1 scalar(1 : i64) : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %3 = nn.add %2 scalar(2 : i64) : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %b = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x6xi64>) -> tensor<1x6xi1>
  return %3, %b : tensor<1x6xi64>, tensor<1x6xi1>
}

// -----

// The same from ONNX: casts around the running sum.
// CHECK-LABEL: func.func @opt_onnx
// CHECK: nn.token_positions %{{.*}} {base = 1 : i64, padding_idx = 0 : i64}
// CHECK-NOT: CumSum
func.func @opt_onnx(%mask: tensor<1x6xi64> {nn.input = "attention_mask"}) -> tensor<1x6xi64> {
  %axis = nn.constant dense<1> : tensor<1xi64>
  %0 = nn.aten "onnx.CumSum"(%mask, %axis) {input_ports = ["x", "axis"]} : (tensor<1x6xi64>, tensor<1xi64>) -> tensor<1x6xi64>
  %1 = nn.mul %0, %mask : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi64>
  %one = nn.constant dense<1> : tensor<i64>
  %2 = nn.sub %1, %one : (tensor<1x6xi64>, tensor<i64>) -> tensor<1x6xi64>
  %3 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 7 : i64}} : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %two = nn.constant dense<2> : tensor<i64>
  %4 = nn.add %3, %two : (tensor<1x6xi64>, tensor<i64>) -> tensor<1x6xi64>
  return %4 : tensor<1x6xi64>
}

// -----

// Bloom's ALiBi positions, (cumsum(mask) - 1) * mask: the product is the
// root (base 0), the offset -1; read as reals (the slopes times them), they
// are the lookup of 0, 1, ..., 5 (base + offset + length) by the positions.
// CHECK-LABEL: func.func @bloom
// CHECK-SAME: (%[[MASK:[^:]*]]: tensor<1x6xi64>
// CHECK:      %[[POS:.*]] = nn.token_positions %[[MASK]] {offset = -1 : i64, padding_idx = 0 : i64}
// CHECK:      %[[T:.*]] = nn.constant dense<{{\[}}[0.000000e+00], [1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00], [5.000000e+00]]> : tensor<6x1xf32>
// CHECK-NEXT: %[[L:.*]] = nn.embedding %[[T]], %[[POS]] : (tensor<6x1xf32>, tensor<1x6xi64>) -> tensor<1x6x1xf32>
// CHECK-NEXT: %[[V:.*]] = nn.view %[[L]] {size = array<i64: 1, 6>}
// CHECK-NEXT: %[[W:.*]] = nn.view %[[V]] {size = array<i64: 1, 1, 6>}
// CHECK-NEXT: %[[A:.*]] = nn.mul %{{.*}}, %[[W]] : (tensor<2x1xf32>, tensor<1x1x6xf32>) -> tensor<1x2x6xf32>
// CHECK-NOT:  cumsum
// CHECK:      return %[[A]]
func.func @bloom(%mask: tensor<1x6xi64> {nn.input = "attention_mask"}) -> (tensor<1x2x6xf32>, tensor<1x6xi1>) {
  %0 = nn.aten "aten.cumsum.default"(%mask) {input_ports = ["self"], params = {dim = -1 : i64}} : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %1 = nn.sub %0 scalar(1 : i64) : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %2 = nn.mul %1, %mask : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi64>
  %3 = nn.view %2 {size = array<i64: 1, 1, 6>} : (tensor<1x6xi64>) -> tensor<1x1x6xi64>
  %slopes = nn.constant dense<[[6.250000e-02], [3.906250e-03]]> : tensor<2x1xf32>
  %4 = nn.mul %slopes, %3 : (tensor<2x1xf32>, tensor<1x1x6xi64>) -> tensor<1x2x6xf32>
  %b = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x6xi64>) -> tensor<1x6xi1>
  return %4, %b : tensor<1x2x6xf32>, tensor<1x6xi1>
}

// -----

// Not positions: an offset of -2 numbers the first kept position -1.
// CHECK-LABEL: func.func @below_the_base
// CHECK-NOT: nn.token_positions
func.func @below_the_base(%mask: tensor<1x6xi64> {nn.input = "attention_mask"}) -> (tensor<1x6xi64>, tensor<1x6xi1>) {
  %0 = nn.aten "aten.cumsum.default"(%mask) {input_ports = ["self"], params = {dim = -1 : i64}} : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %1 = nn.sub %0 scalar(2 : i64) : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %2 = nn.mul %1, %mask : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi64>
  %b = nn.aten "aten._to_copy.default"(%mask) {input_ports = ["self"], params = {dtype = "torch.bool"}} : (tensor<1x6xi64>) -> tensor<1x6xi1>
  return %2, %b : tensor<1x6xi64>, tensor<1x6xi1>
}

// -----

// Not OPT's positions: an integer input also read as numbers (here as
// token ids of an embedding) is no mask of 0s and 1s, whose running sum
// counts the positions it keeps; a sum that ends below 0 at padding
// numbers nothing.
// CHECK-LABEL: func.func @not_a_mask
// CHECK-NOT: nn.token_positions
// CHECK-COUNT-2: aten.cumsum
func.func @not_a_mask(%ids: tensor<1x6xi64> {nn.input = "ids"}, %m: tensor<1x6xi64> {nn.input = "mask"}) -> (tensor<1x6xi64>, tensor<1x6x2xf32>, tensor<1x6xi64>) {
  %0 = nn.aten "aten.cumsum.default"(%ids) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %1 = nn.mul %0, %ids : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi64>
  %2 = nn.add %1 scalar(1 : i64) : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %table = nn.constant dense<1.0> : tensor<10x2xf32>
  %e = nn.embedding %table, %ids : (tensor<10x2xf32>, tensor<1x6xi64>) -> tensor<1x6x2xf32>
  %3 = nn.aten "aten.cumsum.default"(%m) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %4 = nn.mul %3, %m : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi64>
  %5 = nn.sub %4 scalar(2 : i64) : (tensor<1x6xi64>) -> tensor<1x6xi64>
  %6 = nn.add %5 scalar(1 : i64) : (tensor<1x6xi64>) -> tensor<1x6xi64>
  return %2, %e, %6 : tensor<1x6xi64>, tensor<1x6x2xf32>, tensor<1x6xi64>
}

// A gather from a tensor of several values stays.
// CHECK-LABEL: func.func @varied_gather
// CHECK: nn.aten "aten.gather.default"
func.func @varied_gather(%i: tensor<1x3xi64>) -> tensor<1x3xi64> {
  %0 = nn.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
  %1 = nn.aten "aten.gather.default"(%0, %i) {input_ports = ["self", "index"], params = {dim = 1 : i64}} : (tensor<1x4xi64>, tensor<1x3xi64>) -> tensor<1x3xi64>
  return %1 : tensor<1x3xi64>
}

// -----

// transformers' sequence classifiers: logits[arange(B), argmax(arange(L) *
// (ids != pad), -1)] (the positions' arange on either side of the product)
// becomes nn.last_token.
// CHECK-LABEL: func.func @last_token
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x6xi64>, %[[X:.*]]: tensor<2x6x3xf32>)
// CHECK-NEXT: %[[R:.*]] = nn.last_token %[[X]], %[[IDS]] {padding_idx = 0 : i64} : (tensor<2x6x3xf32>, tensor<2x6xi64>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[S:.*]] = nn.last_token %[[X]], %[[IDS]] {padding_idx = 5 : i64}
// CHECK-NOT: nn.aten
// CHECK-NOT: nn.index
// CHECK: return %[[R]], %[[S]]
func.func @last_token(%ids: tensor<2x6xi64>, %x: tensor<2x6x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 0 : i64}} : (tensor<2x6xi64>) -> tensor<2x6xi1>
  %1 = nn.aten "aten._to_copy.default"(%0) {input_ports = ["self"], params = {dtype = "torch.int32"}} : (tensor<2x6xi1>) -> tensor<2x6xi32>
  %2 = nn.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
  %3 = nn.mul %2, %1 : (tensor<6xi32>, tensor<2x6xi32>) -> tensor<2x6xi32>
  %4 = nn.aten "aten.argmax.default"(%3) {input_ports = ["self"], params = {dim = -1 : i64, keepdim = false}} : (tensor<2x6xi32>) -> tensor<2xi64>
  %5 = nn.constant dense<[0, 1]> : tensor<2xi64>
  %6 = nn.index %x, %5, %4 : (tensor<2x6x3xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  %7 = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 5 : i64}} : (tensor<2x6xi64>) -> tensor<2x6xi1>
  %8 = nn.aten "aten._to_copy.default"(%7) {input_ports = ["self"], params = {dtype = "torch.int64"}} : (tensor<2x6xi1>) -> tensor<2x6xi64>
  %9 = nn.constant dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>
  %10 = nn.mul %8, %9 : (tensor<2x6xi64>, tensor<1x6xi64>) -> tensor<2x6xi64>
  %11 = nn.aten "aten.argmax.default"(%10) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<2x6xi64>) -> tensor<2xi64>
  %12 = nn.index %x, %5, %11 : (tensor<2x6x3xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  return %6, %12 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The ONNX exporter's form: Not(Equal), casts, the product, ArgMax, plus
// L arange(B) (here 0 and 6), a gather of the flattened scores (an
// nn.embedding of computed rows); a gather at other offsets stays.
// CHECK-LABEL: func.func @last_token_onnx
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x6xi64>, %[[X:.*]]: tensor<2x6x3xf32>)
// CHECK: %[[R:.*]] = nn.last_token %[[X]], %[[IDS]] {padding_idx = 0 : i64} : (tensor<2x6x3xf32>, tensor<2x6xi64>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = nn.embedding
// CHECK: return %[[R]], %[[S]]
func.func @last_token_onnx(%ids: tensor<2x6xi64>, %x: tensor<2x6x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = nn.constant dense<0> : tensor<1xi64>
  %1 = nn.aten "onnx.Equal"(%ids, %0) {input_ports = ["A", "B"]} : (tensor<2x6xi64>, tensor<1xi64>) -> tensor<2x6xi1>
  %2 = nn.aten "onnx.Not"(%1) {input_ports = ["X"]} : (tensor<2x6xi1>) -> tensor<2x6xi1>
  %3 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 7 : i64}} : (tensor<2x6xi1>) -> tensor<2x6xi64>
  %4 = nn.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>
  %5 = nn.mul %3, %4 : (tensor<2x6xi64>, tensor<6xi64>) -> tensor<2x6xi64>
  %6 = nn.aten "onnx.ArgMax"(%5) {input_ports = ["data"], params = {axis = -1 : i64, keepdims = 0 : i64, select_last_index = 0 : i64}} : (tensor<2x6xi64>) -> tensor<2xi64>
  %7 = nn.view %x {size = array<i64: 12, 3>} : (tensor<2x6x3xf32>) -> tensor<12x3xf32>
  %8 = nn.constant dense<[0, 6]> : tensor<2xi64>
  %9 = nn.add %6, %8 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %10 = nn.embedding %7, %9 : (tensor<12x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %11 = nn.constant dense<[0, 5]> : tensor<2xi64>
  %12 = nn.add %6, %11 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %13 = nn.embedding %7, %12 : (tensor<12x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %10, %13 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Near misses stay as they were: positions that do not start at 0, a batch
// index that is not arange(B), an argmax over the batch.
// CHECK-LABEL: func.func @not_last_token
// CHECK-NOT: nn.last_token
// CHECK-COUNT-3: nn.index
func.func @not_last_token(%ids: tensor<2x6xi64>, %x: tensor<2x6x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<6x3xf32>) {
  %0 = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 0 : i64}} : (tensor<2x6xi64>) -> tensor<2x6xi1>
  %1 = nn.aten "aten._to_copy.default"(%0) {input_ports = ["self"], params = {dtype = "torch.int32"}} : (tensor<2x6xi1>) -> tensor<2x6xi32>
  %2 = nn.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %3 = nn.mul %2, %1 : (tensor<6xi32>, tensor<2x6xi32>) -> tensor<2x6xi32>
  %4 = nn.aten "aten.argmax.default"(%3) {input_ports = ["self"], params = {dim = -1 : i64, keepdim = false}} : (tensor<2x6xi32>) -> tensor<2xi64>
  %5 = nn.constant dense<[0, 1]> : tensor<2xi64>
  %6 = nn.index %x, %5, %4 : (tensor<2x6x3xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  %7 = nn.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
  %8 = nn.mul %7, %1 : (tensor<6xi32>, tensor<2x6xi32>) -> tensor<2x6xi32>
  %9 = nn.aten "aten.argmax.default"(%8) {input_ports = ["self"], params = {dim = -1 : i64, keepdim = false}} : (tensor<2x6xi32>) -> tensor<2xi64>
  %10 = nn.constant dense<[1, 0]> : tensor<2xi64>
  %11 = nn.index %x, %10, %9 : (tensor<2x6x3xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  %12 = nn.aten "aten.argmax.default"(%8) {input_ports = ["self"], params = {dim = 0 : i64, keepdim = false}} : (tensor<2x6xi32>) -> tensor<6xi64>
  %13 = nn.constant dense<0> : tensor<6xi64>
  %14 = nn.index %x, %13, %12 : (tensor<2x6x3xf32>, tensor<6xi64>, tensor<6xi64>) -> tensor<6x3xf32>
  return %6, %11, %14 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<6x3xf32>
}
