// Ops on weights and constants are computed by the compiler (Swin V2's
// clamped exponential logit scale and its position-bias MLP over a constant
// table): the bias below is
//   clamp(relu([[1, 3]] @ [[1, 0], [0, 1], [1, 1]]^T + [0.5, 0, -9])^2, max 5)
//     * sigmoid(0) * exp(0)
// = clamp([1.5, 3, 0]^2, max 5) * 0.5 * 1 = [1.125, 2.5, 0], read off by hand;
// and a softmax of a constant (ConViT), also by hand.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[1.125000e+00, 2.500000e+00, 0.000000e+00]> : tensor<3xf32>

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %t = nn.constant dense<[[1.0, 3.0]]> : tensor<1x2xf32>
  %m = nn.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %mb = nn.constant dense<[0.5, 0.0, -9.0]> : tensor<3xf32>
  %z = nn.constant dense<0.0> : tensor<3xf32>
  %l = nn.linear %t, %m, %mb : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %r = nn.relu %l : tensor<1x3xf32>
  %p = nn.pow %r {exponent = 2.0 : f64} : tensor<1x3xf32>
  %c = nn.clamp %p {max = 5.0 : f64} : tensor<1x3xf32>
  %s = nn.sigmoid %z : tensor<3xf32>
  %e = nn.exp %z : tensor<3xf32>
  %f = nn.mul %s, %e : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v = nn.view %c {size = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
  %b = nn.mul %v, %f : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}

// -----

// Nor a cosine (the compiler computes it of constants, below): on an
// activation it is refused.
func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x4xf32> {
  // expected-error @+1 {{no PIM lowering}}
  %0 = nn.cos %x : tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// ESM's rotary tables: cos and sin of a persistent buffer, which the
// compiler computes (cos [0, pi, 0] = [1, -1, 1], sin [0, 0, pi/2] =
// [0, 0, 1]; summed: [1, -1, 2]), a product by them at run time. A cosine at
// run time is refused where it is (the vector unit has none).
// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[1.000000e+00, -1.000000e+00, 2.000000e+00]> : tensor<3xf32>
func.func @main(%x: tensor<3xf32> {nn.input = "x"}) -> tensor<3xf32> {
  %angles = nn.constant dense<[0.0, 3.14159274, 0.0]> : tensor<3xf32>
  %halves = nn.constant dense<[0.0, 0.0, 1.57079637]> : tensor<3xf32>
  %c = nn.cos %angles : tensor<3xf32>
  %s = nn.sin %halves : tensor<3xf32>
  %t = nn.add %c, %s : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %0 = nn.mul %x, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @main(%x: tensor<3xf32> {nn.input = "x"}) -> tensor<3xf32> {
  // expected-error @+1 {{'nn.cos' op has no PIM lowering}}
  %0 = nn.cos %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A weight norm (wav2vec2's positional convolution): g * v / ||v||, the
// norm a mean of squares over the kept dimension's complement; v's rows
// [3, 4] and [6, 8] have norm 5 and 10, so with g = [2, 1] the weight is
// [[1.2, 1.6], [0.6, 0.8]].
// CHECK-LABEL: pim.chip @main_chip
// CHECK:       pim.weight @{{.*}} dense<{{\[}}[1.200000e+00, 1.600000e+00], [6.000000e-01, 8.000000e-01]]>
func.func @main(%x: tensor<1x2xf32> {nn.input = "x"}) -> tensor<1x2xf32> {
  %v = nn.constant dense<[[3.0, 4.0], [6.0, 8.0]]> : tensor<2x2xf32>
  %g = nn.constant dense<[[2.0], [1.0]]> : tensor<2x1xf32>
  %sq = nn.mul %v, %v : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = nn.mean %sq {dim = array<i64: -1>, keepdim = true} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  %s = nn.mul %m scalar(2.0 : f64) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = nn.pow %s {exponent = 0.5 : f64} : tensor<2x1xf32>
  %q = nn.div %v, %n : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %w = nn.mul %g, %q : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %0 = nn.linear %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// Funnel's relative positions: a matrix product of constants (batched, a
// broadcast matrix, a vector on the left), computed by the compiler:
// [[[1, 2]], [[3, 4]]] @ [[1, 0, 1], [0, 1, 1]] = [[[1, 2, 3]], [[3, 4, 7]]]
// and [1, 1] @ the same = [1, 1, 2]; summed: [[[2, 3, 5]], [[4, 5, 9]]].
// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[2.000000e+00, 3.000000e+00, 5.000000e+00, 4.000000e+00, 5.000000e+00, 9.000000e+00]> : tensor<6xf32>
func.func @main(%x: tensor<2x1x3xf32> {nn.input = "x"}) -> tensor<2x1x3xf32> {
  %a = nn.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %b = nn.constant dense<[[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]> : tensor<2x3xf32>
  %v = nn.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %m = nn.matmul %a, %b : (tensor<2x1x2xf32>, tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %w = nn.matmul %v, %b : (tensor<2xf32>, tensor<2x3xf32>) -> tensor<3xf32>
  %t = nn.add %m, %w : (tensor<2x1x3xf32>, tensor<3xf32>) -> tensor<2x1x3xf32>
  %0 = nn.mul %x, %t : (tensor<2x1x3xf32>, tensor<2x1x3xf32>) -> tensor<2x1x3xf32>
  return %0 : tensor<2x1x3xf32>
}

// -----

// Perceiver's learned latents are layer-normalized before their queries:
// the compiler computes the norm of a weight, (v - mean) / sqrt(var + eps)
// * gamma + beta, by hand for [1, 3] (mean 2, variance 1, eps 0) with gamma
// [2, 1] and beta [0, 1]: [-1, 1] * [2, 1] + [0, 1] = [-2, 2].
// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[-2.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @main(%x: tensor<2xf32> {nn.input = "x"}) -> tensor<2xf32> {
  %v = nn.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %g = nn.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = nn.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %n = nn.layer_norm %v weight %g bias %b {normalized_shape = array<i64: 2>, eps = 0.0 : f64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %0 = nn.mul %x, %n : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// ConViT's positional attention softmaxes weights: the compiler computes
// softmax([0, ln 3, 0]) = [1, 3, 1] / 5 = [0.2, 0.6, 0.2].
// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[2.000000e-01, 6.000000e-01, 2.000000e-01]> : tensor<3xf32>

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %t = nn.constant dense<[[0.0, 1.09861229, 0.0]]> : tensor<1x3xf32>
  %s = nn.softmax %t {dim = -1} : tensor<1x3xf32>
  %b = nn.view %s {size = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}

// -----

// Over another dimension it is refused (raptor-normalize-row-ops, the
// first step of a compile, moves that dimension last).
func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}) -> tensor<1x3xf32> {
  %w = nn.constant dense<0.5> : tensor<3x4xf32>
  %t = nn.constant dense<[[0.0], [1.0], [2.0]]> : tensor<3x1xf32>
  // expected-error @+1 {{'nn.softmax' op the compiler computes softmaxes over the last dimension (raptor-normalize-row-ops moves the others there)}}
  %s = nn.softmax %t {dim = 0} : tensor<3x1xf32>
  %b = nn.view %s {size = array<i64: 3>} : (tensor<3x1xf32>) -> tensor<3xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}
