// Diagnostics of the graph-level rules: the nn.input / nn.param argument
// attributes (NNDialect::verifyRegionArgAttribute), nn.constant and the
// catch-all nn.aten.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown nn argument attribute 'nn.weight' on argument #1}}
func.func @unknown_arg_attr(%x: tensor<2xf32> {nn.input = "x"}, %w: tensor<2xf32> {nn.weight = "w"}) {
  return
}

// -----

// expected-error @+1 {{'nn.param' on argument #0 must be a non-empty string naming the weight}}
func.func @param_not_a_string(%w: tensor<2xf32> {nn.param = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'nn.param' on argument #0 must be a non-empty string naming the weight}}
func.func @param_empty(%w: tensor<2xf32> {nn.param = ""}) {
  return
}

// -----

// expected-error @+1 {{'nn.input' on argument #2 must be a non-empty string naming the input}}
func.func @input_not_a_string(%a: tensor<2xf32>, %b: tensor<2xf32>, %x: tensor<2xf32> {nn.input = ["x"]}) {
  return
}

// -----

// expected-error @+1 {{'nn.input' on argument #0 must be a non-empty string naming the input}}
func.func @input_empty(%x: tensor<2xf32> {nn.input = ""}) {
  return
}

// -----

// expected-error @+1 {{argument #0 marked 'nn.input' must be a ranked tensor, got 'i64'}}
func.func @input_not_a_tensor(%n: i64 {nn.input = "n"}) {
  return
}

// -----

// expected-error @+1 {{argument #1 marked 'nn.param' must be a ranked tensor, got 'tensor<*xf32>'}}
func.func @param_unranked(%x: tensor<2xf32>, %w: tensor<*xf32> {nn.param = "w"}) {
  return
}

// -----

// The op's value must be a ranked tensor (it gives the result type).
func.func @constant_not_a_tensor() {
  // expected-error @+2 {{value must be a ranked tensor}}
  // expected-error @+1 {{'nn.constant' op failed to infer returned types}}
  %0 = "nn.constant"() <{value = dense<1.0> : vector<4xf32>}> : () -> tensor<4xf32>
  return
}

// -----

func.func @constant_result_type(%x: tensor<4xf32>) {
  // MLIR reports a mismatch and then that inference failed.
  // expected-error @+2 {{'nn.constant' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  // expected-error @+1 {{'nn.constant' op failed to infer returned types}}
  %0 = "nn.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf64>
  return
}

// -----

func.func @aten_target_no_dot(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.aten' op target 'relu' is not an operator name like 'aten.sub.Tensor'}}
  %0 = nn.aten "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @aten_target_leading_dot(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.aten' op target '.relu.default' is not an operator name like 'aten.sub.Tensor'}}
  %0 = nn.aten ".relu.default"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @aten_target_trailing_dot(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.aten' op target 'aten.relu.' is not an operator name like 'aten.sub.Tensor'}}
  %0 = nn.aten "aten.relu."(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @aten_target_empty(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nn.aten' op target '' is not an operator name like 'aten.sub.Tensor'}}
  %0 = nn.aten ""(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @aten_input_ports_count(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'nn.aten' op has 2 operands but 1 input_ports}}
  %0 = nn.aten "aten.sub.Tensor"(%a, %b) {input_ports = ["self"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @aten_input_ports_not_strings(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.aten' op attribute 'input_ports' failed to satisfy constraint: string array attribute}}
  %0 = nn.aten "aten.relu.default"(%a) {input_ports = [1]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @aten_params_not_a_dict(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.aten' op attribute 'params' failed to satisfy constraint: dictionary of named attribute values}}
  %0 = nn.aten "aten.relu.default"(%a) {params = [1]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
