// RUN: %raptor-opt %s --raptor-summarize-graph -o /dev/null | FileCheck %s
// RUN: %raptor-opt %s --raptor-summarize-graph=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: not %raptor-opt %s --raptor-summarize-graph=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: graph @block: 3 ops, 2 weights (112 elements, 0.00 MiB fp32), 1 constants (16 bytes)
// CHECK-NEXT: input  x : tensor<1x3x8x8xf32>
// CHECK-NEXT: output out0 : tensor<1x4x8x8xf32>
// CHECK: nn.add{{ +}}1
// CHECK: nn.constant{{ +}}1
// CHECK: nn.convolution{{ +}}1

// JSON: "fp32_storage_bytes": 448
// JSON-NOT: conv.weight
// JSON: "name": "x"
// JSON: "name": "block"
// JSON: "num_constants": 1
// JSON: "num_ops": 3
// JSON: "num_weights": 2

// BAD: unknown format 'xml' (expected 'table' or 'json')

func.func @block(%x: tensor<1x3x8x8xf32> {nn.input = "x"},
                 %w: tensor<4x3x3x3xf32> {nn.param = "conv.weight"},
                 %b: tensor<4xf32> {nn.param = "conv.bias"}) -> tensor<1x4x8x8xf32> {
  %c = nn.constant dense<1.0> : tensor<4x1x1xf32>
  %0 = nn.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = nn.add %0, %c : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}
