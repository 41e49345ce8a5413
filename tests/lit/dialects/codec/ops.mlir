// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

// CHECK-LABEL: func.func @ops
// CHECK-SAME:  {codec.dominator_of = array<i64: 1>}
// CHECK:       %[[MO:.*]] = codec.mark_output %arg0 ports(<1 : f32 -> f32>, <2 : f32 -> f32>) edges(<1 : f32 -> f32>, <1 : f32 -> f32>) : tensor<4xf32>
// CHECK:       %[[MI:.*]] = codec.mark_input %[[MO]] ports(<3 : f32 -> f32>, <4 : f32 -> i8>) : tensor<4xf32>
// CHECK:       %[[E:.*]] = codec.encode %[[MI]] to <4 : f32 -> i8> : tensor<4xf32>
// CHECK:       %[[O:.*]] = codec.observe %[[E]] for <4 : f32 -> i8> {codec.dominator_of = array<i64: 4>} : tensor<4xf32>
// CHECK:       %[[R:.*]] = codec.requantize %[[O]] from <4 : f32 -> i8> to <5 : f32 -> i8> : tensor<4xf32>
// CHECK:       codec.decode %[[R]] from <5 : f32 -> i8> : tensor<4xf32>
func.func @ops(%x: tensor<4xf32> {codec.dominator_of = array<i64: 1>}) -> tensor<4xf32> attributes {codec.policy = "W"} {
  %0 = codec.mark_output %x ports(<1 : f32 -> f32>, <2 : f32 -> f32>) edges(<1 : f32 -> f32>, <1 : f32 -> f32>) : tensor<4xf32>
  %1 = codec.mark_input %0 ports(<3 : f32 -> f32>, <4 : f32 -> i8>) : tensor<4xf32>
  %2 = codec.encode %1 to <4 : f32 -> i8> : tensor<4xf32>
  %3 = codec.observe %2 for <4 : f32 -> i8> {codec.dominator_of = array<i64: 4>} : tensor<4xf32>
  %4 = codec.requantize %3 from <4 : f32 -> i8> to <5 : f32 -> i8> : tensor<4xf32>
  %5 = codec.decode %4 from <5 : f32 -> i8> : tensor<4xf32>
  return %5 : tensor<4xf32>
}

// The rescale of an int8 matrix operator's sums, with a clamp or without.
// CHECK-LABEL: func.func @rescale
// CHECK:       codec.rescale %arg0 from <6 : f32 -> i32> to <7 : f32 -> i8> min 0.000000e+00 max 6.000000e+00 : tensor<4xf32>
// CHECK:       codec.rescale %arg0 from <6 : f32 -> i32> to <8 : f32 -> i8> : tensor<4xf32>
func.func @rescale(%s: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = codec.rescale %s from <6 : f32 -> i32> to <7 : f32 -> i8> min 0.0 max 6.0 : tensor<4xf32>
  %1 = codec.rescale %s from <6 : f32 -> i32> to <8 : f32 -> i8> : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
