// raptor-fold-token-arithmetic, token tables on the forms the torch
// importer emits (aten overloads kept generic, clones and broadcasts of
// constants): Canine's hash of ids no table reads directly (the vocabulary
// is then the smallest table a function of them reads), torch's floor and
// truncating division and remainder of negative numbers, BART's decoder
// ids (a clone of the shifted ids, a broadcast start token, -100 mapped),
// a count over every dimension, MBart's start token (a gather at the
// count of ids that are not padding), M2M100's decoder positions. Tables
// counted by hand.
// RUN: %raptor-opt %s --raptor-fold-token-arithmetic --split-input-file | FileCheck %s

// (id + 1) * 3 mod 5 for ids 0..4 (the 5-row table is the vocabulary):
// 3, 6, 9, 12, 15 mod 5.
// CHECK-LABEL: func.func @hashed
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<1x3xi64> {nn.input = "input_ids"}, %[[W:[^:]*]]: tensor<5x2xf32>
// CHECK:      %[[F:.*]] = nn.constant dense<[3, 1, 4, 2, 0]> : tensor<5xi64>
// CHECK-NEXT: %[[WF:.*]] = nn.embedding %[[W]], %[[F]] : (tensor<5x2xf32>, tensor<5xi64>) -> tensor<5x2xf32>
// CHECK-NEXT: nn.embedding %[[WF]], %[[IDS]]
// CHECK-NOT:  nn.aten
func.func @hashed(%ids: tensor<1x3xi64> {nn.input = "input_ids"}, %w: tensor<5x2xf32> {nn.param = "w"}) -> tensor<1x3x2xf32> {
  %0 = nn.add %ids scalar(1 : i64) : (tensor<1x3xi64>) -> tensor<1x3xi64>
  %1 = nn.mul %0 scalar(3 : i64) : (tensor<1x3xi64>) -> tensor<1x3xi64>
  %2 = nn.aten "aten.remainder.Scalar"(%1) {input_ports = ["self"], params = {other = 5 : i64}} : (tensor<1x3xi64>) -> tensor<1x3xi64>
  %3 = nn.embedding %w, %2 : (tensor<5x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
  return %3 : tensor<1x3x2xf32>
}

// -----

// (id - 3) for ids 0..5 is -3..2: floor((id - 3) / 2) = -2 -1 -1 0 0 1,
// truncated -1 -1 0 0 0 1, (id - 3) mod 4 (the divisor's sign) 1 2 3 0 1 2.
// CHECK-LABEL: func.func @rounding
// CHECK:      nn.constant dense<{{\[}}[-2.000000e+00], [-1.000000e+00], [-1.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK:      nn.constant dense<{{\[}}[-1.000000e+00], [-1.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK:      nn.constant dense<{{\[}}[1.000000e+00], [2.000000e+00], [3.000000e+00], [0.000000e+00], [1.000000e+00], [2.000000e+00]]> : tensor<6x1xf32>
// CHECK-NOT:  nn.aten
func.func @rounding(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<6x2xf32> {nn.param = "w"}) -> (tensor<1x4x2xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.sub %ids scalar(3 : i64) : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %2 = nn.aten "aten.div.Tensor_mode"(%1) {input_ports = ["self"], params = {other = 2 : i64, rounding_mode = "floor"}} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %3 = nn.aten "aten._to_copy.default"(%2) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x4xi64>) -> tensor<1x4xf32>
  %4 = nn.aten "aten.div.Tensor_mode"(%1) {input_ports = ["self"], params = {other = 2 : i64, rounding_mode = "trunc"}} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %5 = nn.aten "aten._to_copy.default"(%4) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x4xi64>) -> tensor<1x4xf32>
  %6 = nn.aten "aten.remainder.Scalar"(%1) {input_ports = ["self"], params = {other = 4 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %7 = nn.aten "aten._to_copy.default"(%6) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x4xi64>) -> tensor<1x4xf32>
  return %0, %3, %5, %7 : tensor<1x4x2xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// The start token 2 (a broadcast clone), then ids 0..2 with 5 read as 1:
// row 2 of W, then rows 0..2 of the lookup in W[0 1 2 3 4 1].
// CHECK-LABEL: func.func @shifted
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<1x4xi64> {nn.input = "input_ids"}, %[[W:[^:]*]]: tensor<6x2xf32>
// CHECK:      %[[TWO:.*]] = nn.constant dense<2> : tensor<1xi64>
// CHECK-NEXT: %[[START:.*]] = nn.embedding %[[W]], %[[TWO]]
// CHECK-NEXT: %[[F:.*]] = nn.constant dense<[0, 1, 2, 3, 4, 1]> : tensor<6xi64>
// CHECK-NEXT: %[[WF:.*]] = nn.embedding %[[W]], %[[F]]
// CHECK-NEXT: %[[L:.*]] = nn.embedding %[[WF]], %[[IDS]]
// CHECK-NEXT: %[[LV:.*]] = nn.view %[[L]] {size = array<i64: 4, 2>}
// CHECK-NEXT: %[[FIRST:.*]] = nn.slice %[[LV]] {end = 3 : i64, start = 0 : i64}
// CHECK-NEXT: nn.cat %[[START]], %[[FIRST]]
// CHECK-NOT:  nn.where
// CHECK-NOT:  nn.aten
func.func @shifted(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<6x2xf32> {nn.param = "w"}) -> (tensor<1x4x2xf32>, tensor<1x4x2xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.slice %ids {dim = 1 : i64, end = -1 : i64} : (tensor<1x4xi64>) -> tensor<1x3xi64>
  %2 = nn.clone %1 : tensor<1x3xi64>
  %3 = nn.constant dense<0> : tensor<1x4xi64>
  %4 = nn.slice %3 {dim = 1 : i64, end = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %5 = nn.cat %4, %2 {dim = 1 : i64} : (tensor<1x1xi64>, tensor<1x3xi64>) -> tensor<1x4xi64>
  %6 = nn.constant dense<[[true, false, false, false]]> : tensor<1x4xi1>
  %7 = nn.constant dense<2> : tensor<i64>
  %8 = nn.clone %7 : tensor<i64>
  %9 = nn.expand %8 {size = array<i64: 1, 4>} : (tensor<i64>) -> tensor<1x4xi64>
  %10 = nn.where %6, %9, %5 : (tensor<1x4xi1>, tensor<1x4xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %11 = nn.aten "aten.eq.Scalar"(%10) {input_ports = ["self"], params = {other = 5 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %12 = nn.constant dense<1> : tensor<i64>
  %13 = nn.where %11, %12, %10 : (tensor<1x4xi1>, tensor<i64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %14 = nn.embedding %w, %13 : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %0, %14 : tensor<1x4x2xf32>, tensor<1x4x2xf32>
}

// -----

// aten.sum without dims counts over both: [id > 3] averaged over the 6
// positions, times 6; so does aten.sum.default, which keeps no dimension
// unless told (no keepdim).
// CHECK-LABEL: func.func @count_all
// CHECK:      nn.constant dense<{{\[}}[0.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK:      %[[MEAN:.*]] = nn.mean %{{.*}} {dim = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: %[[COUNT:.*]] = nn.mul %[[MEAN]] scalar(6.000000e+00 : f64)
// CHECK:      %[[MEAN2:.*]] = nn.mean %{{.*}} {dim = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: %[[COUNT2:.*]] = nn.mul %[[MEAN2]] scalar(6.000000e+00 : f64)
// CHECK-NOT:  nn.aten
// CHECK:      return %{{.*}}, %[[COUNT]], %[[COUNT2]]
func.func @count_all(%ids: tensor<2x3xi64> {nn.input = "input_ids"}, %w: tensor<6x2xf32> {nn.param = "w"}) -> (tensor<2x3x2xf32>, tensor<f32>, tensor<f32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
  %1 = nn.aten "aten.gt.Scalar"(%ids) {input_ports = ["self"], params = {other = 3 : i64}} : (tensor<2x3xi64>) -> tensor<2x3xi1>
  %2 = nn.aten "aten.sum.dim_IntList"(%1) {input_ports = ["self"], params = {dim = array<i64>, keepdim = false}} : (tensor<2x3xi1>) -> tensor<i64>
  %3 = nn.aten "aten._to_copy.default"(%2) {input_ports = ["self"], params = {dtype = "torch.float32", non_blocking = false}} : (tensor<i64>) -> tensor<f32>
  %4 = nn.aten "aten.sum.default"(%1) {input_ports = ["self"]} : (tensor<2x3xi1>) -> tensor<i64>
  %5 = nn.aten "aten._to_copy.default"(%4) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<i64>) -> tensor<f32>
  return %0, %3, %5 : tensor<2x3x2xf32>, tensor<f32>, tensor<f32>
}

// -----

// XLNet reads its ids transposed: (1, 3) -> (3, 1) keeps their order, so
// the embedding is the lookup by the ids themselves, viewed; a (2, 2)
// transpose reads them at positions 0, 2, 1, 3 (runs of one row each).
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<1x3xi64>, %[[W:[^:]*]]: tensor<6x2xf32>, %[[IDS2:[^:]*]]: tensor<2x2xi64>
// CHECK:      %[[L:.*]] = nn.embedding %[[W]], %[[IDS]] : (tensor<6x2xf32>, tensor<1x3xi64>)
// CHECK:      nn.view %{{.*}} {size = array<i64: 3, 1, 2>}
// CHECK:      nn.embedding %[[W]], %[[IDS2]] : (tensor<6x2xf32>, tensor<2x2xi64>)
// CHECK-NEXT: %[[L2:.*]] = nn.embedding %[[W]], %[[IDS2]] : (tensor<6x2xf32>, tensor<2x2xi64>)
// CHECK-NEXT: %[[V2:.*]] = nn.view %[[L2]] {size = array<i64: 4, 2>}
// CHECK-NEXT: nn.slice %[[V2]] {end = 1 : i64, start = 0 : i64}
// CHECK-NEXT: nn.slice %[[V2]] {end = 3 : i64, start = 2 : i64}
// CHECK-NEXT: nn.slice %[[V2]] {end = 2 : i64, start = 1 : i64}
// CHECK-NEXT: nn.slice %[[V2]] {end = 4 : i64, start = 3 : i64}
// CHECK-NEXT: nn.cat
// CHECK-NOT:  nn.permute
func.func @transposed(%ids: tensor<1x3xi64>, %w: tensor<6x2xf32>, %ids2: tensor<2x2xi64>) -> (tensor<3x1x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>) {
  %0 = nn.permute %ids {dims = array<i64: 1, 0>} : (tensor<1x3xi64>) -> tensor<3x1xi64>
  %1 = nn.embedding %w, %0 : (tensor<6x2xf32>, tensor<3x1xi64>) -> tensor<3x1x2xf32>
  %2 = nn.embedding %w, %ids2 : (tensor<6x2xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
  %3 = nn.permute %ids2 {dims = array<i64: 1, 0>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %4 = nn.embedding %w, %3 : (tensor<6x2xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
  return %1, %2, %4 : tensor<3x1x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>
}

// -----

// Booleans and unsigned integers read as what they are: `(ids == 3) ==
// True` (the boolean `other` is 1, not -1: [0 0 0 1 0 0]), `~(ids > 2)`
// of booleans (not: [1 1 1 0 0 0]), a uint8 constant 200 selected for id
// 2 (not -56: [0 1 200 3 4 5]).
// CHECK-LABEL: func.func @booleans_and_unsigned
// CHECK:      nn.constant dense<{{\[}}[0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00], [0.000000e+00], [0.000000e+00]]> : tensor<6x1xf32>
// CHECK:      nn.constant dense<{{\[}}[1.000000e+00], [1.000000e+00], [1.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00]]> : tensor<6x1xf32>
// CHECK:      nn.constant dense<{{\[}}[0.000000e+00], [1.000000e+00], [2.000000e+02], [3.000000e+00], [4.000000e+00], [5.000000e+00]]> : tensor<6x1xf32>
// CHECK-NOT:  nn.aten
func.func @booleans_and_unsigned(%ids: tensor<1x3xi64> {nn.input = "ids"}, %w: tensor<6x2xf32> {nn.param = "w"}) -> (tensor<1x3x2xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
  %1 = nn.aten "aten.eq.Scalar"(%ids) {input_ports = ["self"], params = {other = 3 : i64}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %2 = nn.aten "aten.eq.Scalar"(%1) {input_ports = ["self"], params = {other = true}} : (tensor<1x3xi1>) -> tensor<1x3xi1>
  %3 = nn.aten "aten._to_copy.default"(%2) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3xi1>) -> tensor<1x3xf32>
  %4 = nn.aten "aten.gt.Scalar"(%ids) {input_ports = ["self"], params = {other = 2 : i64}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %5 = nn.aten "aten.bitwise_not.default"(%4) {input_ports = ["self"]} : (tensor<1x3xi1>) -> tensor<1x3xi1>
  %6 = nn.aten "aten._to_copy.default"(%5) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3xi1>) -> tensor<1x3xf32>
  %7 = nn.aten "aten._to_copy.default"(%ids) {input_ports = ["self"], params = {dtype = "torch.uint8"}} : (tensor<1x3xi64>) -> tensor<1x3xui8>
  %c = nn.constant dense<200> : tensor<ui8>
  %8 = nn.aten "aten.eq.Scalar"(%ids) {input_ports = ["self"], params = {other = 2 : i64}} : (tensor<1x3xi64>) -> tensor<1x3xi1>
  %9 = nn.where %8, %c, %7 : (tensor<1x3xi1>, tensor<ui8>, tensor<1x3xui8>) -> tensor<1x3xui8>
  %10 = nn.aten "aten._to_copy.default"(%9) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<1x3xui8>) -> tensor<1x3xf32>
  return %0, %3, %6, %10 : tensor<1x3x2xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// ONNX Mod of id - 3 (-3..2) by 4: the divisor's sign by default
// ([1 2 3 0 1 2]), the dividend's with fmod = 1 ([-3 -2 -1 0 1 2]).
// CHECK-LABEL: func.func @onnx_mod
// CHECK:      nn.constant dense<{{\[}}[1.000000e+00], [2.000000e+00], [3.000000e+00], [0.000000e+00], [1.000000e+00], [2.000000e+00]]> : tensor<6x1xf32>
// CHECK:      nn.constant dense<{{\[}}[-3.000000e+00], [-2.000000e+00], [-1.000000e+00], [0.000000e+00], [1.000000e+00], [2.000000e+00]]> : tensor<6x1xf32>
// CHECK-NOT:  nn.aten
func.func @onnx_mod(%ids: tensor<1x3xi64>, %w: tensor<6x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
  %1 = nn.sub %ids scalar(3 : i64) : (tensor<1x3xi64>) -> tensor<1x3xi64>
  %four = nn.constant dense<4> : tensor<1xi64>
  %2 = nn.aten "onnx.Mod"(%1, %four) {input_ports = ["A", "B"]} : (tensor<1x3xi64>, tensor<1xi64>) -> tensor<1x3xi64>
  %3 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1x3xi64>) -> tensor<1x3xf32>
  %4 = nn.aten "onnx.Mod"(%1, %four) {input_ports = ["A", "B"], params = {fmod = 1 : i64}} : (tensor<1x3xi64>, tensor<1xi64>) -> tensor<1x3xi64>
  %5 = nn.aten "onnx.Cast"(%4) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1x3xi64>) -> tensor<1x3xf32>
  return %0, %3, %5 : tensor<1x3x2xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// ONNX Div of integers truncates: id - 3 (-3..2) by 2 is [-1 -1 0 0 0 1]
// (floor would give -2 for -3 and -1 for -1).
// CHECK-LABEL: func.func @onnx_div
// CHECK:      nn.constant dense<{{\[}}[-1.000000e+00], [-1.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK-NOT:  nn.aten
func.func @onnx_div(%ids: tensor<1x3xi64>, %w: tensor<6x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
  %1 = nn.sub %ids scalar(3 : i64) : (tensor<1x3xi64>) -> tensor<1x3xi64>
  %two = nn.constant dense<2> : tensor<i64>
  %2 = nn.aten "onnx.Div"(%1, %two) {input_ports = ["A", "B"]} : (tensor<1x3xi64>, tensor<i64>) -> tensor<1x3xi64>
  %3 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1x3xi64>) -> tensor<1x3xf32>
  return %0, %3 : tensor<1x3x2xf32>, tensor<1x3xf32>
}

// -----

// A sum of one element (a 0-d mask) is not a count of positions: left as
// it was (a rank-0 sum once divided by zero).
// CHECK-LABEL: func.func @sum_of_one
// CHECK: nn.aten "aten.sum.dim_IntList"
func.func @sum_of_one(%ids: tensor<1xi64> {nn.input = "ids"}, %w: tensor<6x2xf32> {nn.param = "w"}) -> (tensor<1x2xf32>, tensor<f32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  %1 = nn.view %ids {size = array<i64>} : (tensor<1xi64>) -> tensor<i64>
  %2 = nn.aten "aten.eq.Scalar"(%1) {input_ports = ["self"], params = {other = 3 : i64}} : (tensor<i64>) -> tensor<i1>
  %3 = nn.aten "aten.sum.dim_IntList"(%2) {input_ports = ["self"], params = {dim = array<i64: 0>, keepdim = false}} : (tensor<i1>) -> tensor<i64>
  %4 = nn.aten "aten._to_copy.default"(%3) {input_ports = ["self"], params = {dtype = "torch.float32"}} : (tensor<i64>) -> tensor<f32>
  return %0, %4 : tensor<1x2xf32>, tensor<f32>
}

// -----

// No table reads the ids themselves: their vocabulary is the smallest table
// read through a function the pass states (100 rows, by the transposed
// ids), not the 3-row table read through a cumulative sum it cannot: id + 1
// then reads rows 1..100 of the 101-row table, a table of 100 entries.
// CHECK-LABEL: func.func @vocabulary_through_functions
// CHECK:      nn.constant dense<[1, 2, 3, {{.*}}, 99, 100]> : tensor<100xi64>
// CHECK:      nn.aten "aten.cumsum.default"
func.func @vocabulary_through_functions(%ids: tensor<1x4xi64> {nn.input = "ids"}, %w: tensor<100x2xf32>, %v: tensor<101x2xf32>, %p: tensor<3x2xf32>) -> (tensor<4x1x2xf32>, tensor<4x1x2xf32>, tensor<1x4x2xf32>) {
  %0 = nn.permute %ids {dims = array<i64: 1, 0>} : (tensor<1x4xi64>) -> tensor<4x1xi64>
  %1 = nn.embedding %w, %0 : (tensor<100x2xf32>, tensor<4x1xi64>) -> tensor<4x1x2xf32>
  %2 = nn.add %0 scalar(1 : i64) : (tensor<4x1xi64>) -> tensor<4x1xi64>
  %3 = nn.embedding %v, %2 : (tensor<101x2xf32>, tensor<4x1xi64>) -> tensor<4x1x2xf32>
  %4 = nn.aten "aten.cumsum.default"(%ids) {input_ports = ["self"], params = {dim = 1 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %5 = nn.aten "aten.remainder.Scalar"(%4) {input_ports = ["self"], params = {other = 3 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %6 = nn.embedding %p, %5 : (tensor<3x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %1, %3, %6 : tensor<4x1x2xf32>, tensor<4x1x2xf32>, tensor<1x4x2xf32>
}

// -----

// MBart's and PLBart's decoder ids (shift_tokens_right): the start token is
// the id at the count of ids that are not padding (1) less one, gathered at
// run time; the rest the ids shifted right. Its embedding row is
// nn.last_token of the ids' embedding, counted; the others slices of it.
// CHECK-LABEL: func.func @mbart
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<1x4xi64> {nn.input = "input_ids"}, %[[W:[^:]*]]: tensor<5x2xf32>
// CHECK:      %[[E:.*]] = nn.embedding %[[W]], %[[IDS]] : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
// CHECK-NEXT: %[[ROWS:.*]] = nn.view %[[E]] {size = array<i64: 4, 2>}
// CHECK-NEXT: %[[BY:.*]] = nn.view %[[ROWS]] {size = array<i64: 1, 4, 2>}
// CHECK-NEXT: %[[START:.*]] = nn.last_token %[[BY]], %[[IDS]] {counted, padding_idx = 1 : i64}
// CHECK-NEXT: %[[FIRST:.*]] = nn.slice %[[START]] {end = 1 : i64, start = 0 : i64}
// CHECK-NEXT: %[[SHIFTED:.*]] = nn.slice %[[ROWS]] {end = 3 : i64, start = 0 : i64}
// CHECK-NEXT: nn.cat %[[FIRST]], %[[SHIFTED]]
// CHECK-NOT:  nn.aten
func.func @mbart(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<5x2xf32> {nn.param = "w"}) -> tensor<1x4x2xf32> {
  %0 = nn.clone %ids : tensor<1x4xi64>
  %1 = nn.aten "aten.eq.Scalar"(%0) {input_ports = ["self"], params = {other = -100 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %2 = nn.constant dense<1> : tensor<i64>
  %3 = nn.where %1, %2, %0 : (tensor<1x4xi1>, tensor<i64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %4 = nn.aten "aten.ne.Scalar"(%3) {input_ports = ["self"], params = {other = 1 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %5 = nn.aten "aten.sum.dim_IntList"(%4) {input_ports = ["self"], params = {dim = array<i64: 1>, keepdim = false}} : (tensor<1x4xi1>) -> tensor<1xi64>
  %6 = nn.sub %5 scalar(1 : i64) : (tensor<1xi64>) -> tensor<1xi64>
  %7 = nn.view %6 {size = array<i64: 1, 1>} : (tensor<1xi64>) -> tensor<1x1xi64>
  %8 = nn.aten "aten.gather.default"(%3, %7) {input_ports = ["self", "index"], params = {dim = 1 : i64, sparse_grad = false}} : (tensor<1x4xi64>, tensor<1x1xi64>) -> tensor<1x1xi64>
  %9 = nn.view %8 {size = array<i64>} : (tensor<1x1xi64>) -> tensor<i64>
  %10 = nn.slice %3 {dim = 1 : i64, end = -1 : i64} : (tensor<1x4xi64>) -> tensor<1x3xi64>
  %11 = nn.clone %10 : tensor<1x3xi64>
  %12 = nn.slice %3 {dim = 1 : i64, end = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %13 = nn.cat %12, %11 {dim = 1 : i64} : (tensor<1x1xi64>, tensor<1x3xi64>) -> tensor<1x4xi64>
  %14 = nn.expand %9 {size = array<i64: 1>} : (tensor<i64>) -> tensor<1xi64>
  %15 = nn.view %14 {size = array<i64: 1, 1>} : (tensor<1xi64>) -> tensor<1x1xi64>
  %16 = nn.expand %15 {size = array<i64: 1, 4>} : (tensor<1x1xi64>) -> tensor<1x4xi64>
  %17 = nn.constant dense<[[true, false, false, false]]> : tensor<1x4xi1>
  %18 = nn.where %17, %16, %13 : (tensor<1x4xi1>, tensor<1x4xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %19 = nn.embedding %w, %18 {padding_idx = 1 : i64} : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %19 : tensor<1x4x2xf32>
}

// -----

// A count no id escapes (ids != -5) is the length: the start token is the
// last id, a position known.
// CHECK-LABEL: func.func @nothing_counted_out
// CHECK-NOT:  nn.last_token
// CHECK:      %[[ROWS:.*]] = nn.view {{.*}} {size = array<i64: 4, 2>}
// CHECK-NEXT: %[[LAST:.*]] = nn.slice %[[ROWS]] {end = 4 : i64, start = 3 : i64}
// CHECK-NEXT: %[[SHIFTED:.*]] = nn.slice %[[ROWS]] {end = 3 : i64, start = 0 : i64}
// CHECK-NEXT: nn.cat %[[LAST]], %[[SHIFTED]]
// CHECK-NOT:  nn.aten
func.func @nothing_counted_out(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<5x2xf32> {nn.param = "w"}) -> tensor<1x4x2xf32> {
  %0 = nn.clone %ids : tensor<1x4xi64>
  %1 = nn.aten "aten.eq.Scalar"(%0) {input_ports = ["self"], params = {other = -100 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %2 = nn.constant dense<1> : tensor<i64>
  %3 = nn.where %1, %2, %0 : (tensor<1x4xi1>, tensor<i64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %4 = nn.aten "aten.ne.Scalar"(%3) {input_ports = ["self"], params = {other = -5 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %5 = nn.aten "aten.sum.dim_IntList"(%4) {input_ports = ["self"], params = {dim = array<i64: 1>, keepdim = false}} : (tensor<1x4xi1>) -> tensor<1xi64>
  %6 = nn.sub %5 scalar(1 : i64) : (tensor<1xi64>) -> tensor<1xi64>
  %7 = nn.view %6 {size = array<i64: 1, 1>} : (tensor<1xi64>) -> tensor<1x1xi64>
  %8 = nn.aten "aten.gather.default"(%3, %7) {input_ports = ["self", "index"], params = {dim = 1 : i64, sparse_grad = false}} : (tensor<1x4xi64>, tensor<1x1xi64>) -> tensor<1x1xi64>
  %9 = nn.view %8 {size = array<i64>} : (tensor<1x1xi64>) -> tensor<i64>
  %10 = nn.slice %3 {dim = 1 : i64, end = -1 : i64} : (tensor<1x4xi64>) -> tensor<1x3xi64>
  %11 = nn.clone %10 : tensor<1x3xi64>
  %12 = nn.slice %3 {dim = 1 : i64, end = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %13 = nn.cat %12, %11 {dim = 1 : i64} : (tensor<1x1xi64>, tensor<1x3xi64>) -> tensor<1x4xi64>
  %14 = nn.expand %9 {size = array<i64: 1>} : (tensor<i64>) -> tensor<1xi64>
  %15 = nn.view %14 {size = array<i64: 1, 1>} : (tensor<1xi64>) -> tensor<1x1xi64>
  %16 = nn.expand %15 {size = array<i64: 1, 4>} : (tensor<1x1xi64>) -> tensor<1x4xi64>
  %17 = nn.constant dense<[[true, false, false, false]]> : tensor<1x4xi1>
  %18 = nn.where %17, %16, %13 : (tensor<1x4xi1>, tensor<1x4xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %19 = nn.embedding %w, %18 {padding_idx = 1 : i64} : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %19 : tensor<1x4x2xf32>
}

// -----

// Two ids not counted (ids > 1: 0 and 1) are no padding id: the gather
// stays as it was imported (a compile names it).
// CHECK-LABEL: func.func @two_ids_not_counted
// CHECK:      nn.aten "aten.gather.default"
// CHECK-NOT:  nn.last_token
func.func @two_ids_not_counted(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<5x2xf32> {nn.param = "w"}) -> tensor<1x4x2xf32> {
  %0 = nn.clone %ids : tensor<1x4xi64>
  %1 = nn.aten "aten.eq.Scalar"(%0) {input_ports = ["self"], params = {other = -100 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %2 = nn.constant dense<1> : tensor<i64>
  %3 = nn.where %1, %2, %0 : (tensor<1x4xi1>, tensor<i64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %4 = nn.aten "aten.gt.Scalar"(%3) {input_ports = ["self"], params = {other = 1 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %5 = nn.aten "aten.sum.dim_IntList"(%4) {input_ports = ["self"], params = {dim = array<i64: 1>, keepdim = false}} : (tensor<1x4xi1>) -> tensor<1xi64>
  %6 = nn.sub %5 scalar(1 : i64) : (tensor<1xi64>) -> tensor<1xi64>
  %7 = nn.view %6 {size = array<i64: 1, 1>} : (tensor<1xi64>) -> tensor<1x1xi64>
  %8 = nn.aten "aten.gather.default"(%3, %7) {input_ports = ["self", "index"], params = {dim = 1 : i64, sparse_grad = false}} : (tensor<1x4xi64>, tensor<1x1xi64>) -> tensor<1x1xi64>
  %9 = nn.view %8 {size = array<i64>} : (tensor<1x1xi64>) -> tensor<i64>
  %10 = nn.slice %3 {dim = 1 : i64, end = -1 : i64} : (tensor<1x4xi64>) -> tensor<1x3xi64>
  %11 = nn.clone %10 : tensor<1x3xi64>
  %12 = nn.slice %3 {dim = 1 : i64, end = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %13 = nn.cat %12, %11 {dim = 1 : i64} : (tensor<1x1xi64>, tensor<1x3xi64>) -> tensor<1x4xi64>
  %14 = nn.expand %9 {size = array<i64: 1>} : (tensor<i64>) -> tensor<1xi64>
  %15 = nn.view %14 {size = array<i64: 1, 1>} : (tensor<1xi64>) -> tensor<1x1xi64>
  %16 = nn.expand %15 {size = array<i64: 1, 4>} : (tensor<1x1xi64>) -> tensor<1x4xi64>
  %17 = nn.constant dense<[[true, false, false, false]]> : tensor<1x4xi1>
  %18 = nn.where %17, %16, %13 : (tensor<1x4xi1>, tensor<1x4xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %19 = nn.embedding %w, %18 {padding_idx = 1 : i64} : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %19 : tensor<1x4x2xf32>
}

// -----

// M2M100's (NLLB's) decoder positions: RoBERTa's numbering past the padding
// (1) of the ids shifted right behind the start token 2, read from a
// sinusoidal table by index_select. Ids [5, 1, 7, 3] shift to [2, 5, 1, 7],
// numbered [2, 3, 1, 4]: the row of 2 (1 + pad + offset), then the ids' own
// positions with the offset raised by one ([3, 1, 4, 5]) shifted. Rows
// selected by the ids' positions become an embedding (the back end looks
// those up).
// CHECK-LABEL: func.func @m2m100_positions
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<1x4xi64> {nn.input = "input_ids"}, %{{[^:]*}}: tensor<5x2xf32> {nn.param = "w"}, %[[P:[^:]*]]: tensor<9x2xf32>
// CHECK:      %[[POS:.*]] = nn.token_positions %[[IDS]] {offset = 1 : i64, padding_idx = 1 : i64}
// CHECK-NEXT: %[[E:.*]] = nn.embedding %[[P]], %[[POS]] : (tensor<9x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
// CHECK-NEXT: %[[ROWS:.*]] = nn.view %[[E]] {size = array<i64: 4, 2>}
// CHECK-NEXT: %[[TWO:.*]] = nn.constant dense<2> : tensor<1xi64>
// CHECK-NEXT: %[[FIRST:.*]] = nn.embedding %[[P]], %[[TWO]]
// CHECK-NEXT: %[[REST:.*]] = nn.slice %[[ROWS]] {end = 3 : i64, start = 0 : i64}
// CHECK-NEXT: nn.cat %[[FIRST]], %[[REST]]
// CHECK:      %[[OWN:.*]] = nn.token_positions %[[IDS]] {padding_idx = 1 : i64}
// CHECK-NEXT: %[[FLAT:.*]] = nn.view %[[OWN]]
// CHECK-NEXT: nn.embedding %[[P]], %[[FLAT]] : (tensor<9x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
// CHECK-NOT:  nn.index_select
func.func @m2m100_positions(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<5x2xf32> {nn.param = "w"}, %p: tensor<9x2xf32> {nn.param = "p"}) -> (tensor<1x4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %e = nn.embedding %w, %ids : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %0 = nn.slice %ids {dim = 1 : i64, end = -1 : i64} : (tensor<1x4xi64>) -> tensor<1x3xi64>
  %1 = nn.constant dense<2> : tensor<1x1xi64>
  %2 = nn.cat %1, %0 {dim = 1 : i64} : (tensor<1x1xi64>, tensor<1x3xi64>) -> tensor<1x4xi64>
  %3 = nn.token_positions %2 {padding_idx = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %4 = nn.view %3 {size = array<i64: -1>} : (tensor<1x4xi64>) -> tensor<4xi64>
  %5 = nn.index_select %p, %4 {dim = 0 : i64} : (tensor<9x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  %6 = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  %7 = nn.view %6 {size = array<i64: -1>} : (tensor<1x4xi64>) -> tensor<4xi64>
  %8 = nn.index_select %p, %7 {dim = 0 : i64} : (tensor<9x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return %e, %5, %8 : tensor<1x4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
