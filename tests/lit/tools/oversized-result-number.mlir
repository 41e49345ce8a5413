// A value use naming result 2^31 of an op made upstream MLIR's parser
// allocate a placeholder per result and die (found by make fuzz): refused
// before parsing, with its location.
// RUN: not %raptor-opt %s -o /dev/null 2>&1 | FileCheck %s

func.func @f(%k: tensor<1x8x1x64xf32>, %v: tensor<1x8x1x64xf32>) -> tensor<1x8x1x64xf32> {
  %0:2 = nn.kv_cache %k, %v : (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>) -> (tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32>)
  // CHECK: oversized-result-number.mlir:[[@LINE+1]]:10: error: result number 2147483648 of %0 is beyond 16777215
  return %0#2147483648 : tensor<1x8x1x64xf32>
}
