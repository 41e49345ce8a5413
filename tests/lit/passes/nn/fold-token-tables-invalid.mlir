// raptor-fold-token-arithmetic: a function of the ids that reads an
// embedding outside its table for an id of the vocabulary (ids 0..5, the
// 6-row table they index) is an error on that embedding: id 5 + 1 reads
// row 6, and torch would raise on it.
// RUN: %raptor-opt %s --raptor-fold-token-arithmetic --split-input-file -verify-diagnostics

func.func @one_past(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<6x2xf32> {nn.param = "w"}, %v: tensor<6x2xf32> {nn.param = "v"}) -> tensor<1x4x2xf32> {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.add %ids scalar(1 : i64) : (tensor<1x4xi64>) -> tensor<1x4xi64>
  // expected-error @+1 {{an embedding of 6 rows reads row 6 computed from the token ids (ids 0..5, the vocabulary of the tables they index)}}
  %2 = nn.embedding %v, %1 : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %2 : tensor<1x4x2xf32>
}

// -----

// Below the table: id - 2 reads row -2 for id 0.
func.func @below(%ids: tensor<1x4xi64> {nn.input = "input_ids"}, %w: tensor<6x2xf32> {nn.param = "w"}) -> tensor<1x4x2xf32> {
  %0 = nn.embedding %w, %ids : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  %1 = nn.sub %ids scalar(2 : i64) : (tensor<1x4xi64>) -> tensor<1x4xi64>
  // expected-error @+1 {{an embedding of 6 rows reads row -2 computed from the token ids}}
  %2 = nn.embedding %w, %1 : (tensor<6x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %2 : tensor<1x4x2xf32>
}
