// Integer inputs are token ids of nn.embedding only: any other reader is
// refused at its location (arithmetic on the ids already by the compute
// graph), and a table the compiler does not know.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim -o /dev/null

func.func @main(%ids: tensor<1x2xi64> {nn.input = "ids"}, %x: tensor<1x2xf32> {nn.input = "x"}) -> tensor<1x2xf32> {
  %t = nn.constant dense<1.0> : tensor<4x3xf32>
  %e = nn.embedding %t, %ids : (tensor<4x3xf32>, tensor<1x2xi64>) -> tensor<1x2x3xf32>
  %v = nn.view %ids {size = array<i64: 2>} : (tensor<1x2xi64>) -> tensor<2xi64>
  // expected-error @+1 {{'nn.index_select' op reads the integer input 'ids': the PIM lowering takes integer inputs only as the token ids of nn.embedding (through views), of nn.token_positions and of nn.last_token}}
  %s = nn.index_select %x, %v {dim = 1 : i64} : (tensor<1x2xf32>, tensor<2xi64>) -> tensor<1x2xf32>
  return %s : tensor<1x2xf32>
}

// -----

func.func @main(%ids: tensor<1x2xi64> {nn.input = "ids"}, %t: tensor<4x3xf32> {nn.input = "table"}) -> tensor<1x2x3xf32> {
  // expected-error @+1 {{'nn.embedding' op needs a table known at compile time (a weight) for the PIM lowering}}
  %e = nn.embedding %t, %ids : (tensor<4x3xf32>, tensor<1x2xi64>) -> tensor<1x2x3xf32>
  %r = nn.relu %e : tensor<1x2x3xf32>
  return %r : tensor<1x2x3xf32>
}

// -----

// Arithmetic on the ids that raptor-fold-token-arithmetic did not state as an
// operator (here: it did not run).
func.func @main(%ids: tensor<1x2xi64> {nn.input = "ids"}) -> tensor<1x2x3xf32> {
  %t = nn.constant dense<1.0> : tensor<4x3xf32>
  // expected-error @+1 {{aten.ne.Scalar computes on the integer model input (token ids) at run time, which the PIM lowering does not}}
  %m = nn.aten "aten.ne.Scalar"(%ids) {input_ports = ["self"], params = {other = 1 : i64}} : (tensor<1x2xi64>) -> tensor<1x2xi1>
  %e = nn.embedding %t, %ids : (tensor<4x3xf32>, tensor<1x2xi64>) -> tensor<1x2x3xf32>
  return %e : tensor<1x2x3xf32>
}

// -----

// An integer weight (nn.param) read by an operator without a lowering is a
// constant, not the token ids: the operator is named as unsupported.
func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}, %i: tensor<1x2xi64> {nn.param = "idx"}) -> tensor<1x2xf32> {
  // expected-error @+1 {{aten.gather.default has no PIM lowering (the importer kept it as the generic nn.aten op)}}
  %g = nn.aten "aten.gather.default"(%x, %i) {input_ports = ["self", "index"], params = {dim = -1 : i64, sparse_grad = false}} : (tensor<1x4xf32>, tensor<1x2xi64>) -> tensor<1x2xf32>
  return %g : tensor<1x2xf32>
}

// -----

// Positions computed from the ids reach 1 + 0 + 4 = 5, beyond a table of 4.
func.func @main(%ids: tensor<1x4xi64> {nn.input = "ids"}) -> tensor<1x4x3xf32> {
  %t = nn.constant dense<1.0> : tensor<4x3xf32>
  %pos = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  // expected-error @+1 {{'nn.embedding' op reads positions up to 5 from a table of 4 rows (a sequence longer than the model's positions)}}
  %e = nn.embedding %t, %pos : (tensor<4x3xf32>, tensor<1x4xi64>) -> tensor<1x4x3xf32>
  return %e : tensor<1x4x3xf32>
}

// -----

// From a base of 1 (OPT), padding 0: positions reach 1 + 0 + 4 = 5, beyond
// a table of 5 (the padding index would read 4).
func.func @main(%mask: tensor<1x4xi64> {nn.input = "mask"}) -> tensor<1x4x2xf32> {
  %places = nn.constant dense<1.0> : tensor<5x2xf32>
  %pos = nn.token_positions %mask {padding_idx = 0 : i64, base = 1 : i64} : (tensor<1x4xi64>) -> tensor<1x4xi64>
  // expected-error @+1 {{reads positions up to 5 from a table of 5 rows}}
  %p = nn.embedding %places, %pos : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %p : tensor<1x4x2xf32>
}
