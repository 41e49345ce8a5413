// Inference batch norms fold into the preceding convolution's weights and
// bias (weight expressions the compiler computes), or become a multiply
// and an add; norms whose statistics are run-time values stay.
// RUN: %raptor-opt %s --raptor-fold-batch-norm -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @after_conv
// CHECK-SAME:  (%[[X:.*]]: tensor<1x2x4x4xf32> {nn.input = "x"}, %[[W:.*]]: tensor<3x2x1x1xf32> {nn.param = "w"}, %[[G:.*]]: tensor<3xf32> {nn.param = "g"}, %[[B:.*]]: tensor<3xf32> {nn.param = "b"}, %[[M:.*]]: tensor<3xf32> {nn.param = "m"}, %[[V:.*]]: tensor<3xf32> {nn.param = "v"})
// s = g * rsqrt(v + eps), t = b - m * s
// CHECK:      %[[VE:.*]] = nn.add %[[V]] scalar(1.000000e-03 : f64)
// CHECK-NEXT: %[[R:.*]] = nn.rsqrt %[[VE]]
// CHECK-NEXT: %[[S:.*]] = nn.mul %[[G]], %[[R]]
// CHECK-NEXT: %[[MS:.*]] = nn.mul %[[M]], %[[S]]
// CHECK-NEXT: %[[T:.*]] = nn.sub %[[B]], %[[MS]]
// The weights scaled per output channel (dimension 0), the bias is t.
// CHECK-NEXT: %[[S4:.*]] = nn.view %[[S]] {size = array<i64: 3, 1, 1, 1>}
// CHECK-NEXT: %[[WS:.*]] = nn.mul %[[W]], %[[S4]]
// CHECK-NEXT: %[[C:.*]] = nn.convolution %[[X]], %[[WS]], %[[T]]
// CHECK-NOT:  nn.batch_norm
// CHECK:      return %[[C]]
func.func @after_conv(%x: tensor<1x2x4x4xf32> {nn.input = "x"}, %w: tensor<3x2x1x1xf32> {nn.param = "w"},
                      %g: tensor<3xf32> {nn.param = "g"}, %b: tensor<3xf32> {nn.param = "b"},
                      %m: tensor<3xf32> {nn.param = "m"}, %v: tensor<3xf32> {nn.param = "v"}) -> tensor<1x3x4x4xf32> {
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %out, %sm, %sv = nn.batch_norm %0, %g, %b, %m, %v {eps = 1.0e-3 : f64} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %out : tensor<1x3x4x4xf32>
}

// -----

// A conv with a bias: b' = b_conv * s + t.
// CHECK-LABEL: func.func @with_bias
// CHECK:      %[[T:.*]] = nn.sub
// CHECK:      %[[WS:.*]] = nn.mul %{{.*}}, %{{.*}} : (tensor<3x2x1x1xf32>, tensor<3x1x1x1xf32>)
// CHECK-NEXT: %[[CS:.*]] = nn.mul %[[CB:arg[0-9]+]], %{{.*}} : (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: %[[BIAS:.*]] = nn.add %[[CS]], %[[T]]
// CHECK-NEXT: nn.convolution %{{.*}}, %[[WS]], %[[BIAS]]
func.func @with_bias(%x: tensor<1x2x4x4xf32> {nn.input = "x"}, %w: tensor<3x2x1x1xf32> {nn.param = "w"},
                     %cb: tensor<3xf32> {nn.param = "cb"}, %g: tensor<3xf32> {nn.param = "g"},
                     %b: tensor<3xf32> {nn.param = "b"}, %m: tensor<3xf32> {nn.param = "m"},
                     %v: tensor<3xf32> {nn.param = "v"}) -> tensor<1x3x4x4xf32> {
  %0 = nn.convolution %x, %w, %cb {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %out, %sm, %sv = nn.batch_norm %0, %g, %b, %m, %v : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %out : tensor<1x3x4x4xf32>
}

// -----

// Not after a convolution (here: after a relu): x * s + t per channel (dimension 1).
// CHECK-LABEL: func.func @standalone
// CHECK:      %[[RELU:.*]] = nn.relu
// CHECK:      %[[S:.*]] = nn.mul %{{.*}}, %{{.*}} : (tensor<2xf32>, tensor<2xf32>)
// CHECK:      %[[T:.*]] = nn.sub
// CHECK-NEXT: %[[S2:.*]] = nn.view %[[S]] {size = array<i64: 1, 2, 1, 1>}
// CHECK-NEXT: %[[Y:.*]] = nn.mul %[[RELU]], %[[S2]]
// CHECK-NEXT: %[[T2:.*]] = nn.view %[[T]] {size = array<i64: 1, 2, 1, 1>}
// CHECK-NEXT: %[[Z:.*]] = nn.add %[[Y]], %[[T2]]
// CHECK-NEXT: return %[[Z]]
func.func @standalone(%x: tensor<1x2x4x4xf32> {nn.input = "x"}, %g: tensor<2xf32> {nn.param = "g"},
                      %b: tensor<2xf32> {nn.param = "b"}, %m: tensor<2xf32> {nn.param = "m"},
                      %v: tensor<2xf32> {nn.param = "v"}) -> tensor<1x2x4x4xf32> {
  %0 = nn.relu %x : tensor<1x2x4x4xf32>
  %out, %sm, %sv = nn.batch_norm %0, %g, %b, %m, %v : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %out : tensor<1x2x4x4xf32>
}

// -----

// Run-time statistics: unchanged.
// CHECK-LABEL: func.func @runtime_statistics
// CHECK:       nn.batch_norm
func.func @runtime_statistics(%x: tensor<1x2x4x4xf32> {nn.input = "x"}, %g: tensor<2xf32> {nn.input = "g"},
                              %b: tensor<2xf32> {nn.param = "b"}) -> tensor<1x2x4x4xf32> {
  %out, %sm, %sv = nn.batch_norm %x, %g, %b, %b, %b : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %out : tensor<1x2x4x4xf32>
}
