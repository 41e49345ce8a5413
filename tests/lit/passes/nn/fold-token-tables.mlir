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
// CHECK:      nn.constant dense<{{\[}}[0.000000e+00], [0.000000e+00], [0.000000e+00], [0.000000e+00], [1.000000e+00], [1.000000e+00]]> : tensor<6x1xf32>
// CHECK:      %[[PA:.*]] = nn.mul %[[A]], %{{.*}} : (tensor<1xf32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
// CHECK:      nn.constant dense<{{\[}}[1.000000e+00], [1.000000e+00], [1.000000e+00], [1.000000e+00], [0.000000e+00], [0.000000e+00]]> : tensor<6x1xf32>
// CHECK:      %[[PB:.*]] = nn.mul %{{.*}}, %{{.*}} : (tensor<1x4x2xf32>, tensor<1x4x1xf32>) -> tensor<1x4x2xf32>
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
