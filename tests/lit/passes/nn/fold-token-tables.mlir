// raptor-fold-token-arithmetic, token tables: element-wise functions of
// the ids read as numbers become lookups in tables of the vocabulary's K
// rows (the smallest embedding table the ids index): the float cast of
// one, a select by one (a * m + b * (1 - m), the products by a constant
// zero left out) and the float cast of a sum of one (the mean of the
// lookup times the count). Tables counted by hand for K = 6.
// RUN: %raptor-opt %s --raptor-fold-token-arithmetic --split-input-file | FileCheck %s

// ESM as the ONNX exporter gives it: the embeddings of its mask token (3)
// zeroed, and the mask tokens counted. The select keeps the embedding
// where the id is not 3 (table 1 - [id == 3]); the count is the mean of
// [id == 3] over the 4 positions, times 4.
// CHECK-LABEL: func.func @esm
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<1x4xi64> {nn.input = "input_ids"}, %[[W:[^:]*]]: tensor<6x2xf32>
// CHECK:      %[[EMB:.*]] = nn.embedding %[[W]], %[[IDS]]
// CHECK:      %[[KEEP:.*]] = nn.constant dense<{{\[}}[1.000000e+00], [1.000000e+00], [1.000000e+00], [0.000000e+00], [1.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK-NEXT: %[[K:.*]] = nn.embedding %[[KEEP]], %[[IDS]] : (tensor<6x1xf32>, tensor<1x4xi64>) -> tensor<1x4x1xf32>
// CHECK-NEXT: %[[KEPT:.*]] = nn.mul %[[EMB]], %[[K]] : (tensor<1x4x2xf32>, tensor<1x4x1xf32>) -> tensor<1x4x2xf32>
// CHECK:      %[[IS:.*]] = nn.constant dense<{{\[}}[0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00], [0.000000e+00], [0.000000e+00]]> : tensor<6x1xf32>
// CHECK-NEXT: %[[I:.*]] = nn.embedding %[[IS]], %[[IDS]]
// CHECK-NEXT: %[[IV:.*]] = nn.view %[[I]] {size = array<i64: 1, 4>}
// CHECK-NEXT: %[[MEAN:.*]] = nn.mean %[[IV]] {dim = array<i64: 1>} : (tensor<1x4xf32>) -> tensor<1xf32>
// CHECK-NEXT: %[[COUNT:.*]] = nn.mul %[[MEAN]] scalar(4.000000e+00 : f64)
// CHECK-NOT:  nn.aten
// CHECK-NOT:  nn.where
// CHECK:      return %[[KEPT]], %[[COUNT]]
func.func @esm(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<6x2xf32> {nn.param = "w"}) -> (tensor<1x4x2xf32>, tensor<1xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.constant dense<3> : tensor<1xi64>
  %2 = nn.aten "onnx.Equal"(%ids, %1) {input_ports = ["A", "B"]} : (tensor<1x4xi64>, tensor<1xi64>) -> tensor<1x4xi1>
  %3 = nn.view %2 {size = array<i64: 1, 4, 1>} : (tensor<1x4xi1>) -> tensor<1x4x1xi1>
  %4 = nn.constant dense<0.000000e+00> : tensor<1xf32>
  %5 = nn.where %3, %4, %0 : (tensor<1x4x1xi1>, tensor<1xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %6 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 7 : i64}} : (tensor<1x4xi1>) -> tensor<1x4xi64>
  %7 = nn.constant dense<-1> : tensor<1xi64>
  %8 = nn.aten "onnx.ReduceSum"(%6, %7) {input_ports = ["data", "axes"], params = {keepdims = 0 : i64}} : (tensor<1x4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %9 = nn.aten "onnx.Cast"(%8) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1xi64>) -> tensor<1xf32>
  return %5, %9 : tensor<1x4x2xf32>, tensor<1xf32>
}

// -----

