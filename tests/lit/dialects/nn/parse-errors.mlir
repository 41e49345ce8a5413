// Malformed nn IR is rejected by the parser (or the verifier right after
// parsing) with a located error and a failing exit status.
// RUN: not %raptor-opt %s -split-input-file 2>&1 | FileCheck %s

func.func @unknown_op(%x: tensor<4xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: custom op 'nn.bogus' is unknown
  %0 = nn.bogus %x : tensor<4xf32>
  return
}

// -----

func.func @generic_unknown_op(%x: tensor<4xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: unregistered operation 'nn.bogus' found in dialect ('nn') that does not allow unknown operations
  %0 = "nn.bogus"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// nn.constant infers its result type while parsing.
func.func @constant_vector() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: value must be a ranked tensor
  %0 = nn.constant dense<1.0> : vector<4xf32>
  return
}

// -----

func.func @missing_type(%x: tensor<4xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:18: error: expected ':'
  %0 = nn.relu %x
  return
}

// -----

func.func @operand_count(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:18: error: custom op 'nn.linear' number of operands and types do not match: got 2 operands and 1 types
  %0 = nn.linear %x, %w : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @scalar_syntax(%x: tensor<4xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:24: error: expected '('
  %0 = nn.add %x scalar 1.0 : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @layer_norm_keyword(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:24: error: expected ':'
  %0 = nn.layer_norm %x wieght %w {normalized_shape = array<i64: 8>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @result_count(%x: tensor<1x1x4x4xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:3: error: operation defines 2 results but was provided 1 to bind
  %0 = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return
}

// -----

func.func @missing_required_attr(%x: tensor<2x3xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: 'nn.view' op requires attribute 'size'
  %0 = nn.view %x : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @bad_array_attr(%x: tensor<2x3xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:19: error: {{.*}}attribute 'size' failed to satisfy constraint: i64 dense array attribute
  %0 = nn.view %x {size = [6]} : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

// nn ops take ranked tensors only.
func.func @unranked_operand(%x: tensor<*xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:21: error: {{.*}}expected builtin.tensor, but found 'tensor<*xf32>'
  %0 = nn.relu %x : tensor<*xf32>
  return
}

// -----

func.func @unranked_generic(%x: tensor<*xf32>, %w: tensor<4x8xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: 'nn.linear' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<*xf32>'
  %0 = "nn.linear"(%x, %w) : (tensor<*xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  return
}
