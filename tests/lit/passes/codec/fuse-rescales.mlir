// raptor-fuse-rescales: in an integer-only program, a decoder of int8 sums
// read by encoders alone (through one clamp, then one max pooling) becomes
// one rescale per encoder, the pooling moved onto the codes; a decoder
// with another reader, and every decoder of a float program, stays.
// RUN: %raptor-opt %s --raptor-fuse-rescales | FileCheck %s

// CHECK-LABEL: func.func @relu_pool_two_encoders
// CHECK-NOT:     codec.decode
// CHECK-NOT:     nn.relu
// CHECK:         %[[A:.*]] = codec.rescale %[[S:.*]] from <3 : f32 -> i32> to <4 : f32 -> i8> min 0.000000e+00 : tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[PA:.*]], %{{.*}} = nn.max_pool2d %[[A]]
// CHECK-NEXT:    codec.observe %[[PA]] for <4 : f32 -> i8>
// CHECK:         %[[B:.*]] = codec.rescale %[[S]] from <3 : f32 -> i32> to <5 : f32 -> i8> min 0.000000e+00 : tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[PB:.*]], %{{.*}} = nn.max_pool2d %[[B]]
// CHECK-NEXT:    codec.observe %[[PB]] for <5 : f32 -> i8>
func.func @relu_pool_two_encoders(%s: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) attributes {raptor.fixed_point_bits = 18 : i64} {
  %0 = codec.observe %s for <3 : f32 -> i32> : tensor<1x2x4x4xf32>
  %1 = codec.decode %0 from <3 : f32 -> i32> : tensor<1x2x4x4xf32>
  %2 = nn.relu %1 : tensor<1x2x4x4xf32>
  %out, %indices = nn.max_pool2d %2 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %3 = codec.encode %out to <4 : f32 -> i8> : tensor<1x2x2x2xf32>
  %4 = codec.observe %3 for <4 : f32 -> i8> {scale = 0.5 : f32} : tensor<1x2x2x2xf32>
  %5 = codec.encode %out to <5 : f32 -> i8> : tensor<1x2x2x2xf32>
  %6 = codec.observe %5 for <5 : f32 -> i8> {scale = 0.25 : f32} : tensor<1x2x2x2xf32>
  return %4, %6 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// A ReLU6 is a clamp to [0, 6].
// CHECK-LABEL: func.func @relu6
// CHECK-NOT:     nn.hardtanh
// CHECK:         codec.rescale %{{.*}} from <3 : f32 -> i32> to <4 : f32 -> i8> min 0.000000e+00 max 6.000000e+00
// CHECK-NOT:     nn.hardtanh
func.func @relu6(%s: tensor<1x8xf32>) -> tensor<1x8xf32> attributes {raptor.fixed_point_bits = 18 : i64} {
  %0 = codec.decode %s from <3 : f32 -> i32> : tensor<1x8xf32>
  %1 = nn.hardtanh %0 {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x8xf32>
  %2 = codec.encode %1 to <4 : f32 -> i8> : tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}

// The decoded value is also read by a sum: nothing changes.
// CHECK-LABEL: func.func @residual
// CHECK:         codec.decode
// CHECK:         codec.encode
// CHECK-NOT:     codec.rescale
func.func @residual(%s: tensor<1x8xf32>, %r: tensor<1x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) attributes {raptor.fixed_point_bits = 18 : i64} {
  %0 = codec.decode %s from <3 : f32 -> i32> : tensor<1x8xf32>
  %1 = codec.encode %0 to <4 : f32 -> i8> : tensor<1x8xf32>
  %2 = nn.add %0, %r : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %1, %2 : tensor<1x8xf32>, tensor<1x8xf32>
}

// A float program (no fixed point): decoders produce f32 for their readers.
// CHECK-LABEL: func.func @float_program
// CHECK:         codec.decode
// CHECK-NOT:     codec.rescale
func.func @float_program(%s: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = codec.decode %s from <3 : f32 -> i32> : tensor<1x8xf32>
  %1 = codec.encode %0 to <4 : f32 -> i8> : tensor<1x8xf32>
  return %1 : tensor<1x8xf32>
}
