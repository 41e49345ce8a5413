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
