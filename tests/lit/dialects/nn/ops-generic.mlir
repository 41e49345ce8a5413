// The generic op form: nn ops written generically parse (defaults filled in
// as properties), print in their custom form, and print generically again
// with every property spelled out; both forms round-trip.
// RUN: %raptor-opt %s | FileCheck %s
// RUN: %raptor-opt %s | %raptor-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: %raptor-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

// CHECK-LABEL: func.func @generic
// GENERIC-LABEL: sym_name = "generic"

// CHECK: %[[C:.*]] = nn.constant dense<5.000000e-01> : tensor<8xf32>
// GENERIC: "nn.constant"() <{value = dense<5.000000e-01> : tensor<8xf32>}> : () -> tensor<8xf32>

// CHECK: %[[CONV:.*]] = nn.convolution %arg0, %arg1 {dilation = array<i64: 1>, padding = array<i64: 1>, stride = array<i64: 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// GENERIC: "nn.convolution"(%arg0, %arg1) <{dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64>, padding = array<i64: 1>, stride = array<i64: 1>, transposed = false}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>

// CHECK: %[[LN:.*]] = nn.layer_norm %[[CONV]] bias %arg2 {normalized_shape = array<i64: 8>} : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
// GENERIC: "nn.layer_norm"(%{{.*}}, %arg2) <{eps = 1.000000e-05 : f64, normalized_shape = array<i64: 8>, operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>

// CHECK: %[[ADD:.*]] = nn.add %[[LN]], %[[C]] : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
// GENERIC: "nn.add"(%{{.*}}, %{{.*}}) <{alpha = 1.000000e+00 : f64}> : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>

// CHECK: %[[MUL:.*]] = nn.mul %[[ADD]] scalar(3 : i64) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// GENERIC: "nn.mul"(%{{.*}}) <{scalar = 3 : i64}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>

// CHECK: %[[G:.*]] = nn.gelu %[[MUL]] : tensor<1x4x8x8xf32>
// GENERIC: "nn.gelu"(%{{.*}}) <{approximate = "none"}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>

// CHECK: %[[P:[^ ,]+]], %[[I:[^ ,]+]] = nn.max_pool2d %[[G]] {kernel_size = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
// GENERIC: "nn.max_pool2d"(%{{.*}}) <{ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64>}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)

// CHECK: %[[S:.*]]:2 = nn.split_with_sizes %[[P]] {dim = 1 : i64, split_sizes = array<i64: 1, 3>} : (tensor<1x4x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x3x4x4xf32>)
// GENERIC: "nn.split_with_sizes"(%{{.*}}) <{dim = 1 : i64, split_sizes = array<i64: 1, 3>}> : (tensor<1x4x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x3x4x4xf32>)

// CHECK: %[[SL:.*]] = nn.slice %[[S]]#1 {dim = 2 : i64, start = 1 : i64} : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x4xf32>
// GENERIC: "nn.slice"(%{{.*}}#1) <{dim = 2 : i64, start = 1 : i64, step = 1 : i64}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x4xf32>

// CHECK: %[[A:.*]] = nn.aten "aten.flip.default"(%[[SL]]) {params = {dims = [3]}} : (tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
// GENERIC: "nn.aten"(%{{.*}}) <{params = {dims = [3]}, target = "aten.flip.default"}> : (tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>

// CHECK: %[[KV:[^ ,]+]], %[[VV:[^ ,]+]] = nn.kv_cache %[[A]], %[[A]] {past_length = 2 : i64} : (tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>) -> (tensor<1x3x5x4xf32>, tensor<1x3x5x4xf32>)
// GENERIC: "nn.kv_cache"(%{{.*}}, %{{.*}}) <{past_length = 2 : i64}> : (tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>) -> (tensor<1x3x5x4xf32>, tensor<1x3x5x4xf32>)

// CHECK: return %[[KV]], %[[I]] : tensor<1x3x5x4xf32>, tensor<1x4x4x4xi64>
// GENERIC: "func.return"

"func.func"() <{function_type = (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<8xf32>) -> (tensor<1x3x5x4xf32>, tensor<1x4x4x4xi64>),
               sym_name = "generic", arg_attrs = [{nn.input = "x"}, {nn.param = "w"}, {nn.param = "b"}]}> ({
^bb0(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<8xf32>):
  %c = "nn.constant"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %0 = "nn.convolution"(%x, %w) <{stride = array<i64: 1>, padding = array<i64: 1>, dilation = array<i64: 1>}>
      : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = "nn.layer_norm"(%0, %b) <{normalized_shape = array<i64: 8>, operandSegmentSizes = array<i32: 1, 0, 1>}>
      : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
  // tensor<8xf32> broadcasts along the last dimension.
  %2 = "nn.add"(%1, %c) : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
  %3 = "nn.mul"(%2) <{scalar = 3 : i64}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %4 = "nn.gelu"(%3) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %5:2 = "nn.max_pool2d"(%4) <{kernel_size = array<i64: 2, 2>}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  %6:2 = "nn.split_with_sizes"(%5#0) <{split_sizes = array<i64: 1, 3>, dim = 1 : i64}>
      : (tensor<1x4x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x3x4x4xf32>)
  %7 = "nn.slice"(%6#1) <{dim = 2 : i64, start = 1 : i64}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x4xf32>
  %8 = "nn.aten"(%7) <{target = "aten.flip.default", params = {dims = [3]}}> : (tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %9:2 = "nn.kv_cache"(%8, %8) <{past_length = 2 : i64}>
      : (tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>) -> (tensor<1x3x5x4xf32>, tensor<1x3x5x4xf32>)
  "func.return"(%9#0, %5#1) : (tensor<1x3x5x4xf32>, tensor<1x4x4x4xi64>) -> ()
}) : () -> ()