// Both sides of a select kept (ids >= 4 pick 2.5, the others the
// embedding), the constant on the left of the comparison (4 <= id), a
// boolean cast of an integer cast: the tables follow the functions.
// CHECK-LABEL: func.func @both_sides
// CHECK:      %[[A:.*]] = nn.constant dense<2.500000e+00> : tensor<1xf32>
// CHECK:      %[[ISF:.*]] = nn.constant dense<{{\[}}[0.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK-NEXT: %[[IS:.*]] = nn.embedding %[[ISF]]
// CHECK-NEXT: %[[NOTF:.*]] = nn.constant dense<{{\[}}[1.000000e+00], [1.000000e+00], [1.000000e+00], [1.000000e+00], [0.000000e+00], [0.000000e+00]]> : tensor<6x1xf32>
// CHECK-NEXT: %[[NOT:.*]] = nn.embedding %[[NOTF]]
// CHECK-NEXT: %[[PA:.*]] = nn.mul %[[A]], %[[IS]] : (tensor<1xf32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
// CHECK-NEXT: %[[PB:.*]] = nn.mul %{{.*}}, %[[NOT]] : (tensor<1x4x2xf32>, tensor<1x4x1xf32>) -> tensor<1x4x2xf32>
// CHECK-NEXT: nn.add %[[PA]], %[[PB]] : (tensor<1x4x1xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
// CHECK-NOT:  nn.aten
func.func @both_sides(%ids: tensor<1x4xi64>, %w: tensor<6x2xf32>) -> tensor<1x4x2xf32> {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %four = nn.constant dense<4> : tensor<1xi64>
  %1 = nn.aten "onnx.LessOrEqual"(%four, %ids) {input_ports = ["A", "B"]} : (tensor<1xi64>, tensor<1x4xi64>) -> tensor<1x4xi1>
  %2 = nn.aten "onnx.Cast"(%1) {input_ports = ["input"], params = {to = 6 : i64}} : (tensor<1x4xi1>) -> tensor<1x4xi32>
  %3 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 9 : i64}} : (tensor<1x4xi32>) -> tensor<1x4xi1>
  %4 = nn.view %3 {size = array<i64: 1, 4, 1>} : (tensor<1x4xi1>) -> tensor<1x4x1xi1>
  %a = nn.constant dense<2.5> : tensor<1xf32>
  %5 = nn.where %4, %a, %0 : (tensor<1x4x1xi1>, tensor<1xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %5 : tensor<1x4x2xf32>
}

// -----

// Left as they were: a select of a constant that is not finite (its
// products by 0 would be NaN), and arithmetic on integers no embedding
// reads (no vocabulary bounds them).
// CHECK-LABEL: func.func @left_alone
// CHECK: nn.aten "onnx.Equal"
// CHECK: nn.where
// CHECK: nn.aten "onnx.Equal"
// CHECK: nn.aten "onnx.Cast"
func.func @left_alone(%ids: tensor<1x4xi64>, %w: tensor<6x2xf32>, %other: tensor<1x4xi64>) -> (tensor<1x4x2xf32>, tensor<1x4xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %c = nn.constant dense<1> : tensor<1xi64>
  %1 = nn.aten "onnx.Equal"(%ids, %c) {input_ports = ["A", "B"]} : (tensor<1x4xi64>, tensor<1xi64>) -> tensor<1x4xi1>
  %2 = nn.view %1 {size = array<i64: 1, 4, 1>} : (tensor<1x4xi1>) -> tensor<1x4x1xi1>
  %inf = nn.constant dense<0xFF800000> : tensor<1xf32>
  %3 = nn.where %2, %inf, %0 : (tensor<1x4x1xi1>, tensor<1xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %4 = nn.aten "onnx.Equal"(%other, %c) {input_ports = ["A", "B"]} : (tensor<1x4xi64>, tensor<1xi64>) -> tensor<1x4xi1>
  %5 = nn.aten "onnx.Cast"(%4) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1x4xi1>) -> tensor<1x4xf32>
  return %3, %5 : tensor<1x4x2xf32>, tensor<1x4xf32>
}

// -----

