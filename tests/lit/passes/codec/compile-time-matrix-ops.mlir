// A matrix operator whose operands are all known before run time (here a
// linear layer of a constant grid by weights, EdgeNeXt's positional
// encoding in small) is computed by the compiler: it keeps FP32 under
// policy Y, whose INT8 variant would only quantize the host's float32 sums
// and ask it for a requantizer. The linear layer of the input takes int8.
// RUN: %raptor-opt %s --raptor-insert-codec-markers | FileCheck %s

// CHECK-LABEL: func.func @position_table
// CHECK:       %[[XIN:.*]] = codec.mark_input %{{.*}} ports(<{{[0-9]+}} : f32 -> f32>, <{{[0-9]+}} : f32 -> i8>)
// CHECK-NEXT:  %[[WIN:.*]] = codec.mark_input %{{.*}} ports(<{{[0-9]+}} : f32 -> f32>, <{{[0-9]+}} : f32 -> i8>)
// CHECK-NEXT:  nn.linear %[[XIN]], %[[WIN]]
// CHECK-NEXT:  codec.mark_output %{{.*}} ports(<{{[0-9]+}} : f32 -> i32>, <{{[0-9]+}} : f32 -> f32>)
// CHECK-NEXT:  %[[GIN:.*]] = codec.mark_input %{{.*}} ports(<{{[0-9]+}} : f32 -> f32>, <{{[0-9]+}} : f32 -> f32>)
// CHECK-NEXT:  %[[PIN:.*]] = codec.mark_input %{{.*}} ports(<{{[0-9]+}} : f32 -> f32>, <{{[0-9]+}} : f32 -> f32>)
// CHECK-NEXT:  nn.linear %[[GIN]], %[[PIN]]
// CHECK-NEXT:  codec.mark_output %{{.*}} ports(<{{[0-9]+}} : f32 -> f32>, <{{[0-9]+}} : f32 -> f32>)
func.func @position_table(%x: tensor<1x8xf32> {nn.input = "x"}, %w: tensor<8x8xf32> {nn.param = "w"},
                          %grid: tensor<1x8xf32> {nn.param = "grid"}, %p: tensor<8x8xf32> {nn.param = "p"})
    -> tensor<1x8xf32> attributes {codec.policy = "Y"} {
  %0 = nn.linear %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %1 = nn.linear %grid, %p : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %2 = nn.add %0, %1 : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}

// A convolution of a constant (nn.constant) grid: FP32 too.
// CHECK-LABEL: func.func @constant_grid
// CHECK:       %[[CIN:.*]] = codec.mark_input %{{.*}} ports(<{{[0-9]+}} : f32 -> f32>, <{{[0-9]+}} : f32 -> f32>)
// CHECK-NEXT:  %[[KIN:.*]] = codec.mark_input %{{.*}} ports(<{{[0-9]+}} : f32 -> f32>, <{{[0-9]+}} : f32 -> f32>)
// CHECK-NEXT:  nn.convolution %[[CIN]], %[[KIN]]
func.func @constant_grid(%x: tensor<1x2x3x3xf32> {nn.input = "x"}, %k: tensor<2x2x1x1xf32> {nn.param = "k"})
    -> tensor<1x2x3x3xf32> attributes {codec.policy = "Y"} {
  %g = nn.constant dense<0.5> : tensor<1x2x3x3xf32>
  %0 = nn.convolution %g, %k {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = nn.add %x, %0 : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}