// The ids index two tables, of 6 and 8 rows: the vocabulary is the smaller
// (an id of 6 or 7 would read past the first). A cast to booleans is
// "not zero" (ids 2 and 4 are true, not their lowest bit).
// CHECK-LABEL: func.func @smallest_table
// CHECK: nn.constant dense<{{\[}}[0.000000e+00], [1.000000e+00], [1.000000e+00], [1.000000e+00], [1.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK-NOT: nn.aten
func.func @smallest_table(%ids: tensor<1x4xi64>, %w: tensor<6x2xf32>, %v: tensor<8x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.embedding %v, %ids : (tensor<8x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %2 = nn.aten "onnx.Cast"(%ids) {input_ports = ["input"], params = {to = 9 : i64}} : (tensor<1x4xi64>) -> tensor<1x4xi1>
  %3 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1x4xi1>) -> tensor<1x4xf32>
  return %0, %1, %3 : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4xf32>
}

// -----

// T5's decoder ids as the ONNX exporter gives them: the ids shifted right
// by two ScatterND (the first 3 into positions 1..3, the start token 5
// into position 0), -100 replaced by the padding. Their embedding is row 5
// of the table, then rows 0..2 of the ids' lookup; the scatters, the
// comparison and the dead select of the exporter go.
// CHECK-LABEL: func.func @t5_decoder_ids
// CHECK-SAME: (%[[IDS:[^:]*]]: tensor<1x4xi64>, %[[W:[^:]*]]: tensor<6x2xf32>)
// CHECK-NEXT: %[[E:.*]] = nn.embedding %[[W]], %[[IDS]]
// CHECK-NEXT: %[[START:.*]] = nn.constant dense<5> : tensor<1xi64>
// CHECK-NEXT: %[[ROW:.*]] = nn.embedding %[[W]], %[[START]] : (tensor<6x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
// CHECK-NEXT: %[[L:.*]] = nn.embedding %[[W]], %[[IDS]]
// CHECK-NEXT: %[[LV:.*]] = nn.view %[[L]] {size = array<i64: 4, 2>}
// CHECK-NEXT: %[[S:.*]] = nn.slice %[[LV]] {end = 3 : i64, start = 0 : i64} : (tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[C:.*]] = nn.cat %[[ROW]], %[[S]] : (tensor<1x2xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[D:.*]] = nn.view %[[C]] {size = array<i64: 1, 4, 2>}
// CHECK-NEXT: return %[[E]], %[[D]]
func.func @t5_decoder_ids(%ids: tensor<1x4xi64>, %w: tensor<6x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x4x2xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.slice %ids {dim = 1 : i64, end = 3 : i64} : (tensor<1x4xi64>) -> tensor<1x3xi64>
  %2 = nn.constant dense<0> : tensor<1x4xi64>
  %3 = nn.constant dense<[[[0, 1], [0, 2], [0, 3]]]> : tensor<1x3x2xi64>
  %4 = nn.aten "onnx.ScatterND"(%2, %3, %1) {input_ports = ["data", "indices", "updates"]} : (tensor<1x4xi64>, tensor<1x3x2xi64>, tensor<1x3xi64>) -> tensor<1x4xi64>
  %5 = nn.select %4 {dim = 1 : i64, index = 0 : i64} : (tensor<1x4xi64>) -> tensor<1xi64>
  %6 = nn.constant dense<0> : tensor<1x1x2xi64>
  %start = nn.constant dense<5> : tensor<1x1xi64>
  %7 = nn.aten "onnx.ScatterND"(%4, %6, %start) {input_ports = ["data", "indices", "updates"]} : (tensor<1x4xi64>, tensor<1x1x2xi64>, tensor<1x1xi64>) -> tensor<1x4xi64>
  %8 = nn.constant dense<-100> : tensor<1xi64>
  %9 = nn.aten "onnx.Equal"(%7, %8) {input_ports = ["A", "B"]} : (tensor<1x4xi64>, tensor<1xi64>) -> tensor<1x4xi1>
  %pad = nn.constant dense<1> : tensor<1xi64>
  %10 = nn.where %9, %pad, %7 : (tensor<1x4xi1>, tensor<1xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %11 = nn.embedding %w, %10 : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %0, %11 : tensor<1x4x2xf32>, tensor<1x4x2xf32>
}

// -----

// Ids mapped (3 read as 0) and reversed along the sequence (a
// concatenation of single positions): a table W[f] of f = [0, 1, 2, 0, 4,
// 5] (the embedding of W by f, computed by the compiler) looked up by the
// ids, its rows 3, 2, 1, 0. (An id mapped outside the table is an error:
// fold-token-tables-invalid.mlir.)
// CHECK-LABEL: func.func @mapped
// CHECK:      %[[F:.*]] = nn.constant dense<[0, 1, 2, 0, 4, 5]> : tensor<6xi64>
// CHECK-NEXT: %[[WF:.*]] = nn.embedding %{{.*}}, %[[F]] : (tensor<6x2xf32>, tensor<6xi64>) -> tensor<6x2xf32>
// CHECK-NEXT: %[[L:.*]] = nn.embedding %[[WF]], %{{.*}} : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
// CHECK-NEXT: %[[LV:.*]] = nn.view %[[L]]
// CHECK-NEXT: nn.slice %[[LV]] {end = 4 : i64, start = 3 : i64}
// CHECK-NEXT: nn.slice %[[LV]] {end = 3 : i64, start = 2 : i64}
// CHECK-NEXT: nn.slice %[[LV]] {end = 2 : i64, start = 1 : i64}
// CHECK-NEXT: nn.slice %[[LV]] {end = 1 : i64, start = 0 : i64}
// CHECK-NEXT: nn.cat
func.func @mapped(%ids: tensor<1x4xi64>, %w: tensor<6x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x4x2xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %three = nn.constant dense<3> : tensor<1xi64>
  %zero = nn.constant dense<0> : tensor<1xi64>
  %1 = nn.aten "onnx.Equal"(%ids, %three) {input_ports = ["A", "B"]} : (tensor<1x4xi64>, tensor<1xi64>) -> tensor<1x4xi1>
  %2 = nn.where %1, %zero, %ids : (tensor<1x4xi1>, tensor<1xi64>, tensor<1x4xi64>) -> tensor<1x4xi64>
  %a = nn.slice %2 {dim = 1 : i64, start = 3 : i64, end = 4 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %b = nn.slice %2 {dim = 1 : i64, start = 2 : i64, end = 3 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %c = nn.slice %2 {dim = 1 : i64, start = 1 : i64, end = 2 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %d = nn.slice %2 {dim = 1 : i64, start = 0 : i64, end = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x1xi64>
  %3 = nn.cat %a, %b, %c, %d {dim = 1 : i64} : (tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x1xi64>) -> tensor<1x4xi64>
  %4 = nn.embedding %w, %3 : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %0, %4 : tensor<1x4x2xf32>, tensor<1x4x2xf32>
}

// -----

// Left as they were: a function of two ids (whether neighbouring ids are
// equal) read as embedding indices, and as numbers.
// CHECK-LABEL: func.func @two_ids
// CHECK: nn.aten "onnx.Equal"
// CHECK: nn.embedding %{{.*}}, %{{.*}} : (tensor<6x2xf32>, tensor<1x2xi64>)
// CHECK: nn.aten "onnx.Cast"
func.func @two_ids(%ids: tensor<1x4xi64>, %w: tensor<6x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x2x2xf32>, tensor<1x2xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %a = nn.slice %ids {dim = 1 : i64, start = 0 : i64, end = 2 : i64} : (tensor<1x4xi64>) -> tensor<1x2xi64>
  %b = nn.slice %ids {dim = 1 : i64, start = 2 : i64, end = 4 : i64} : (tensor<1x4xi64>) -> tensor<1x2xi64>
  %1 = nn.aten "onnx.Equal"(%a, %b) {input_ports = ["A", "B"]} : (tensor<1x2xi64>, tensor<1x2xi64>) -> tensor<1x2xi1>
  %2 = nn.aten "onnx.Cast"(%1) {input_ports = ["input"], params = {to = 7 : i64}} : (tensor<1x2xi1>) -> tensor<1x2xi64>
  %3 = nn.embedding %w, %2 : (tensor<6x2xf32>, tensor<1x2xi64>) -> tensor<1x2x2xf32>
  %4 = nn.aten "onnx.Cast"(%1) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1x2xi1>) -> tensor<1x2xf32>
  return %0, %3, %4 : tensor<1x4x2xf32>, tensor<1x2x2xf32>, tensor<1x2xf32>
}

// -----

// Two rows of ids: a ScatterND writes id (1, 0) (flat position 3) at
// (1, 2) of zeros, so positions 0..4 read row 0 of the table and position
// 5 the lookup at 3; a slice by a step of 2 reads ids 0 and 2 of each row
// (positions 0, 2, 3, 5 of the lookup: runs [0, 1), [2, 4), [5, 6)).
// CHECK-LABEL: func.func @moved_2d
// CHECK:      %[[Z:.*]] = nn.constant dense<0> : tensor<5xi64>
// CHECK-NEXT: nn.embedding %{{.*}}, %[[Z]] : (tensor<6x2xf32>, tensor<5xi64>) -> tensor<5x2xf32>
// CHECK:      nn.slice %{{.*}} {end = 4 : i64, start = 3 : i64} : (tensor<6x2xf32>) -> tensor<1x2xf32>
// CHECK:      nn.view %{{.*}} {size = array<i64: 2, 3, 2>}
// CHECK:      nn.slice %[[L:.*]] {end = 1 : i64, start = 0 : i64}
// CHECK-NEXT: nn.slice %[[L]] {end = 4 : i64, start = 2 : i64}
// CHECK-NEXT: nn.slice %[[L]] {end = 6 : i64, start = 5 : i64}
// CHECK-NEXT: nn.cat
func.func @moved_2d(%ids: tensor<2x3xi64>, %w: tensor<6x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x2x2xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
  %zeros = nn.constant dense<0> : tensor<2x3xi64>
  %where = nn.constant dense<[[[1, 2]]]> : tensor<1x1x2xi64>
  %r = nn.slice %ids {dim = 0 : i64, start = 1 : i64, end = 2 : i64} : (tensor<2x3xi64>) -> tensor<1x3xi64>
  %u = nn.slice %r {dim = 1 : i64, start = 0 : i64, end = 1 : i64} : (tensor<1x3xi64>) -> tensor<1x1xi64>
  %1 = nn.aten "onnx.ScatterND"(%zeros, %where, %u) {input_ports = ["data", "indices", "updates"]} : (tensor<2x3xi64>, tensor<1x1x2xi64>, tensor<1x1xi64>) -> tensor<2x3xi64>
  %2 = nn.embedding %w, %1 : (tensor<6x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2xf32>
  %3 = nn.slice %ids {dim = 1 : i64, start = 0 : i64, end = 3 : i64, step = 2 : i64} : (tensor<2x3xi64>) -> tensor<2x2xi64>
  %4 = nn.embedding %w, %3 : (tensor<6x2xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
  return %0, %2, %4 : tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x2x2xf32>
}

// -----

// A boolean constant is 1 where true (not -1): where(id == 5, true, false)
// read as numbers is [id == 5].
// CHECK-LABEL: func.func @boolean_constants
// CHECK: nn.constant dense<{{\[}}[0.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK-NOT: nn.aten
func.func @boolean_constants(%ids: tensor<1x4xi64>, %w: tensor<6x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x4xf32>) {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %five = nn.constant dense<5> : tensor<1xi64>
  %yes = nn.constant dense<true> : tensor<1xi1>
  %no = nn.constant dense<false> : tensor<1xi1>
  %1 = nn.aten "onnx.Equal"(%ids, %five) {input_ports = ["A", "B"]} : (tensor<1x4xi64>, tensor<1xi64>) -> tensor<1x4xi1>
  %2 = nn.where %1, %yes, %no : (tensor<1x4xi1>, tensor<1xi1>, tensor<1xi1>) -> tensor<1x4xi1>
  %3 = nn.aten "onnx.Cast"(%2) {input_ports = ["input"], params = {to = 1 : i64}} : (tensor<1x4xi1>) -> tensor<1x4xf32>
  return %0, %3 : tensor<1x4x2xf32>, tensor<1x4xf32>
}
